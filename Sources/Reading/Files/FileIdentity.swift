#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file as the kernel knows it: its device and inode. Two paths name the
/// same file (`a.log`, `./a.log`, a symlink `current -> a.log`,
/// `/dev/stdin` and `-`) exactly when their identities are equal.
package struct FileIdentity: Hashable, Sendable {
    package var device: UInt64
    package var inode: UInt64
    /// The `S_IFMT` bits of the file's mode.
    package var type: UInt32
    /// A regular file's size when it was first looked at: every read of it
    /// in this run stops there, and a file found shorter later shrank
    /// (docs/contract.md §8). Nil for anything else. Not part of equality.
    package var size: UInt64?

    package init(device: UInt64, inode: UInt64, type: UInt32 = UInt32(S_IFREG), size: UInt64? = nil) {
        self.device = device
        self.inode = inode
        self.type = type
        self.size = size
    }

    package init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        type = UInt32(info.st_mode) & UInt32(S_IFMT)
        size = type == UInt32(S_IFREG) ? UInt64(max(0, info.st_size)) : nil
    }

    package static func == (a: FileIdentity, b: FileIdentity) -> Bool { a.device == b.device && a.inode == b.inode }
    package func hash(into hasher: inout Hasher) { hasher.combine(device); hasher.combine(inode) }

    /// The file `path` names, symlinks followed; nil when it does not exist
    /// (or cannot be looked at).
    package static func of(path: String) -> FileIdentity? {
        var info = stat()
        return stat(path, &info) == 0 ? FileIdentity(info) : nil
    }

    /// The file open on descriptor `fd`.
    package static func of(descriptor fd: Int32) -> FileIdentity? {
        var info = stat()
        return fstat(fd, &info) == 0 ? FileIdentity(info) : nil
    }

    package var isRegular: Bool { type == UInt32(S_IFREG) }
    package var isDirectory: Bool { type == UInt32(S_IFDIR) }
    var isFIFO: Bool { type == UInt32(S_IFIFO) }
    package var isCharacterDevice: Bool { type == UInt32(S_IFCHR) }
    package var isSocket: Bool { type == UInt32(S_IFSOCK) }

    /// What kind of file this is, in words, for messages.
    package var kindName: String {
        switch type {
        case UInt32(S_IFREG): return "regular file"
        case UInt32(S_IFDIR): return "directory"
        case UInt32(S_IFIFO): return "FIFO"
        case UInt32(S_IFCHR): return "character device"
        case UInt32(S_IFBLK): return "block device"
        case UInt32(S_IFSOCK): return "socket"
        default: return "special file"
        }
    }
}
