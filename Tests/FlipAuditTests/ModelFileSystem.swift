import Foundation

@testable import Reading
@testable import Run

/// A file system in memory with a clock the test moves: what a follower
/// sees of logs (`FileSystem`), and what a server and logrotate do to them
/// (append, rename, create, copy, truncate, delete). One folder's worth of
/// names; a file lives while a name or a handle holds it, as on Linux.
final class ModelFileSystem: FileSystem {
    final class Node {
        let inode: UInt64
        var bytes: [UInt8] = []
        var modified: Int64
        init(inode: UInt64, modified: Int64) {
            self.inode = inode
            self.modified = modified
        }
    }

    private(set) var names: [String: Node] = [:]
    private var handles: [Int32: Node] = [:]
    private var nextInode: UInt64 = 100
    private var nextHandle: Int32 = 1000
    var now: Int64

    init(now: Int64) { self.now = now }

    // MARK: What the follower sees

    func look(_ name: String) -> Result<FileInfo, FileError> {
        guard let node = names[name] else { return .failure(FileError(code: ENOENT)) }
        return .success(info(of: node))
    }

    func open(_ name: String) -> Result<Int32, FileError> {
        guard let node = names[name] else { return .failure(FileError(code: ENOENT)) }
        nextHandle += 1
        handles[nextHandle] = node
        return .success(nextHandle)
    }

    func info(_ handle: Int32) -> FileInfo? { handles[handle].map(info(of:)) }

    func read(_ handle: Int32, at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let node = handles[handle], offset < node.bytes.count else { return 0 }
        let n = min(buffer.count, node.bytes.count - Int(offset))
        node.bytes.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + Int(offset), byteCount: n) }
        return n
    }

    func close(_ handle: Int32) { handles[handle] = nil }

    func entries(of folder: String) -> [String]? {
        let prefix = folder == "." ? "" : folder + "/"
        return names.keys.filter { $0.hasPrefix(prefix) && !$0.dropFirst(prefix.count).contains("/") }.map { String($0.dropFirst(prefix.count)) }
    }

    func expand(_ pattern: String) -> [String] { names.keys.filter { fnmatch(pattern, $0, FNM_PATHNAME) == 0 }.sorted() }

    /// Handles open: a follower closes what it lets go.
    var openHandles: Int { handles.count }

    private func info(of node: Node) -> FileInfo {
        FileInfo(
            identity: FileIdentity(device: 1, inode: node.inode, type: UInt32(S_IFREG), size: UInt64(node.bytes.count)), size: Int64(node.bytes.count),
            modified: node.modified)
    }

    // MARK: What servers and logrotate do

    /// A new empty file under `name` (replacing what it held).
    @discardableResult
    func create(_ name: String) -> Node {
        nextInode += 1
        let node = Node(inode: nextInode, modified: now)
        names[name] = node
        return node
    }

    /// A new empty file under `name` on the inode `inode` (freed: Linux
    /// hands a deleted file's inode to the next file made).
    @discardableResult
    func create(_ name: String, inode: UInt64) -> Node {
        let node = Node(inode: inode, modified: now)
        names[name] = node
        return node
    }

    func append(_ text: String, to node: Node) {
        node.bytes += Array(text.utf8)
        node.modified = now
    }

    /// rename(2): `to` now holds `from`'s file; what it held is gone.
    func rename(_ from: String, to: String) {
        guard let node = names.removeValue(forKey: from) else { return }
        names[to] = node
    }

    func delete(_ name: String) { names[name] = nil }

    /// logrotate's copytruncate: a copy of the file under `copy`, then the
    /// file emptied in place (nothing written between, here).
    func copyTruncate(_ name: String, copy: String) {
        guard let node = names[name] else { return }
        let duplicate = create(copy)
        duplicate.bytes = node.bytes
        duplicate.modified = node.modified
        node.bytes = []
        node.modified = now
    }
}
