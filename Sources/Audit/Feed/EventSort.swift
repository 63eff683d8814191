import HeapModule
import Rules

#if canImport(Glibc)
    import Glibc
#endif

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
/// Runs are `SpillFile`s: nothing is left behind, whatever ends the
/// process. A run that cannot be written (a full disk) stays in memory,
/// with a warning: the answer stays exact.
/// Not `Sendable`: one thread adds, then the same thread reads.
final class EventSort {
    private let budget: Int
    private var held: [FlipEvent] = []
    private var runs: [SpillFile] = []
    private var codec: EventCodec
    private let warn: (String) -> Void
    private var spillFailed = false

    /// The merge, once `next()` has been called.
    private var merging = false
    private var heap = Heap<Head>()
    /// Position in `held` (sorted by then) of the next event to merge.
    private var heldNext = 0

    init(budget: Int, allowlist: Allowlist, fingerprint: Fingerprint, warn: @escaping (String) -> Void) {
        self.budget = max(1, budget)
        codec = EventCodec(allowlist: allowlist, fingerprint: fingerprint)
        self.warn = warn
    }

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
        guard let run = SpillFile(held, encode: EventCodec.encode) else {
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
