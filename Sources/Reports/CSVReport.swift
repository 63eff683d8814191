import Audit
import Foundation
import Parsing
import Reading
import Rules

/// The three CSV files of docs/contract.md §7, a stable contract for dashboards.
package enum CSVReport {
    package static let sessionsHeader = [
        "state", "first_seen", "last_seen", "flow", "app", "environment", "variant", "client_id", "redirect_uri", "outcome", "error", "error_description",
        "latency_ms", "findings", "client_ip", "source",
    ]
    package static let findingsHeader = ["time", "severity", "kind", "state", "client_id", "redirect_uri", "detail", "source"]
    package static let errorDistributionHeader = ["period", "flow", "app", "environment", "error", "count", "share"]

    /// Appends one `sessions.csv` row; `source` is its `FILE:` cell prefix
    /// (see `sourcePrefix`), the line number is appended to it.
    static func append(session s: SessionRecord, source: [UInt8], to out: inout [UInt8]) {
        CSV.append(s.state, to: &out)
        out.append(.comma)
        Timestamp.appendISO8601(s.firstSeen, to: &out)
        out.append(.comma)
        Timestamp.appendISO8601(s.lastSeen, to: &out)
        func cell(_ value: String) {
            out.append(.comma)
            CSV.append(value, to: &out)
        }
        // flipaudit's own words (lowercase letters and `-` inside): no
        // cell of them is ever quoted or prefixed, so they are copied.
        func word(_ value: String) {
            out.append(.comma)
            out.append(contentsOf: value.utf8)
        }
        word(s.target.flow.rawValue); word(s.target.app.rawValue); word(s.target.environment.rawValue)
        word(s.target.variant.rawValue); cell(s.clientID); cell(s.redirectURI); word(s.outcome.rawValue)
        cell(s.error); cell(s.errorDescription)
        out.append(.comma)
        if let latency = s.latencyMs { CSV.append(decimal: latency, to: &out) }
        out.append(.comma)
        for (i, kind) in s.findings.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ";")) }
            out.append(contentsOf: kind.rawValue.utf8)
        }
        out.append(.comma)
        CSV.append(s.clientIP, to: &out)
        out.append(.comma)
        appendSource(s.source, prefix: source, to: &out)
        out.append(.newline)
    }

    /// Appends one `findings.csv` row; `source` as for sessions.
    static func append(finding f: Finding, source: [UInt8], to out: inout [UInt8]) {
        Timestamp.appendISO8601(f.time, to: &out)
        func cell(_ value: String) {
            out.append(.comma)
            CSV.append(value, to: &out)
        }
        cell(f.severity.rawValue); cell(f.kind.rawValue); cell(f.state); cell(f.clientID); cell(f.redirectURI); cell(f.detail)
        out.append(.comma)
        appendSource(f.source, prefix: source, to: &out)
        out.append(.newline)
    }

    /// The `FILE:` part of the source cells of one input, escaped, ready
    /// for the line number (digits change neither quoting nor the formula
    /// prefix). A quoted name is left open here and closed by `appendSource`.
    static func sourcePrefix(displayName: String) -> [UInt8] {
        var cell: [UInt8] = []
        CSV.append(displayName + ":", to: &cell)
        if cell.first == .quote { cell.removeLast() }
        return cell
    }

    /// Appends `FILE:LINE` from a prefix made by `sourcePrefix`.
    private static func appendSource(_ source: SourceRef, prefix: [UInt8], to out: inout [UInt8]) {
        out.append(contentsOf: prefix)
        CSV.append(decimal: source.line, to: &out)
        if prefix.first == .quote { out.append(.quote) }
    }

    static func errorDistribution(_ statistics: AuditStatistics) -> String {
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
