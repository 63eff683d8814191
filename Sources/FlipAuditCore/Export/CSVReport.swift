import Foundation

/// The three CSV files of SPEC §7, a stable contract for dashboards.
public enum CSVReport {
    public static let sessionsHeader = ["state", "first_seen", "last_seen", "flow", "app", "environment", "variant", "client_id", "redirect_uri", "outcome", "error", "error_description", "latency_ms", "findings", "client_ip", "source"]
    public static let findingsHeader = ["time", "severity", "kind", "state", "client_id", "redirect_uri", "detail", "source"]
    public static let errorDistributionHeader = ["period", "flow", "app", "environment", "error", "count", "share"]

    /// Appends one `sessions.csv` row; `source` is its `FILE:LINE`.
    static func append(session s: SessionRecord, source: String, to out: inout [UInt8]) {
        CSV.append(row: [
            s.state, Timestamp.iso8601(s.firstSeen), Timestamp.iso8601(s.lastSeen),
            s.target.flow.rawValue, s.target.app.rawValue, s.target.environment.rawValue, s.target.variant.rawValue,
            s.clientID, s.redirectURI, s.outcome.rawValue, s.error, s.errorDescription,
            s.latencyMs.map(String.init) ?? "", s.findings.map(\.rawValue).joined(separator: ";"),
            s.clientIP, source,
        ], to: &out)
    }

    /// Appends one `findings.csv` row; `source` is its `FILE:LINE`.
    static func append(finding f: Finding, source: String, to out: inout [UInt8]) {
        CSV.append(row: [
            Timestamp.iso8601(f.time), f.severity.rawValue, f.kind.rawValue, f.state, f.clientID,
            f.redirectURI, f.detail, source,
        ], to: &out)
    }

    public static func errorDistribution(_ statistics: AuditStatistics) -> String {
        var out = CSV.row(errorDistributionHeader)
        for row in statistics.errorDistributionRows {
            out += CSV.row([
                row.period, row.group.flow.rawValue, row.group.app.rawValue, row.group.environment.rawValue,
                row.error, String(row.count), formatShare(row.share),
            ])
        }
        return out
    }

    /// A share as a decimal with 4 digits: `0.3333`.
    static func formatShare(_ share: Double) -> String {
        let scaled = Int((share * 10_000).rounded())
        let whole = scaled / 10_000
        let frac = String(scaled % 10_000)
        return "\(whole)." + String(repeating: "0", count: 4 - frac.count) + frac
    }
}
