import Foundation
import Parsing
import Reading
import Reports
import Rules
import Writing

/// Where a follower's findings go, one line each the moment the rules
/// decide them (docs/follow.md): NDJSON or OCSF Detection Findings, on
/// standard output or appended to `--findings FILE`, one `write` a line.
///
/// Each finding has an `id`, a keyed hash of its kind, its state and the
/// record that raised it (the fingerprint of its file's first line and its
/// line number), so the same finding found again after a restart has the
/// same id. The ids written after the last commit (`written`) are not
/// written again: a restart after SIGKILL repeats nothing.
///
/// A line that cannot be written (a full disk) waits in `backlog`, and the
/// follower reads nothing more and commits nothing until it is written.
///
/// Not `Sendable`: the follow loop owns it.
final class FindingStream: AuditSink {
    enum Format: String, CaseIterable, Sendable {
        case ndjson, ocsf
    }

    private let format: Format
    /// The file's path; nil for standard output.
    let path: String?
    private(set) var descriptor: Int32
    private let key: Fingerprint
    /// By rank: the file's name and first-line fingerprint.
    private let files: (Int32) -> (name: String, fingerprint: UInt64)
    private let metrics: FollowMetrics
    /// Ids (and finding times) written before a restart whose findings
    /// have not been decided again yet: read back from the file past the
    /// commit's mark, and carried by the checkpoint.
    private(set) var written: [UInt64: Int64]
    /// Findings and closed sessions of the current step, in order.
    private var step: [(finding: Finding?, closed: SessionRecord?)] = []
    /// Lines not written yet (a write failed).
    private(set) var backlog: [[UInt8]] = []
    /// Bytes of the first waiting line already written (a short write on
    /// a full disk): the rest follows them, so a line is never torn into
    /// a fragment and the whole line again.
    private var writtenOfFirst = 0
    /// The last write error, said once until a write succeeds.
    private var failing = false

    init(
        format: Format, path: String?, descriptor: Int32, key: Fingerprint, written: [UInt64: Int64], metrics: FollowMetrics,
        files: @escaping (Int32) -> (name: String, fingerprint: UInt64)
    ) {
        self.format = format
        self.path = path
        self.descriptor = descriptor
        self.key = key
        self.written = written
        self.metrics = metrics
        self.files = files
    }

    func finding(_ finding: consuming Finding) { step.append((finding, nil)) }

    func sessionClosed(_ session: consuming SessionRecord) {
        metrics.sessions[session.outcome.rawValue, default: 0] += 1
        step.append((nil, session))
    }

    /// The id of `finding` (written as 16 hex digits).
    func id(of finding: Finding) -> UInt64 {
        let file = files(finding.source.file)
        return key.of("\(finding.kind.rawValue)\t\(finding.state)\t\(Checkpoint.hex(file.fingerprint))\t\(finding.source.line)")
    }

    /// Forgets written ids of findings dated before `time`: their records
    /// were read again and their sessions closed, so they will not come
    /// again.
    func forgetWritten(before time: Int64) {
        guard !written.isEmpty else { return }
        written = written.filter { $0.value >= time }
    }

    /// Writes the findings of the step just taken: each with the outcome of
    /// its session when that session closed after it in the step.
    func endStep() {
        guard !step.isEmpty else { return }
        defer { step.removeAll(keepingCapacity: true) }
        var lines: [[UInt8]] = []
        for (i, entry) in step.enumerated() {
            guard let finding = entry.finding else { continue }
            let outcome = step[(i + 1)...].first { $0.closed?.state == finding.state }?.closed?.outcome
            let id = id(of: finding)
            metrics.findings[finding.severity.rawValue + "\t" + finding.kind.rawValue, default: 0] += 1
            guard written.removeValue(forKey: id) == nil else { continue }
            lines.append(encode(finding, id: Checkpoint.hex(id), outcome: outcome))
        }
        backlog += lines
        writeBacklog()
    }

    /// Writes what waits; false while some line still cannot be written.
    @discardableResult
    func writeBacklog() -> Bool {
        while let line = backlog.first {
            let done = line.withUnsafeBytes { bytes -> Bool in
                while writtenOfFirst < bytes.count {
                    let n = write(descriptor, bytes.baseAddress! + writtenOfFirst, bytes.count - writtenOfFirst)
                    if n < 0 && errno == EINTR { continue }
                    guard n > 0 else { return false }
                    writtenOfFirst += n
                }
                return true
            }
            guard done else {
                if !failing {
                    failing = true
                    let shown = path.map { TerminalText.escape($0) } ?? "standard output"
                    Diagnostics.follow.say(
                        "cannot write a finding to \(shown): \(String(cString: strerror(errno))); nothing more is read or committed until it can be"
                    )
                }
                return false
            }
            backlog.removeFirst()
            writtenOfFirst = 0
        }
        if failing {
            failing = false
            Diagnostics.follow.say("findings are written again")
        }
        return true
    }

    /// Makes every line written so far durable: a commit comes after it.
    func sync() -> Bool {
        var info = stat()
        // A FIFO or a device (`/dev/stdout`) has nothing to make durable.
        guard path != nil, fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return true }
        return fsync(descriptor) == 0
    }

    /// Reopens `--findings` (SIGHUP: the file was rotated).
    func reopen() {
        guard let path else { return }
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0o640)
        guard fd >= 0 else {
            Diagnostics.follow.say(
                "cannot reopen \(TerminalText.escape(path)): \(String(cString: strerror(errno))); still writing the file open before")
            return
        }
        // What went to the old file is durable before the commit that
        // follows names the new one.
        _ = fsync(descriptor)
        close(descriptor)
        descriptor = fd
        // A line cut short in the old file is written whole in the new.
        writtenOfFirst = 0
    }

    /// `--findings` renamed or deleted without the SIGHUP that reopens it
    /// (a logrotate with no postrotate, a hand's `rm`): the name no longer
    /// holds the file open, whose findings nobody would read. Reopened
    /// (made anew when missing), and said. False when nothing changed.
    @discardableResult
    func reopenIfMoved() -> Bool {
        guard let path else { return false }
        var open = stat()
        guard fstat(descriptor, &open) == 0, open.st_mode & S_IFMT == S_IFREG else { return false }
        var named = stat()
        let there = stat(path, &named) == 0
        if there && named.st_dev == open.st_dev && named.st_ino == open.st_ino { return false }
        Diagnostics.follow.say(
            "--findings \(TerminalText.escape(path)) was \(there ? "replaced" : "renamed or deleted") without a SIGHUP: reopened")
        reopen()
        return true
    }

    /// Where the findings file stands, for the commit.
    var mark: FollowState.FindingsMark? {
        guard path != nil else { return nil }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        return FollowState.FindingsMark(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size))
    }

    // MARK: Lines

    /// One line: the finding's columns as `findings.csv` has them
    /// (`Finding.text`), its id, and the outcome of its session when known.
    private func encode(_ f: Finding, id: String, outcome: Outcome?) -> [UInt8] {
        let file = files(f.source.file)
        let source = "\(file.name):\(f.source.line)"
        var fields: [String: String] = ["id": id]
        for column in FindingColumn.allCases { fields[column.rawValue] = f.text(column, source: source) }
        if let outcome { fields["outcome"] = outcome.rawValue }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data: Data
        switch format {
        case .ndjson: data = (try? encoder.encode(fields)) ?? Data()
        case .ocsf: data = (try? encoder.encode(OCSFFinding(f, fields: fields))) ?? Data()
        }
        return Array(data) + [.newline]
    }
}
