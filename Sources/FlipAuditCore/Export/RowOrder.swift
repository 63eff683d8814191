import HeapModule

/// Receives the rows of `sessions.csv` and `findings.csv` in their final,
/// deterministic order, while the audit runs: sessions by (first request,
/// source, state), findings by (time, source, kind, state).
public protocol RowSink: AnyObject {
    /// Called before any row, with the inputs `SourceRef.file` ranks. An
    /// audit that finds its input out of time order starts over: it calls
    /// `start` again, and the sink drops every row it was handed since.
    func start(inputs: [InputFile])
    func session(_ row: SessionRecord)
    func finding(_ row: Finding)
}

/// Puts the rows the tracker decides — in the order sessions close — into
/// row order, and hands each on as soon as no row can still come before it
/// (see `SessionTracker.settledBefore`). Memory is bounded by the rows of
/// the sessions still open; past `limit` waiting rows the earliest go out
/// regardless (the order then depends only on the input, still the same
/// for every run).
final class RowOrder: AuditSink {
    /// Rows held for ordering at most, per kind of row.
    static let limit = 50_000

    /// A row waiting in a heap: the key fields that decide nearly every
    /// comparison (time, source, finding kind rank) next to the row, which
    /// is boxed — a session row is a dozen Strings, and the heap moves its
    /// elements on every insert and removal.
    private struct Pending<Row: OrderedRow>: Comparable {
        var time: Int64
        var source: SourceRef
        var rank: Int
        let boxed: Box<Row>
        var row: Row { boxed.row }

        init(_ row: Row) {
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
    private final class Box<Row> {
        let row: Row
        init(_ row: Row) { self.row = row }
    }

    private typealias PendingSession = Pending<SessionRecord>
    private typealias PendingFinding = Pending<Finding>

    private var sessions = Heap<PendingSession>()
    private var findings = Heap<PendingFinding>()
    private let sinks: [RowSink]

    init(sinks: [RowSink]) { self.sinks = sinks }

    func sessionClosed(_ session: SessionRecord) {
        sessions.insert(PendingSession(session))
        if sessions.count > Self.limit { let row = sessions.removeMin().row; for s in sinks { s.session(row) } }
    }

    func finding(_ finding: Finding) {
        findings.insert(PendingFinding(finding))
        if findings.count > Self.limit { let row = findings.removeMin().row; for s in sinks { s.finding(row) } }
    }

    /// Hands on every row keyed before `time`.
    func release(before time: Int64) {
        while let first = sessions.min?.time, first < time {
            let row = sessions.removeMin().row
            for s in sinks { s.session(row) }
        }
        while let first = findings.min?.time, first < time {
            let row = findings.removeMin().row
            for s in sinks { s.finding(row) }
        }
    }

    /// Hands on everything left (at the end of the audit).
    func releaseAll() { release(before: .max) }
}

/// Keeps every row in memory: for library callers and tests that want the
/// full lists rather than CSV files.
public final class RowCollector: RowSink {
    public private(set) var sessions: [SessionRecord] = []
    public private(set) var findings: [Finding] = []
    public private(set) var inputs: [InputFile] = []

    public init() {}
    /// Called before the first row; called again, it drops the rows
    /// collected since.
    public func start(inputs: [InputFile]) {
        self.inputs = inputs
        sessions = []
        findings = []
    }
    public func session(_ row: SessionRecord) { sessions.append(row) }
    public func finding(_ row: Finding) { findings.append(row) }
}

/// What orders a row: time, source, then (findings) kind, then state.
private protocol OrderedRow {
    var orderTime: Int64 { get }
    var source: SourceRef { get }
    var orderRank: Int { get }
    var state: String { get }
}

extension SessionRecord: OrderedRow {
    var orderTime: Int64 { firstSeen }
    var orderRank: Int { 0 }
}

extension Finding: OrderedRow {
    var orderTime: Int64 { time }
    var orderRank: Int { kind.rank }
}
