import Foundation
import Reading

/// What a follower asks of the world: names looked at, files opened and
/// read, folders listed, globs expanded, and the wall clock. `LocalFileSystem`
/// is the real one; the follow tests drive a model of one
/// (`Tests/FlipAuditTests/ModelFileSystem.swift`) through random rotations,
/// truncations, restarts and kills with a clock they move themselves.
///
/// A handle is what `open` returned: a descriptor, or the model's number.
protocol FileSystem: AnyObject {
    /// The file a name holds now (stat(2), symbolic links followed), or
    /// the errno that says why not.
    func look(_ name: String) -> Result<FileInfo, FileError>
    /// Opens a name for reading.
    func open(_ name: String) -> Result<Int32, FileError>
    /// The file open on a handle, now (fstat(2)).
    func info(_ handle: Int32) -> FileInfo?
    /// Reads at `offset` into `buffer` (pread(2)): the bytes read, 0 at the end.
    func read(_ handle: Int32, at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) -> Int
    func close(_ handle: Int32)
    /// The names in a folder, without the folder; nil when it cannot be read.
    func entries(of folder: String) -> [String]?
    /// The names a glob matches now, sorted.
    func expand(_ pattern: String) -> [String]
    /// The wall clock (milliseconds since the epoch).
    var now: Int64 { get }
}

/// A file as stat(2) shows it.
struct FileInfo {
    var identity: FileIdentity
    var size: Int64
    /// When it was last written (milliseconds).
    var modified: Int64

    var isRegular: Bool { identity.isRegular }
    var isDirectory: Bool { identity.isDirectory }
}

/// Why a name could not be looked at or opened: its errno.
struct FileError: Error {
    var code: Int32
    var text: String { String(cString: strerror(code)) }
    var isMissing: Bool { code == ENOENT }
}

extension FileSystem {
    /// Reads the whole of `buffer` or up to the end: the bytes read.
    func read(_ handle: Int32, at offset: Int64, count: Int) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        let n = buffer.withUnsafeMutableBytes { read(handle, at: offset, into: $0) }
        return Array(buffer[..<max(0, n)])
    }

    /// The names in `folder` as paths (`folder/name`), sorted.
    func paths(in folder: String) -> [String]? {
        entries(of: folder.isEmpty ? "." : folder)?.sorted().map { folder.isEmpty ? $0 : folder + "/" + $0 }
    }
}

/// The machine's file system and clock.
final class LocalFileSystem: FileSystem {
    func look(_ name: String) -> Result<FileInfo, FileError> {
        var info = stat()
        guard stat(name, &info) == 0 else { return .failure(FileError(code: errno)) }
        return .success(Self.fileInfo(info))
    }

    func open(_ name: String) -> Result<Int32, FileError> {
        let fd = Glibc.open(name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        return fd >= 0 ? .success(fd) : .failure(FileError(code: errno))
    }

    func info(_ handle: Int32) -> FileInfo? {
        var info = stat()
        return fstat(handle, &info) == 0 ? Self.fileInfo(info) : nil
    }

    func read(_ handle: Int32, at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        max(0, pread(handle, buffer.baseAddress, buffer.count, off_t(offset)))
    }

    func close(_ handle: Int32) { _ = Glibc.close(handle) }

    func entries(of folder: String) -> [String]? { try? FileManager.default.contentsOfDirectory(atPath: folder) }

    func expand(_ pattern: String) -> [String] {
        var result = glob_t()
        defer { globfree(&result) }
        guard glob(pattern, 0, nil, &result) == 0 else { return [] }
        return (0..<Int(result.gl_pathc)).compactMap { result.gl_pathv[$0].map { String(cString: $0) } }.sorted()
    }

    var now: Int64 {
        var t = timespec()
        clock_gettime(CLOCK_REALTIME, &t)
        return Int64(t.tv_sec) * 1000 + Int64(t.tv_nsec) / 1_000_000
    }

    private static func fileInfo(_ info: stat) -> FileInfo {
        FileInfo(
            identity: FileIdentity(info), size: Int64(info.st_size),
            modified: Int64(info.st_mtim.tv_sec) * 1000 + Int64(info.st_mtim.tv_nsec) / 1_000_000)
    }
}
