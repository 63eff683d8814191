import Audit
import Parsing
import Rules

/// The HTML report's trends (`--checkpoint`, docs/contract.md §9): each
/// finding kind's and error value's count over the chain's last runs as a
/// small inline SVG line (no script), this run against the previous one,
/// and what is new or gone since it.
extension HTMLReport {
    /// Rows of error values shown at most (the most frequent over the runs).
    static let trendErrorRows = 30

    /// One series: its name, its count per run (oldest first), and how it
    /// stands against the previous run.
    struct TrendRow {
        var name: String
        var counts: [Int]
        var now: Int { counts.last ?? 0 }
        var before: Int? { counts.count >= 2 ? counts[counts.count - 2] : nil }
        /// Found in this run, not in the previous one.
        var isNew: Bool { now > 0 && before == 0 }
        /// Found in the previous run, not in this one.
        var isGone: Bool { now == 0 && (before ?? 0) > 0 }
    }

    /// The rows of finding kinds and of error values over `trends`.
    static func trendRows(_ trends: [RunTotals]) -> (kinds: [TrendRow], errors: [TrendRow]) {
        let kinds = FindingKind.allCases.compactMap { kind -> TrendRow? in
            let counts = trends.map { $0.findings[kind.rawValue] ?? 0 }
            return counts.contains { $0 > 0 } ? TrendRow(name: kind.rawValue, counts: counts) : nil
        }
        var totals: [String: Int] = [:]
        for t in trends { for (e, n) in t.errors { totals[e, default: 0] += n } }
        let names = totals.keys.sorted { (totals[$1]!, $0) < (totals[$0]!, $1) }.prefix(trendErrorRows)
        let errors = names.map { e in TrendRow(name: e, counts: trends.map { $0.errors[e] ?? 0 }) }
        return (kinds, errors)
    }

    /// What changed since the previous run, next to the verdict (the
    /// trends further down hold the whole chain): each finding kind whose
    /// count moved, worst first, and the error values new tonight. Empty
    /// without a previous run.
    static func changedSection(_ result: AuditResult) -> String {
        let trends = result.trends
        guard trends.count >= 2 else { return "" }
        let (kinds, errors) = trendRows(trends)
        let rank = { (row: TrendRow) in FindingKind(rawValue: row.name)?.severity ?? .info }
        let moved = kinds.filter { $0.now != ($0.before ?? 0) }.sorted { (rank($1), $0.name) < (rank($0), $1.name) }
        let newErrors = errors.filter(\.isNew)
        let previous = trends[trends.count - 2].run
        var out = "<section id=\"changed\"><h2>Since the previous run (run \(previous))</h2>\n"
        if moved.isEmpty && newErrors.isEmpty {
            out += "<p data-changed=\"none\">No finding kind changed its count, and no new error value.</p>\n</section>\n"
            return out
        }
        out += "<ul>\n"
        for row in moved {
            let before = row.before ?? 0
            let change = row.isNew ? "new" : row.isGone ? "gone" : row.now > before ? "up" : "down"
            let delta = row.now > before ? "+\(row.now - before)" : "\u{2212}\(before - row.now)"
            // Linked to its findings when it has some tonight.
            let name = row.now > 0 ? "<a href=\"#kind-\(row.name)\"><code>\(row.name)</code></a>" : "<code>\(row.name)</code>"
            out +=
                "<li data-changed-kind=\"\(row.name)\" data-change=\"\(change)\">\(name) "
                + "\(before) \u{2192} \(row.now) (\(row.isNew ? "new" : row.isGone ? "gone" : delta))</li>\n"
        }
        for row in newErrors {
            out += "<li data-changed-error=\"new\">new error value <code>\(HTMLEscaping.escape(row.name, limit: valueLimit))</code> (\(row.now))</li>\n"
        }
        return out + "</ul>\n</section>\n"
    }

    /// The trends section; empty without a checkpoint.
    static func trendSection(_ result: AuditResult) -> String {
        let trends = result.trends
        guard let last = trends.last else { return "" }
        let (kinds, errors) = trendRows(trends)
        var out = "<section id=\"trends\"><h2>Trends</h2>\n"
        out +=
            "<style>#trends svg{vertical-align:middle}#trends .mark{font-weight:600;padding:0 6px;border-radius:8px}#trends .new{background:#fde2e1;color:#b00020}#trends .gone{background:#e3f1e6;color:#2f6b3a}</style>\n"
        let first = trends[0]
        out +=
            "<p>Runs \(first.run) to \(last.run) of this checkpoint's chain (\(trends.count) run\(trends.count == 1 ? "" : "s"), started \(Timestamp.iso8601(first.started)) to \(Timestamp.iso8601(last.started))); this run is the last point of each line.</p>\n"
        if trends.count < 2 { out += "<p>This is the chain's first run kept: nothing to compare with yet.</p>\n" }
        let newKinds = kinds.filter(\.isNew).map(\.name)
        let newErrors = errors.filter(\.isNew).map(\.name)
        if !newKinds.isEmpty {
            out += "<p data-new-kinds=\"\(newKinds.joined(separator: " "))\"><b>New since the previous run:</b> "
            out += newKinds.map { "<code>\($0)</code>" }.joined(separator: ", ") + "</p>\n"
        }
        if !newErrors.isEmpty {
            out += "<p><b>New error values since the previous run:</b> "
            out += newErrors.map { "<code>\(HTMLEscaping.escape($0, limit: valueLimit))</code>" }.joined(separator: ", ") + "</p>\n"
        }
        out += table(kinds, header: "finding kind", attribute: "data-trend-kind")
        out += table(errors, header: "error value", attribute: "data-trend-error")
        if last.otherErrors > 0 {
            out += "<p>\(last.otherErrors) returns of this run carried error values beyond the \(RunTotals.errorValuesKept) most frequent (not drawn).</p>\n"
        }
        out += "</section>\n"
        return out
    }

    private static func table(_ rows: [TrendRow], header: String, attribute: String) -> String {
        guard !rows.isEmpty else { return "<p>No \(header) in the runs kept.</p>\n" }
        var out =
            "<div class=\"scroll\"><table class=\"trends\"><thead><tr><th>\(header)</th><th>trend</th><th>previous run</th><th>this run</th><th></th></tr></thead><tbody>\n"
        for row in rows {
            let name = HTMLEscaping.escape(row.name, limit: valueLimit)
            let mark = row.isNew ? "<span class=\"mark new\">new</span>" : row.isGone ? "<span class=\"mark gone\">gone</span>" : ""
            let state = row.isNew ? "new" : row.isGone ? "gone" : "same"
            out +=
                "<tr \(attribute)=\"\(name)\" data-trend=\"\(state)\"><td class=\"mono\">\(name)</td><td>\(sparkline(row.counts, label: name))</td><td>\(row.before.map(String.init) ?? "–")</td><td data-now>\(row.now)</td><td>\(mark)</td></tr>\n"
        }
        out += "</tbody></table></div>\n"
        return out
    }

    /// A small line of `counts` (one point per run) as inline SVG.
    static func sparkline(_ counts: [Int], label: String) -> String {
        let width = 160.0, height = 28.0, pad = 3.0
        let top = Double(max(counts.max() ?? 0, 1))
        let step = counts.count > 1 ? (width - 2 * pad) / Double(counts.count - 1) : 0
        func x(_ i: Int) -> String { String(format1(pad + Double(i) * step)) }
        func y(_ v: Int) -> String { String(format1(height - pad - Double(v) / top * (height - 2 * pad))) }
        let points = counts.indices.map { "\(x($0)),\(y(counts[$0]))" }.joined(separator: " ")
        var out =
            "<svg width=\"\(Int(width))\" height=\"\(Int(height))\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" class=\"trend-line\" role=\"img\" aria-label=\"\(label): \(counts.map(String.init).joined(separator: ", "))\">"
        out += "<title>\(label): \(counts.map(String.init).joined(separator: ", "))</title>"
        if counts.count > 1 { out += "<polyline points=\"\(points)\" fill=\"none\" stroke=\"#4e79a7\" stroke-width=\"1.5\"/>" }
        let lastIndex = counts.count - 1
        out += "<circle cx=\"\(x(lastIndex))\" cy=\"\(y(counts[lastIndex]))\" r=\"2.5\" fill=\"#e15759\"/></svg>"
        return out
    }

    private static func format1(_ v: Double) -> String {
        let tenths = Int((v * 10).rounded())
        return "\(tenths / 10).\(abs(tenths % 10))"
    }
}
