#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Standard input, output and error as the process found them: one closed
/// at start (`<&-`, `>&-`) is held by `/dev/null` so that no file opened
/// later takes its number, and remembered as closed — reading `-` then
/// says so, writing standard output fails with EBADF as it would have.
package enum StandardDescriptors {
    /// Standard descriptors that were closed when the process started.
    nonisolated(unsafe) private static var closedAtStart: Set<Int32> = []

    /// Call first thing (the summary would otherwise go into an output file).
    package static func reserve() {
        for fd in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where fcntl(fd, F_GETFD) == -1 && errno == EBADF {
            let null = open("/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY)
            if null >= 0 && null != fd {
                _ = dup2(null, fd)
                _ = close(null)
            }
            closedAtStart.insert(fd)
        }
    }

    /// Whether `fd` was closed when the process started.
    package static func wasClosed(_ fd: Int32) -> Bool { closedAtStart.contains(fd) }
}
