import Foundation
import Reading
import Reports
import Rules
import Writing

/// A follower's commits, written on a thread of their own (docs/follow.md,
/// "Commits"): the follow loop hands over what changed since the commit
/// before and goes on reading, while this thread flushes the findings
/// file, encodes the commit, appends it to the journal and flushes that.
/// Once the journal is as large as its snapshot, this thread reads both
/// back as a restart would and writes them as the next snapshot and a new
/// journal (a compaction), so the loop never copies its whole state; it
/// hands over the whole checkpoint only for the first commit and after a
/// commit that failed. One commit at a time; the loop takes
/// each one's outcome on a later turn (`take`), or waits for it (at start
/// and at a stop). This is the follower's one thread besides the loop and
/// libmicrohttpd's; the two meet in a `HandOff`, as reading threads do.
final class CommitWriter: Sendable {
    /// A commit to write.
    struct Job: Sendable {
        var checkpoint: Checkpoint
        /// States and codes remembered since the commit before (the
        /// journal's), and whether `checkpoint` holds all of them (built
        /// for a snapshot: `wantsSnapshot` said so).
        var states: [Checkpoint.Remembered]
        var codes: [Checkpoint.Remembered]
        var whole: Bool
        /// A descriptor of the findings file of its own (closed here),
        /// flushed before the commit is written; -1 for none.
        var findings: Int32
        var path: String
    }

    /// How a commit went.
    struct Outcome: Sendable {
        var ok: Bool
        var snapshot = false
        var bytes = 0
        /// What to say (standard error), without the driver's prefix.
        var messages: [String] = []
    }

    private struct State {
        var job: Job?
        var outcome: Outcome?
        var busy = false
        var ending = false
        var ended = false
        /// The journal open for appending (-1: the next commit writes a
        /// snapshot), its size, and its snapshot's.
        var journal: Int32 = -1
        var journalBytes = 0
        var snapshotBytes = 0
    }

    private let state = HandOff(State())
    /// The reuse window (milliseconds): what a compaction keeps.
    private let retention: Int64
    /// A journal as large as its snapshot or as this is compacted.
    private let compactAt: Int

    init(retention: Int64, compactAt: Int) {
        self.retention = retention
        self.compactAt = compactAt
        let thread = Thread { [self] in run() }
        thread.name = "flipaudit commit"
        thread.start()
    }

    /// Whether a commit is being written.
    var busy: Bool { state.change { $0.busy } }

    /// Whether the next commit writes the whole checkpoint (so it must
    /// hold every open session and remembered state and code): the first,
    /// and the one after a commit that failed. The others append.
    var wantsSnapshot: Bool { state.change { $0.journal < 0 } }

    /// Starts writing `job` (none may be under way).
    func submit(_ job: Job) {
        state.change {
            precondition(!$0.busy, "a commit while another is written")
            $0.job = job
            $0.busy = true
        }
    }

    /// The outcome of the last commit written, once (nil: none new).
    func take() -> Outcome? {
        state.change { s in
            defer { s.outcome = nil }
            return s.outcome
        }
    }

    /// Waits until no commit is being written.
    func waitIdle() {
        state.wait(for: { $0.busy ? nil : () }, until: { !$0.busy })
    }

    /// Lets the last commit finish, then ends the thread and closes the journal.
    func finish() {
        waitIdle()
        state.change { $0.ending = true }
        state.wait(for: { $0.ended ? () : nil }, until: { $0.ended })
    }

    private func run() {
        while true {
            let job: Job? = state.wait(
                for: { s -> Job?? in
                    if s.ending { return .some(nil) }
                    return s.job.map { .some($0) }
                }, until: { $0.ending || $0.job != nil })
            guard let job else {
                state.change {
                    $0.journal = Self.closed($0.journal)
                    $0.ended = true
                }
                return
            }
            let outcome = write(job)
            state.change {
                $0.job = nil
                $0.outcome = outcome
                $0.busy = false
            }
        }
    }

    // MARK: Writing

    private func write(_ job: Job) -> Outcome {
        if job.findings >= 0 {
            defer { close(job.findings) }
            var info = stat()
            // A FIFO or a device (`/dev/stdout`) has nothing to make durable.
            if fstat(job.findings, &info) == 0, info.st_mode & S_IFMT == S_IFREG, fsync(job.findings) != 0 {
                return Outcome(ok: false, messages: ["findings not all written and synced; the checkpoint is left as it was"])
            }
        }
        var outcome = Outcome(ok: true)
        if !job.whole {
            if append(job, &outcome) {
                let (size, snapshot) = state.change { ($0.journalBytes, $0.snapshotBytes) }
                if size >= max(snapshot, compactAt) { compact(job.path, &outcome) }
                return outcome
            }
            // The journal could not take it, and this commit does not hold
            // every remembered state: it stands aside; the next is whole.
            outcome.ok = false
            return outcome
        }
        let bytes = job.checkpoint.encoded()
        do { try AtomicFile.write(bytes: bytes, to: job.path, mode: 0o600) } catch {
            state.change { $0.journal = Self.closed($0.journal) }
            return Outcome(ok: false, messages: ["--checkpoint \(TerminalText.escape(job.path)): \(error); the previous commit stands"])
        }
        outcome.snapshot = true
        outcome.bytes = bytes.count
        startJournal(for: bytes, path: job.path, &outcome)
        return outcome
    }

    /// Writes the snapshot at `path` and its journal, read back as a
    /// restart reads them (`CheckpointJournal.apply`), as the next snapshot,
    /// and starts a new journal. When this cannot be done, they are left
    /// as they are, said, and the next commit is whole.
    private func compact(_ path: String, _ outcome: inout Outcome) {
        let journalPath = CheckpointJournal.path(of: path)
        let bytes: [UInt8]
        do {
            func contents(_ file: String) throws(Checkpoint.Damaged) -> [UInt8] {
                guard let data = FileManager.default.contents(atPath: file) else {
                    throw Checkpoint.Damaged(description: "\(TerminalText.escape(file)) cannot be read again")
                }
                return Array(data)
            }
            let snapshotBytes = try contents(path)
            let read = try CheckpointJournal.apply(contents(journalPath), to: Checkpoint.decode(snapshotBytes), snapshotBytes: snapshotBytes)
            // This thread wrote both whole: anything else is not its to compact.
            guard !read.stale, read.cutOff == 0 else {
                throw Checkpoint.Damaged(description: "\(TerminalText.escape(journalPath)) was changed by another writer")
            }
            bytes = CheckpointJournal.compacted(read, retention: retention).encoded()
            try AtomicFile.write(bytes: bytes, to: path, mode: 0o600)
        } catch {
            outcome.messages.append("--checkpoint \(TerminalText.escape(path)): not compacted (\(error)); the next commit writes the whole checkpoint")
            state.change { $0.journal = Self.closed($0.journal) }
            return
        }
        outcome.snapshot = true
        outcome.bytes += bytes.count
        startJournal(for: bytes, path: path, &outcome)
    }

    /// Appends a commit to the journal and flushes it; false (the journal
    /// cut back to its last whole commit, and closed) when it cannot be.
    private func append(_ job: Job, _ outcome: inout Outcome) -> Bool {
        let (journal, size) = state.change { ($0.journal, $0.journalBytes) }
        guard journal >= 0 else { return false }
        let path = CheckpointJournal.path(of: job.path)
        let block = CheckpointJournal.commit(job.checkpoint, states: job.states, codes: job.codes)
        do {
            try Descriptor.writeAll(journal, block, path: path)
            guard fsync(journal) == 0 else { throw OutputError.system(path) }
        } catch {
            outcome.messages.append(
                "--checkpoint \(TerminalText.escape(path)): \(error); the previous commit stands, the next writes the whole checkpoint")
            _ = ftruncate(journal, off_t(size))
            state.change { $0.journal = Self.closed($0.journal) }
            return false
        }
        state.change { $0.journalBytes += block.count }
        outcome.bytes += block.count
        return true
    }

    /// A new journal after the snapshot `bytes`: its first line, written
    /// whole and renamed into place; appended to from the next commit on.
    private func startJournal(for bytes: [UInt8], path: String, _ outcome: inout Outcome) {
        state.change { $0.journal = Self.closed($0.journal) }
        let journalPath = CheckpointJournal.path(of: path)
        let header = CheckpointJournal.header(for: bytes)
        outcome.bytes += header.count
        do { try AtomicFile.write(bytes: header, to: journalPath, mode: 0o600) } catch {
            outcome.messages.append("--checkpoint \(TerminalText.escape(journalPath)): \(error); each commit writes the whole checkpoint")
            return
        }
        let fd = Glibc.open(journalPath, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY)
        state.change {
            $0.journal = fd
            $0.journalBytes = header.count
            $0.snapshotBytes = bytes.count
        }
    }

    private static func closed(_ fd: Int32) -> Int32 {
        if fd >= 0 { close(fd) }
        return -1
    }
}
