import Foundation
import Reports

/// One run at a time on a checkpoint (docs/contract.md §9): an advisory
/// `fcntl` lock on `FILE.lock` beside it, held from the load to the write.
/// The kernel releases it when the process ends, however it ends, so a
/// killed run never blocks the next one. A second run fails at once,
/// naming the holder's PID.
///
/// Not `Sendable`: the command holds it for its whole run.
struct CheckpointLock: ~Copyable {
    private let fd: Int32

    /// Why the lock could not be taken: a one-line message.
    struct Refused: Error, CustomStringConvertible {
        var description: String
    }

    /// The lock file of a checkpoint.
    static func path(for checkpoint: String) -> String { checkpoint + ".lock" }

    /// The checkpoint that `path` names: through a symbolic link, the file
    /// it points to, so that two runs given two names of one checkpoint
    /// take one lock and write one file (a rename onto the link would
    /// replace the link). Any other path as it is. A link whose target is
    /// missing names that target, where the first run will write it.
    static func target(of path: String) -> String {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { return path }
        if let real = realpath(path, nil) {
            defer { free(real) }
            return String(cString: real)
        }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return path }
        let link = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if link.hasPrefix("/") { return link }
        let folder = (path as NSString).deletingLastPathComponent
        return folder.isEmpty ? link : folder + "/" + link
    }

    /// Takes the lock of `checkpoint`, or throws at once.
    init(checkpoint: String) throws(Refused) {
        let path = Self.path(for: checkpoint)
        let shown = TerminalText.escape(path)
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0o600)
        guard fd >= 0 else { throw Refused(description: "cannot open the lock \(shown): \(String(cString: strerror(errno)))") }
        var want = flock()
        want.l_type = Int16(F_WRLCK)
        want.l_whence = Int16(SEEK_SET)
        guard fcntl(fd, F_SETLK, &want) == 0 else {
            let why = errno
            var holder = flock()
            holder.l_type = Int16(F_WRLCK)
            holder.l_whence = Int16(SEEK_SET)
            let pid = fcntl(fd, F_GETLK, &holder) == 0 && holder.l_type != Int16(F_UNLCK) ? " (PID \(holder.l_pid))" : ""
            close(fd)
            if why == EAGAIN || why == EACCES {
                throw Refused(description: "is in use by another run\(pid), which holds \(shown); nothing read or written")
            }
            throw Refused(description: "cannot lock \(shown): \(String(cString: strerror(why)))")
        }
        // The holder's PID, for a person who looks (the lock says it too).
        let text = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = text.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
    }

    deinit { close(fd) }
}
