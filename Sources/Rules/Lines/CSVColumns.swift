/// The columns of the three CSV files (docs/outputs.md), each file's in
/// one list and in order: the header is their names, each row is written
/// by walking the same list (`CSVReport`), and the row lines a run spills
/// and reads back (`RowCodec`) name their fields by them.

/// `sessions.csv`: one row per session.
package enum SessionColumn: String, CaseIterable, Sendable {
    case state
    case firstSeen = "first_seen"
    case lastSeen = "last_seen"
    case flow, app, environment, variant
    case clientID = "client_id"
    case redirectURI = "redirect_uri"
    case outcome, error
    case errorDescription = "error_description"
    case latencyMs = "latency_ms"
    case findings
    case clientIP = "client_ip"
    case source
}

/// `findings.csv`: one row per finding.
package enum FindingColumn: String, CaseIterable, Sendable {
    case time, severity, kind, state
    case clientID = "client_id"
    case redirectURI = "redirect_uri"
    case detail, source
}

/// `error_distribution.csv`: one row per period, group and error.
package enum ErrorDistributionColumn: String, CaseIterable, Sendable {
    case period, flow, app, environment, error, count, share
}
