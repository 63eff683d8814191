/// A closed session: one row of `sessions.csv`.
package struct SessionRecord: Sendable {
    package var state: String
    package var firstSeen: Int64
    package var lastSeen: Int64
    package var target: RedirectTarget
    package var clientID: String
    package var redirectURI: String
    package var outcome: Outcome
    package var error: String
    package var errorDescription: String
    /// Milliseconds from first request to first return; nil without a return.
    package var latencyMs: Int64?
    /// Whether request and first return were on separate records.
    var latencyAcrossRecords: Bool
    package var findings: [FindingKind]
    package var clientIP: String
    package var source: SourceRef
}
