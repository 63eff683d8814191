import HeapModule
import Reading
import Rules

/// Receives the rows of `sessions.csv` and `findings.csv` in their final,
/// deterministic order, while the audit runs: sessions by (first request,
/// source, state), findings by (time, source, kind, state).
package protocol RowSink: AnyObject {
    /// Called before any row, with the inputs `SourceRef.file` ranks. An
    /// audit that finds its input out of time order starts over: it calls
    /// `start` again, and the sink drops every row it was handed since.
    func start(inputs: [InputFile])
    func session(_ row: SessionRecord)
    func finding(_ row: Finding)
}

/// Puts the rows the tracker decides — in the order sessions close — into
/// row order, and hands each on as soon as no row can still come before it
/// (see `SessionTracker.settledBefore`). A session open for long holds back
/// every row after it: past `budget` rows of a kind held in memory, they
/// are sorted and spilled to a temporary file, and the release merges the
/// files with what is held (`RowQueue`). No row is ever handed on early, so
/// the CSV files are always in their documented order.
final class RowOrder: AuditSink {
    private var sessions: RowQueue<SessionRecord>
    private var findings: RowQueue<Finding>
    private let sinks: [RowSink]

    init(sinks: [RowSink], budget: Int, warn: @escaping (String) -> Void) {
        self.sinks = sinks
        sessions = RowQueue(budget: budget, warn: warn)
        findings = RowQueue(budget: budget, warn: warn)
    }

    /// Rows are taken, not copied: a copy would retain each String of the
    /// row, and the tracker's release them again.
    func sessionClosed(_ session: consuming SessionRecord) { sessions.insert(session) }

    func finding(_ finding: consuming Finding) { findings.insert(finding) }

    /// Hands on every row keyed before `time`, lent from its box: a copy
    /// would retain, and then release, each of its Strings.
    func release(before time: Int64) {
        while let box = sessions.popMin(before: time) { for s in sinks { s.session(box.row) } }
        while let box = findings.popMin(before: time) { for s in sinks { s.finding(box.row) } }
    }

    /// Hands on everything left (at the end of the audit).
    func releaseAll() { release(before: .max) }

}

/// Rows of one kind waiting for their turn, smallest first: a heap in
/// memory up to `budget` rows, and sorted runs in `SpillFile`s past it.
/// Not `Sendable`: the audit's thread only.
struct RowQueue<Row: OrderedRow> {
    /// A row waiting: the key fields that decide nearly every comparison
    /// (time, source, finding kind rank) next to the row, which is boxed —
    /// a session row is a dozen Strings, and the heap moves its elements on
    /// every insert and removal.
    struct Pending: Comparable {
        var time: Int64
        var source: SourceRef
        var rank: Int
        let boxed: Box
        var row: Row { boxed.row }

        init(_ row: consuming Row) {
            time = row.orderTime
            source = row.source
            rank = row.orderRank
            boxed = Box(row)
        }

        static func < (a: Self, b: Self) -> Bool {
            if a.time != b.time { return a.time < b.time }
            if a.source != b.source { return a.source < b.source }
            if a.rank != b.rank { return a.rank < b.rank }
            return a.row.state < b.row.state
        }
        static func == (a: Self, b: Self) -> Bool { !(a < b) && !(b < a) }
    }

    /// A row on the heap (of the process), so that `Pending` stays small.
    final class Box {
        let row: Row
        init(_ row: consuming Row) { self.row = row }
    }

    private let budget: Int
    private let warn: (String) -> Void
    private var heap = Heap<Pending>()
    /// The time of the heap's smallest row (`.max` when it is empty): most
    /// calls of `popMin` find no row due yet, and answer from it without
    /// copying the heap's minimum (a retain and a release of its box).
    private var heapMinTime = Int64.max
    /// Sorted runs on disk, each with its next row read ahead.
    private var runs: [(file: SpillFile, head: Pending?)] = []
    private var spillFailed = false

    init(budget: Int, warn: @escaping (String) -> Void) {
        self.budget = max(1, budget)
        self.warn = warn
    }

    mutating func insert(_ row: consuming Row) {
        let pending = Pending(row)
        heapMinTime = min(heapMinTime, pending.time)
        heap.insert(pending)
        if heap.count > budget && !spillFailed { spill() }
    }

    /// The smallest row waiting, when it is keyed before `time`.
    mutating func popMin(before time: Int64) -> Box? {
        if runs.isEmpty {
            guard heapMinTime < time else { return nil }
            let box = heap.removeMin().boxed
            heapMinTime = heap.min?.time ?? .max
            return box
        }
        var best = -1
        var key = heap.min
        for i in runs.indices {
            guard let head = runs[i].head else { continue }
            if key == nil || head < key! { key = head; best = i }
        }
        guard let key, key.time < time else { return nil }
        if best < 0 {
            heap.removeMin()
            heapMinTime = heap.min?.time ?? .max
            return key.boxed
        }
        runs[best].head = Self.read(runs[best].file, warn: warn)
        if runs[best].head == nil { runs.remove(at: best) }
        return key.boxed
    }

    private mutating func spill() {
        var sorted: [Row] = []
        sorted.reserveCapacity(heap.count)
        while let p = heap.popMin() { sorted.append(p.row) }
        heapMinTime = .max
        guard let file = SpillFile(sorted, encode: { row, out in row.encode(into: &out) }) else {
            spillFailed = true
            warn("cannot write the row order's temporary file; holding rows in memory")
            for row in sorted { insert(row) }
            return
        }
        runs.append((file, Self.read(file, warn: warn)))
    }

    private static func read(_ file: SpillFile, warn: (String) -> Void) -> Pending? {
        while let line = file.nextLine() {
            do { return Pending(try Row.decode(line)) } catch {
                warn("row order: a temporary file holds an unreadable line (\(error)); skipped")
            }
        }
        return nil
    }
}

/// Keeps every row in memory: for library callers and tests that want the
/// full lists rather than CSV files.
final class RowCollector: RowSink {
    package private(set) var sessions: [SessionRecord] = []
    package private(set) var findings: [Finding] = []
    package private(set) var inputs: [InputFile] = []

    package init() {}
    /// Called before the first row; called again, it drops the rows
    /// collected since.
    package func start(inputs: [InputFile]) {
        self.inputs = inputs
        sessions = []
        findings = []
    }
    package func session(_ row: SessionRecord) { sessions.append(row) }
    package func finding(_ row: Finding) { findings.append(row) }
}

/// What orders a row: time, source, then (findings) kind, then state;
/// and how it is spilled.
protocol OrderedRow {
    var orderTime: Int64 { get }
    var source: SourceRef { get }
    var orderRank: Int { get }
    var state: String { get }
    func encode(into out: inout [UInt8])
    static func decode(_ line: ArraySlice<UInt8>) throws(TextFields.Malformed) -> Self
}

extension SessionRecord: OrderedRow {
    var orderTime: Int64 { firstSeen }
    var orderRank: Int { 0 }
    func encode(into out: inout [UInt8]) { RowCodec.encode(self, into: &out) }
    static func decode(_ line: ArraySlice<UInt8>) throws(TextFields.Malformed) -> Self { try RowCodec.session(line) }
}

extension Finding: OrderedRow {
    var orderTime: Int64 { time }
    var orderRank: Int { kind.rank }
    func encode(into out: inout [UInt8]) { RowCodec.encode(self, into: &out) }
    static func decode(_ line: ArraySlice<UInt8>) throws(TextFields.Malformed) -> Self { try RowCodec.finding(line) }
}
