#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Standard output as an output like any other: written with `write(2)`,
/// its errors reported (ENOSPC, EIO, EBADF, EPIPE: exit 4).
package enum StandardStreams {
    /// Standard descriptors that were closed when the process started.
    nonisolated(unsafe) private static var closedAtStart: Set<Int32> = []

    /// Call first thing: a closed standard descriptor (`>&-`) is held by
    /// `/dev/null`, so that no file opened later takes its number (the
    /// summary would go into an output file); writing standard output then
    /// still fails with EBADF, as it would have.
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

    /// Writes `text` to standard output.
    package static func writeOutput(_ text: String) throws(OutputError) {
        if wasClosed(STDOUT_FILENO) { throw OutputError(path: "-", reason: String(cString: strerror(EBADF)), code: EBADF) }
        try Descriptor.writeAll(STDOUT_FILENO, Array(text.utf8), path: "-")
    }

    /// Writes a line (or, without `newline`, raw text) to standard error;
    /// errors there have nowhere to go.
    package static func writeError(_ line: String, newline: Bool = true) {
        if wasClosed(STDERR_FILENO) { return }
        try? Descriptor.writeAll(STDERR_FILENO, Array((newline ? line + "\n" : line).utf8), path: "standard error")
    }
}
