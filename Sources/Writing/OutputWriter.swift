import Reading

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes a whole document (the JSON report) to an `OutputTarget` the way
/// the target wants it written.
package enum OutputWriter {
    package static func write(_ text: String, to target: OutputTarget) throws(OutputError) {
        switch target.method {
        case .standardOutput:
            try StandardStreams.writeOutput(text)
        case .replace:
            try AtomicFile.write(text, to: target.path, shownAs: target.given)
        case .direct:
            let (fd, owned) = try openDirect(target)
            defer { if owned { _ = Descriptor.closeFile(fd) } }
            try Descriptor.writeAll(fd, Array(text.utf8), path: target.given)
        }
    }

    /// As `write`, but a file that replaces another is only staged: renamed
    /// by `OutputCommit.shared.apply()` with the run's other files.
    package static func stage(_ text: String, to target: OutputTarget, isCheckpoint: Bool = false) throws(OutputError) {
        stageBytes: do {
            guard target.method == .replace else { break stageBytes }
            try AtomicFile.stage(
                bytes: Array(text.utf8), to: target.path, mode: isCheckpoint ? 0o600 : nil, shownAs: target.given,
                option: target.option, isCheckpoint: isCheckpoint)
            return
        }
        try write(text, to: target)
    }

    /// A descriptor for a `direct` target: `/dev/fd/N` (and `/dev/stdout`)
    /// is this process's own descriptor N, written as it is; anything else
    /// is opened for writing without truncating or creating (`owned`: to be
    /// closed by the caller).
    package static func openDirect(_ target: OutputTarget) throws(OutputError) -> (fd: Int32, owned: Bool) {
        if let n = descriptorNumber(target.path), fcntl(n, F_GETFD) != -1 {
            if n == STDOUT_FILENO && StandardDescriptors.wasClosed(n) {
                throw OutputError(path: target.given, reason: String(cString: strerror(EBADF)), code: EBADF)
            }
            return (n, false)
        }
        let fd = open(target.path, O_WRONLY | O_CLOEXEC | O_NOCTTY)
        if fd < 0 { throw .system(target.given) }
        return (fd, true)
    }

    private static func descriptorNumber(_ path: String) -> Int32? {
        if path == "/dev/stdout" { return STDOUT_FILENO }
        if path == "/dev/stderr" { return STDERR_FILENO }
        for prefix in ["/dev/fd/", "/proc/self/fd/"] where path.hasPrefix(prefix) {
            return Int32(path.dropFirst(prefix.count))
        }
        return nil
    }
}
