#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why an output could not be written completely (exit 4).
package struct OutputError: Error, CustomStringConvertible, Sendable {
    /// The output, as the user named it (`-` is standard output).
    package var path: String
    package var reason: String
    /// The `errno` of the failure (0 when none applies).
    package var code: Int32 = 0

    package init(path: String, reason: String, code: Int32 = 0) {
        self.path = path
        self.reason = reason
        self.code = code
    }

    package var description: String {
        path == "-" ? "cannot write standard output: \(reason)" : "cannot write \(path): \(reason)"
    }

    /// A reader closed the pipe: not a failure of the run (like ripgrep,
    /// the output simply ends there).
    package var isBrokenPipe: Bool { code == EPIPE }

    /// The error `errno` names, for `path`.
    package static func system(_ path: String) -> OutputError {
        let code = errno
        return OutputError(path: path, reason: String(cString: strerror(code)), code: code)
    }
}
