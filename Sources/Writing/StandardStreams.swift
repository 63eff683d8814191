import Reading

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Standard output as an output like any other: written with `write(2)`,
/// its errors reported (ENOSPC, EIO, EBADF, EPIPE: exit 4).
package enum StandardStreams {
    /// Writes `text` to standard output.
    package static func writeOutput(_ text: String) throws(OutputError) {
        if StandardDescriptors.wasClosed(STDOUT_FILENO) { throw OutputError(path: "-", reason: String(cString: strerror(EBADF)), code: EBADF) }
        try Descriptor.writeAll(STDOUT_FILENO, Array(text.utf8), path: "-")
    }

    /// Writes a line (or, without `newline`, raw text) to standard error;
    /// errors there have nowhere to go.
    package static func writeError(_ line: String, newline: Bool = true) {
        if StandardDescriptors.wasClosed(STDERR_FILENO) { return }
        try? Descriptor.writeAll(STDERR_FILENO, Array((newline ? line + "\n" : line).utf8), path: "standard error")
    }
}
