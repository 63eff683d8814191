#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a checkpoint remembers of a regular file it audited, to refuse the
/// same night twice (docs/contract.md §9): its size and a SHA-256 of its
/// first and last 64 KiB, as stored (compressed bytes for gzip). Read
/// before anything else of the file, in two reads whatever its size. A
/// renamed or copied file has the same digest; a log that grew has another.
package struct FileDigest: Hashable, Sendable {
    package var size: UInt64
    /// 64 hex digits.
    package var hash: String

    /// Bytes read at each end.
    static let edge = 64 * 1024

    package init(size: UInt64, hash: String) {
        self.size = size
        self.hash = hash
    }

    /// The digest of the regular file at `path`; nil when it cannot be
    /// read (the audit then reports it as any unreadable input).
    package static func of(path: String) -> FileDigest? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        let size = UInt64(max(0, info.st_size))
        var sha = SHA256()
        var buffer = [UInt8](repeating: 0, count: edge)
        func read(at offset: UInt64, count: Int) -> Bool {
            var done = 0
            while done < count {
                let n = buffer.withUnsafeMutableBytes { raw in
                    pread(fd, raw.baseAddress! + done, count - done, off_t(offset) + off_t(done))
                }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return false }
                done += n
            }
            sha.update(data: buffer[0..<count])
            return true
        }
        let head = Int(min(size, UInt64(edge)))
        guard read(at: 0, count: head) else { return nil }
        if size > UInt64(edge) {
            let tail = Int(min(size - UInt64(edge), UInt64(edge)))
            guard read(at: size - UInt64(tail), count: tail) else { return nil }
        }
        let hex = sha.finalize().map { $0 < 16 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
        return FileDigest(size: size, hash: hex)
    }
}
