import Foundation

/// The three CSV files of SPEC §7, a stable contract for dashboards.
public enum CSVReport {
    public static let sessionsHeader = ["state", "first_seen", "last_seen", "flow", "app", "environment", "variant", "client_id", "redirect_uri", "outcome", "error", "error_description", "latency_ms", "findings", "client_ip", "source"]
    public static let findingsHeader = ["time", "severity", "kind", "state", "client_id", "redirect_uri", "detail", "source"]
    public static let errorDistributionHeader = ["period", "flow", "app", "environment", "error", "count", "share"]

    public static func sessions(_ result: AuditResult) -> String {
        String(decoding: sessionsBytes(result), as: UTF8.self)
    }

    static func sessionsBytes(_ result: AuditResult) -> [UInt8] {
        var out: [UInt8] = []
        CSV.append(row: sessionsHeader, to: &out)
        for s in result.sessions {
            CSV.append(row: [
                s.state, Timestamp.iso8601(s.firstSeen), Timestamp.iso8601(s.lastSeen),
                s.target.flow.rawValue, s.target.app.rawValue, s.target.environment.rawValue, s.target.variant.rawValue,
                s.clientID, s.redirectURI, s.outcome.rawValue, s.error, s.errorDescription,
                s.latencyMs.map(String.init) ?? "", s.findings.map(\.rawValue).joined(separator: ";"),
                s.clientIP, result.describe(s.source),
            ], to: &out)
        }
        return out
    }

    public static func findings(_ result: AuditResult) -> String {
        String(decoding: findingsBytes(result), as: UTF8.self)
    }

    static func findingsBytes(_ result: AuditResult) -> [UInt8] {
        var out: [UInt8] = []
        CSV.append(row: findingsHeader, to: &out)
        for f in result.findings {
            CSV.append(row: [
                Timestamp.iso8601(f.time), f.severity.rawValue, f.kind.rawValue, f.state, f.clientID,
                f.redirectURI, f.detail, result.describe(f.source),
            ], to: &out)
        }
        return out
    }

    public static func errorDistribution(_ result: AuditResult) -> String {
        var out = CSV.row(errorDistributionHeader)
        for row in result.statistics.errorDistributionRows {
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

    /// Writes the three files into `directory`, each through a temporary
    /// file renamed into place so that no reader sees half a file.
    public static func write(_ result: AuditResult, to directory: String) throws {
        let dir = URL(fileURLWithPath: directory, isDirectory: true)
        for (name, bytes) in [("sessions.csv", sessionsBytes(result)), ("findings.csv", findingsBytes(result)),
                              ("error_distribution.csv", Array(errorDistribution(result).utf8))] {
            try Data(bytes).write(to: dir.appendingPathComponent(name), options: .atomic)
        }
    }
}
