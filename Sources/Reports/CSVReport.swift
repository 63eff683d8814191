import Foundation
import Parsing
import Reading
import Rules

/// The three CSV files of docs/contract.md §7, a stable contract for dashboards.
package enum CSVReport {
    package static let sessionsHeader = SessionColumn.allCases.map(\.rawValue)
    package static let findingsHeader = FindingColumn.allCases.map(\.rawValue)
    package static let errorDistributionHeader = ErrorDistributionColumn.allCases.map(\.rawValue)

    /// Appends one `sessions.csv` row; `source` is its `FILE:` cell prefix
    /// (see `sourcePrefix`), the line number is appended to it; `times`
    /// writes the file's times.
    static func append(session s: SessionRecord, source: [UInt8], times: inout Timestamp.ISO8601Writer, to out: inout [UInt8]) {
        // Room: the escaped cells, the times and numbers, the words (each
        // under 32 bytes), 15 commas, the line end and the source cell's
        // closing quote.
        var bound = 2 * Timestamp.iso8601Bound + 2 * RowBytes.decimalBound + source.count + 5 * 32 + 17
        bound += RowBytes.escapedBound(s.state.utf8.count) + RowBytes.escapedBound(s.clientID.utf8.count)
        bound += RowBytes.escapedBound(s.redirectURI.utf8.count) + RowBytes.escapedBound(s.error.utf8.count)
        bound += RowBytes.escapedBound(s.errorDescription.utf8.count) + RowBytes.escapedBound(s.clientIP.utf8.count)
        for kind in s.findings { bound += kind.rawValue.utf8.count + 1 }
        // Written cell by cell in `SessionColumn`'s order (a loop over
        // the columns cost an App Flip line about 100 instructions);
        // `sessionRowsPutEachWordUnderItsColumn` holds the two together.
        RowBytes.write(atMost: bound, to: &out, s) { row, s in
            row.cell(s.state)
            row.put(.comma)
            row.put(time: s.firstSeen, by: &times)
            row.put(.comma)
            row.put(time: s.lastSeen, by: &times)
            row.put(targetCells[s.target.index])
            row.put(.comma)
            row.cell(s.clientID)
            row.put(.comma)
            row.cell(s.redirectURI)
            row.put(outcomeCells[s.outcome.rank])
            row.put(.comma)
            row.cell(s.error)
            row.put(.comma)
            row.cell(s.errorDescription)
            row.put(.comma)
            if let latency = s.latencyMs { row.put(decimal: latency) }
            row.put(.comma)
            for (i, kind) in s.findings.enumerated() {
                if i > 0 { row.put(UInt8(ascii: ";")) }
                row.put(kind.rawValue)
            }
            row.put(.comma)
            row.cell(s.clientIP)
            row.put(.comma)
            putSource(s.source, prefix: source, in: &row)
            row.put(.newline)
        }
    }

    /// Per target (by `RedirectTarget.index`), its flow, app, environment
    /// and variant cells, each after a comma, ready to copy: flipaudit's
    /// own words, never escaped.
    private static let targetCells = RedirectTarget.all.map { t in
        Array(",\(t.flow.rawValue),\(t.app.rawValue),\(t.environment.rawValue),\(t.variant.rawValue)".utf8)
    }
    /// Per outcome (by rank), its cell after a comma.
    private static let outcomeCells = Outcome.allCases.sorted { $0.rank < $1.rank }.map { Array(",\($0.rawValue)".utf8) }

    /// Appends one `findings.csv` row; `source` as for sessions.
    static func append(finding f: Finding, source: [UInt8], times: inout Timestamp.ISO8601Writer, to out: inout [UInt8]) {
        // Room as for a session row (7 commas); severity and kind are words.
        var bound = Timestamp.iso8601Bound + RowBytes.decimalBound + source.count + 2 * 32 + 9
        bound += RowBytes.escapedBound(f.state.utf8.count) + RowBytes.escapedBound(f.clientID.utf8.count)
        bound += RowBytes.escapedBound(f.redirectURI.utf8.count) + RowBytes.escapedBound(f.detail.utf8.count)
        // In `FindingColumn`'s order, as the sessions' rows.
        RowBytes.write(atMost: bound, to: &out, f) { row, f in
            row.put(time: f.time, by: &times)
            row.put(.comma)
            row.put(f.severity.rawValue)
            row.put(.comma)
            row.put(f.kind.rawValue)
            row.put(.comma)
            row.cell(f.state)
            row.put(.comma)
            row.cell(f.clientID)
            row.put(.comma)
            row.cell(f.redirectURI)
            row.put(.comma)
            row.cell(f.detail)
            row.put(.comma)
            putSource(f.source, prefix: source, in: &row)
            row.put(.newline)
        }
    }

    /// The `FILE:` part of the source cells of one input, escaped, ready
    /// for the line number (digits change neither quoting nor the formula
    /// prefix). A quoted name is left open here and closed by `putSource`.
    static func sourcePrefix(displayName: String) -> [UInt8] {
        var cell: [UInt8] = []
        CSV.append(displayName + ":", to: &cell)
        if cell.first == .quote { cell.removeLast() }
        return cell
    }

    /// Puts `FILE:LINE` from a prefix made by `sourcePrefix`.
    private static func putSource(_ source: SourceRef, prefix: [UInt8], in row: inout RowBytes) {
        row.put(prefix)
        row.put(decimal: source.line)
        if prefix.first == .quote { row.put(.quote) }
    }

    static func errorDistribution(_ statistics: AuditStatistics) -> String {
        var out = CSV.row(errorDistributionHeader)
        for row in statistics.errorDistributionRows {
            out += CSV.row(
                ErrorDistributionColumn.allCases.map { column in
                    switch column {
                    case .period: row.period
                    case .flow: row.group.flow.rawValue
                    case .app: row.group.app.rawValue
                    case .environment: row.group.environment.rawValue
                    case .error: row.error
                    case .count: String(row.count)
                    case .share: formatShare(row.share)
                    }
                })
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
