import Foundation
import Parsing
import Reading
import Rules

/// One file a follower reads (docs/follow.md): its descriptor, its
/// identity (device, inode, and the fingerprint of its first line) and how
/// far it has been read. Lines are read only once their newline is there:
///
/// ```
/// file     |line 1\nline 2\nline 3 no newl|
///                         ^offset        ^offset + pending.count
/// pending  |line 3 no newl|     read, not yet handed on
/// ```
///
/// `offset` is a line boundary (what a checkpoint records), and `lines`
/// the lines before it; only inside a line longer than `--max-line`,
/// handed on as it streams (never held whole), is it not: a restart there
/// reads the rest of that line as one more malformed line. Lines go through the run's splitter and
/// scanner as in a batch run, with their line numbers in the file.
///
/// Not `Sendable`: the follow loop owns it.
final class FollowedFile {
    /// Its handle in `fs`.
    let handle: Int32
    let fs: any FileSystem
    let identity: FileIdentity
    /// The keyed fingerprint of the first line; nil until the file has one.
    private(set) var fingerprint: UInt64?
    /// The name it has when its lines are read: their `source`.
    private(set) var name: String
    /// Its rank among the names the run read files under (`SourceRef.file`).
    private(set) var rank: Int32
    /// Bytes and lines handed on: a line boundary.
    private(set) var offset: Int64
    private(set) var lines: Int64
    /// Bytes read after `offset` that wait for their newline.
    private var pending: [UInt8] = []
    /// The largest size seen: bytes a truncation took that were never read
    /// are a gap.
    private(set) var sizeSeen: Int64 = 0
    private var splitter: LineSplitter
    var scanner: LineScanner
    /// Set once its name holds another file, or none: read to its end, then let go.
    var rotatedAt: Int64?
    /// The name it left (renamed or deleted away from): a server may still
    /// write to it until it has reopened that name (nil: a copy, which no
    /// server writes).
    var leftName: String?
    /// Wall-clock time it last grew (milliseconds).
    var grewAt: Int64
    /// Its lines read since it was opened, and the formats they fit: whether
    /// it is blind (`LiveCoverage`).
    var accounting = InputAccounting()
    var tally = FormatTally()
    /// Records whose zone a syslog header gave (`FormatTally.zoneless`).
    var zonedByHeader = 0
    /// One of its lines logged a Location: its returns can be seen.
    var sawLocation = false

    /// Bytes of the first line that make the fingerprint, at most.
    static let fingerprintBytes = 1024

    init(
        handle: Int32, in fs: any FileSystem, info: FileInfo, name: String, rank: Int32, offset: Int64, lines: Int64, scanner: LineScanner,
        maxLine: Int, key: Fingerprint, now: Int64
    ) {
        self.handle = handle
        self.fs = fs
        identity = info.identity
        self.name = name
        self.rank = rank
        self.offset = offset
        self.lines = lines
        self.scanner = scanner
        self.scanner.linesBefore = Int(lines)
        splitter = LineSplitter(maxLine: maxLine)
        grewAt = now
        fingerprint = Self.firstLineFingerprint(handle, in: fs, key: key)
        // Opened past its start (a restart, a fresh start from the end): a
        // W3C log's columns are named by its last `#Fields:` line before.
        if offset > 0, let header = Self.lastFieldsLine(handle, in: fs, before: offset) { self.scanner.fields(header) }
    }

    /// The last W3C `#Fields:` line (without its newline) that ends before
    /// `end`, in a file that starts with a directive (`#`); nil otherwise.
    /// Read in pieces from the start: IIS writes its header at the top and
    /// again after each restart of the site.
    static func lastFieldsLine(_ handle: Int32, in fs: any FileSystem, before end: Int64) -> [UInt8]? {
        guard fs.read(handle, at: 0, count: 1) == [.hash] else { return nil }
        let prefix = Array("#Fields:".utf8)
        var found: [UInt8]?
        var line: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var at: Int64 = 0
        while at < end {
            let want = Int(min(Int64(buffer.count), end - at))
            let n = buffer.withUnsafeMutableBytes { fs.read(handle, at: at, into: UnsafeMutableRawBufferPointer(rebasing: $0[..<want])) }
            guard n > 0 else { break }
            for byte in buffer[0..<n] {
                if byte == .newline {
                    if line.starts(with: prefix) { found = line.last == .carriageReturn ? Array(line.dropLast()) : line }
                    line.removeAll(keepingCapacity: true)
                } else if line.count < 64 * 1024 {
                    // Only a line's start matters; a long record is not kept whole.
                    if line.count < prefix.count || line.starts(with: prefix) { line.append(byte) }
                }
            }
            at += Int64(n)
        }
        return found
    }

    deinit { fs.close(handle) }

    /// The file's size now, or nil when it cannot be looked at.
    var size: Int64? { fs.info(handle)?.size }

    /// Bytes read that wait for their newline.
    var pendingCount: Int { pending.count }

    /// Bytes written and not yet read.
    var unread: Int64 { max(0, (size ?? 0) - offset - Int64(pending.count)) }

    /// The fingerprint of the first line of the file open on `fd`, keyed
    /// by `key`: of its first `fingerprintBytes` when the line is longer;
    /// nil while the file has neither.
    static func firstLineFingerprint(_ handle: Int32, in fs: any FileSystem, key: Fingerprint) -> UInt64? {
        firstLineFingerprint(of: fs.read(handle, at: 0, count: fingerprintBytes), key: key)
    }

    /// The same of a file's first bytes (`fingerprintBytes` of them, or
    /// all the file holds).
    static func firstLineFingerprint(of buffer: [UInt8], key: Fingerprint) -> UInt64? {
        let n = buffer.count
        guard n > 0 else { return nil }
        let end = buffer[..<n].firstIndex(of: .newline).map { $0 + 1 } ?? (n == fingerprintBytes ? n : nil)
        guard let end else { return nil }
        return buffer.withUnsafeBytes { key.of(UnsafeRawBufferPointer(rebasing: $0[..<end])) }
    }

    /// Whether the file no longer begins as it did (truncated in place,
    /// then written again) or is shorter than what was read: copytruncate.
    func wasTruncated(key: Fingerprint) -> Bool {
        guard let size else { return false }
        if size < offset + Int64(pending.count) { return true }
        guard let fingerprint else { return false }
        return Self.firstLineFingerprint(handle, in: fs, key: key).map { $0 != fingerprint } ?? (size < Int64(Self.fingerprintBytes))
    }

    /// Reads what was appended, at most `budget` bytes, handing each
    /// complete line to the scanner; the bytes read.
    func read(budget: Int, key: Fingerprint, now: Int64) -> Int {
        var total = 0
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while total < budget {
            let at = offset + Int64(pending.count)
            let n = chunk.withUnsafeMutableBytes { fs.read(handle, at: at, into: $0) }
            guard n > 0 else { break }
            total += n
            sizeSeen = max(sizeSeen, at + Int64(n))
            grewAt = now
            pending.append(contentsOf: chunk[..<n])
            if fingerprint == nil { fingerprint = Self.firstLineFingerprint(handle, in: fs, key: key) }
            hand()
        }
        return total
    }

    /// Hands the complete lines of `pending` on; keeps the rest. A line
    /// longer than the limit is handed on as it streams (the splitter
    /// counts it as over-long), never held whole.
    private func hand() {
        let cut: Int
        if let last = pending.lastIndex(of: .newline) {
            cut = last + 1
        } else if pending.count > splitter.maxLine + 2 {
            cut = pending.count
        } else {
            return
        }
        pending.withUnsafeBytes { splitter.feed(UnsafeRawBufferPointer(rebasing: $0[..<cut]), to: &scanner) }
        offset += Int64(cut)
        pending.removeFirst(cut)
    }

    /// The file was renamed: its lines from now on are named `name`,
    /// under a rank of their own (`rank`).
    func renamed(to name: String, rank: Int32) {
        self.name = name
        self.rank = rank
        scanner.rename(fileIndex: rank)
    }

    /// Hands on a last line that never got its newline (the file is let go).
    func finish() {
        if !pending.isEmpty {
            pending.withUnsafeBytes { splitter.feed($0, to: &scanner) }
            offset += Int64(pending.count)
            pending.removeAll()
        }
        splitter.finish(to: &scanner)
    }

    /// What the lines handed on since the last call found; moves `lines` on.
    func take() -> PieceScan {
        let scan = scanner.take()
        lines += Int64(scan.accounting.lines)
        return scan
    }

    /// Where it stands, for a checkpoint; a file without a first line yet
    /// is known by its inode (`Position.empty`).
    var position: FollowState.Position {
        FollowState.Position(
            device: identity.device, inode: identity.inode, fingerprint: fingerprint ?? FollowState.Position.empty, offset: offset, lines: lines, name: name)
    }
}
