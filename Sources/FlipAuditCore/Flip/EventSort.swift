#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import HeapModule

/// Holds every flip event of the input and hands them back in (time, file,
/// line) order: the audit's order for input that runs back in time (see
/// `Analyzer`). Up to `budget` events are held in memory; past it, they
/// are sorted and written to a temporary file as one run, and the runs are
/// merged at the end — an external merge sort, so memory does not grow with
/// the input.
///
///     add ─► held (≤ budget) ──full──► sort ─► run file 1, 2, …
///                                              │
///     next ◄── merge of the runs and what is still held ◄──┘
///
/// Run files are unlinked as soon as they are created: nothing is left
/// behind, whatever ends the process. A run that cannot be written (a full
/// disk) stays in memory, with a warning: the answer stays exact.
/// Not `Sendable`: one thread adds, then the same thread reads.
final class EventSort {
    private let budget: Int
    private var held: [FlipEvent] = []
    private var runs: [SpillRun] = []
    private var codec: EventCodec
    private let warn: (String) -> Void
    private var spillFailed = false
    /// Events read back from a run that did not decode (never expected).
    private(set) var unreadable = 0

    /// The merge, once `next()` has been called.
    private var merging = false
    private var heap = Heap<Head>()
    /// Position in `held` (sorted by then) of the next event to merge.
    private var heldNext = 0

    init(budget: Int, allowlist: Allowlist, warn: @escaping (String) -> Void) {
        self.budget = max(1, budget)
        codec = EventCodec(allowlist: allowlist)
        self.warn = warn
    }

    /// How many runs went to temporary files.
    var spilledRuns: Int { runs.count }

    func add(_ event: FlipEvent) {
        precondition(!merging, "EventSort: add after next")
        held.append(event)
        if held.count >= budget && !spillFailed { spill() }
    }

    /// The next event in order, nil at the end.
    func next() -> FlipEvent? {
        if !merging { startMerge() }
        guard let head = heap.popMin() else { return nil }
        advance(head.from)
        return head.event
    }

    private static func ordered(_ a: FlipEvent, _ b: FlipEvent) -> Bool {
        (a.time, a.source) < (b.time, b.source)
    }

    private func spill() {
        held.sort(by: Self.ordered)
        guard let run = SpillRun(events: held) else {
            spillFailed = true
            warn("cannot write the event sort's temporary file (\(String(cString: strerror(errno)))); holding events in memory")
            return
        }
        runs.append(run)
        held.removeAll(keepingCapacity: true)
    }

    private func startMerge() {
        merging = true
        held.sort(by: Self.ordered)
        advance(-1)
        for i in runs.indices { advance(i) }
    }

    /// Puts the next event of `from` (a run, or -1 for `held`) on the heap.
    private func advance(_ from: Int) {
        if from < 0 {
            guard heldNext < held.count else { held = []; return }
            heap.insert(Head(event: held[heldNext], from: -1))
            heldNext += 1
            return
        }
        while let line = runs[from].nextLine() {
            do {
                heap.insert(Head(event: try codec.decode(line), from: from))
                return
            } catch {
                unreadable += 1
                warn("event sort: temporary run \(from + 1) holds an unreadable line (\(error)); skipped")
            }
        }
    }

    private struct Head: Comparable {
        let event: FlipEvent
        let from: Int
        static func < (a: Self, b: Self) -> Bool { EventSort.ordered(a.event, b.event) }
        static func == (a: Self, b: Self) -> Bool { a.event.time == b.event.time && a.event.source == b.event.source }
    }
}

/// One sorted run of events in an unlinked temporary file, read back a
/// buffer at a time.
private final class SpillRun {
    private let fd: Int32
    private var offset: off_t = 0
    private var buffer: [UInt8] = []
    private var start = 0

    /// Writes `events` to a new temporary file; nil when it cannot.
    init?(events: [FlipEvent]) {
        let directory = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((directory + "/flipaudit-sort.XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { return nil }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        self.fd = fd
        var out: [UInt8] = []
        out.reserveCapacity(1 << 20)
        for event in events {
            EventCodec.encode(event, into: &out)
            if out.count >= 1 << 20 {
                guard Self.writeAll(fd, out) else { close(fd); return nil }
                out.removeAll(keepingCapacity: true)
            }
        }
        guard Self.writeAll(fd, out) else { close(fd); return nil }
    }

    deinit { close(fd) }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 { if errno == EINTR { continue }; return false }
            done += n
        }
        return true
    }

    /// The next line, without its newline; nil at the end of the run.
    func nextLine() -> ArraySlice<UInt8>? {
        while true {
            if let nl = buffer[start...].firstIndex(of: .newline) {
                let line = buffer[start..<nl]
                start = nl + 1
                return line
            }
            buffer.removeFirst(start)
            start = 0
            let chunk = 1 << 16
            let old = buffer.count
            buffer += [UInt8](repeating: 0, count: chunk)
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + old, chunk, offset) }
            buffer.removeLast(chunk - max(n, 0))
            guard n > 0 else {
                // A last line without its newline is handed on as it is;
                // the codec judges it.
                guard !buffer.isEmpty else { return nil }
                let line = buffer[...]
                buffer = []
                return line
            }
            offset += off_t(n)
        }
    }
}
