import HeapModule

/// Receives the rows of `sessions.csv` and `findings.csv` in their final,
/// deterministic order, while the audit runs: sessions by (first request,
/// source, state), findings by (time, source, kind, state).
public protocol RowSink: AnyObject {
    /// Called once before any row, with the inputs `SourceRef.file` ranks.
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

    private struct PendingSession: Comparable {
        var row: SessionRecord
        static func < (a: Self, b: Self) -> Bool {
            (a.row.firstSeen, a.row.source, a.row.state) < (b.row.firstSeen, b.row.source, b.row.state)
        }
        static func == (a: Self, b: Self) -> Bool { !(a < b) && !(b < a) }
    }

    private struct PendingFinding: Comparable {
        var row: Finding
        static func < (a: Self, b: Self) -> Bool {
            (a.row.time, a.row.source, a.row.kind.rank, a.row.state) < (b.row.time, b.row.source, b.row.kind.rank, b.row.state)
        }
        static func == (a: Self, b: Self) -> Bool { !(a < b) && !(b < a) }
    }

    private var sessions = Heap<PendingSession>()
    private var findings = Heap<PendingFinding>()
    private let sinks: [RowSink]

    init(sinks: [RowSink]) { self.sinks = sinks }

    func sessionClosed(_ session: SessionRecord) {
        sessions.insert(PendingSession(row: session))
        if sessions.count > Self.limit { let row = sessions.removeMin().row; for s in sinks { s.session(row) } }
    }

    func finding(_ finding: Finding) {
        findings.insert(PendingFinding(row: finding))
        if findings.count > Self.limit { let row = findings.removeMin().row; for s in sinks { s.finding(row) } }
    }

    /// Hands on every row keyed before `time`.
    func release(before time: Int64) {
        while let first = sessions.min, first.row.firstSeen < time {
            let row = sessions.removeMin().row
            for s in sinks { s.session(row) }
        }
        while let first = findings.min, first.row.time < time {
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
    public func start(inputs: [InputFile]) { self.inputs = inputs }
    public func session(_ row: SessionRecord) { sessions.append(row) }
    public func finding(_ row: Finding) { findings.append(row) }
}
