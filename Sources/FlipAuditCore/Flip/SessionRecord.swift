/// A closed session: one row of `sessions.csv`.
public struct SessionRecord: Sendable {
    public var state: String
    public var firstSeen: Int64
    public var lastSeen: Int64
    public var target: RedirectTarget
    public var clientID: String
    public var redirectURI: String
    public var outcome: Outcome
    public var error: String
    public var errorDescription: String
    /// Milliseconds from first request to first return; nil without a return.
    public var latencyMs: Int64?
    /// Whether request and first return were on separate records.
    public var latencyAcrossRecords: Bool
    public var findings: [FindingKind]
    public var clientIP: String
    public var source: SourceRef
}
