import Reading

/// Where one output goes, and how it is written there.
package struct OutputTarget: Sendable, Equatable {
    package enum Method: Sendable, Equatable {
        /// Standard output (`-`).
        case standardOutput
        /// Opened and written as it is: a FIFO, a device, `/dev/fd/N`,
        /// `/dev/stdout`. Never replaced, never truncated by a rename.
        case direct
        /// A regular file, or a path that does not exist yet: written to a
        /// temporary file beside it and renamed into place, so a reader
        /// never sees half a file.
        case replace
    }

    /// The option that names it (`--json`, `--csv`), for messages.
    package var option: String
    /// The path as given (or built from the CSV folder), for messages.
    package var given: String
    /// The path written: for `replace`, the file a symlink finally names
    /// (so the link stays a link and its target gets the new content).
    package var path: String
    package var method: Method
    /// The file as it is now, when it exists.
    package var identity: FileIdentity?

    /// The temporary file of a `replace` target: beside `path`.
    package var temporaryPath: String {
        FilePaths.directory(of: path) + "/" + FilePaths.temporaryName(for: FilePaths.name(of: path))
    }

    package init(option: String, given: String, path: String, method: Method, identity: FileIdentity?) {
        self.option = option
        self.given = given
        self.path = path
        self.method = method
        self.identity = identity
    }
}
