/// Why an input could not be read completely. Each case prints as one
/// sentence; the caller prefixes the file name.
package enum InputError: Error, Equatable, CustomStringConvertible, Sendable {
    /// `open(2)` or `read(2)` failed; the system's message.
    case unreadable(String)
    /// The path does not exist.
    case missing
    /// The file is compressed with a format flipaudit does not decode;
    /// `path` is the file (nil for standard input), named in the command
    /// that pipes it in.
    case unsupportedCompression(format: String, tool: String, path: String?)
    /// The gzip stream ends in the middle of a member.
    case truncated(offset: UInt64)
    /// The gzip stream is damaged at (or just before) this compressed offset.
    case corrupt(offset: UInt64, reason: String)
    /// Bytes after the last complete gzip member that are not another member.
    case trailingGarbage(offset: UInt64)
    /// A regular file ended at `offset` though it held `size` bytes when
    /// it was opened: it was truncated while being read.
    case shrunk(offset: UInt64, size: UInt64)
    /// The gzip decoder could not be initialised.
    case decoderUnavailable(String)

    package var description: String {
        switch self {
        case .unreadable(let why):
            return "cannot read: \(why)"
        case .missing:
            return "no such file or directory"
        case .unsupportedCompression(let format, let tool, let path):
            guard let path else {
                return "\(format)-compressed input is not supported; decompress it in the pipe: ... | \(tool) -dc | flipaudit -"
            }
            return "\(format)-compressed input is not supported; decompress it and pipe it in: \(tool) -dc \(Self.shellQuoted(path)) | flipaudit -"
        case .truncated(let offset):
            return "gzip data is truncated at compressed byte offset \(offset); lines before it were analysed"
        case .corrupt(let offset, let reason):
            return "gzip data is corrupt at compressed byte offset \(offset) (\(reason)); lines before it were analysed"
        case .trailingGarbage(let offset):
            return "unexpected non-gzip bytes after the last gzip member at compressed byte offset \(offset); ignored"
        case .shrunk(let offset, let size):
            return "file shrank while being read: it ended at byte offset \(offset) of the \(size) bytes it had when opened; lines before it were analysed"
        case .decoderUnavailable(let why):
            return "cannot start the gzip decoder: \(why)"
        }
    }

    /// `path` as a shell word: as it is when it holds only characters no
    /// shell treats specially, else in single quotes.
    static func shellQuoted(_ path: String) -> String {
        let plain =
            !path.isEmpty
            && path.utf8.allSatisfy { b in
                (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || "/._-+,:@%".utf8.contains(b)
            }
        return plain ? path : "'" + path.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }
}
