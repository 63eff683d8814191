import Audit
import Parsing
import Rules

/// The summary a person reads at a glance: findings first, by severity with
/// their first examples (what to fix, worst first), then input accounting,
/// outcomes, the error-type distribution (overall, and one line per period
/// with its most frequent values; the full breakdown is
/// error_distribution.csv), latency and notes. Every log-derived text is
/// escaped for the terminal.
package struct TerminalReport {
    package var color: Bool
    /// How many examples each finding kind shows.
    package var examplesPerKind = 3
    /// How many periods (the latest) the error types show, one line each.
    var periodLimit = 7
    /// How many error values each period's line names.
    static let errorsPerPeriod = 3

    package init(color: Bool) { self.color = color }

    private func paint(_ text: String, _ code: String) -> String {
        color ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    private func heading(_ text: String) -> String { paint(text, "1") }

    private func severityLabel(_ s: Severity) -> String {
        let text = s.rawValue.uppercased()
        switch s {
        case .critical: return paint(text, "1;31")
        case .high: return paint(text, "31")
        case .medium: return paint(text, "33")
        case .low: return paint(text, "36")
        case .info: return paint(text, "2")
        }
    }

    /// The summary's last line, what stays on screen once it has scrolled:
    /// the verdict and the findings by severity.
    static func closingLine(_ result: AuditResult, coverage: Coverage, paint: (String, String) -> String) -> String {
        let counts = Severity.allCases.reversed().compactMap { s -> String? in
            guard let n = result.statistics.findingsBySeverity[s], n > 0 else { return nil }
            return "\(s.rawValue) \(number(n))"
        }
        let verdict = coverage.verdict.rawValue.uppercased()
        let findings = "FINDINGS \(number(result.findingCount))" + (counts.isEmpty ? "" : " (" + counts.joined(separator: ", ") + ")")
        return "\n" + (coverage.verdict == .blind ? paint(verdict, "1;31") : verdict) + " · " + findings + "\n"
    }

    /// How the run read the deployment (docs/contract.md §9): the inputs
    /// read as tiers of one another, its streams (a server's consecutive
    /// files), the quiet ones, and the records that wait for the next run.
    /// Nothing for one input read alone.
    static func deployment(_ result: AuditResult, escape esc: (String) -> String) -> String {
        let streams = result.streams
        var out = ""
        for t in result.tiers {
            out +=
                SummaryWidth.wrap(
                    "  tiers                \(esc(t.first)) and \(esc(t.second)): \(Self.count(t.shared, "request", "requests")) logged by both, audited once")
                + "\n"
        }
        for o in result.offsets {
            out +=
                SummaryWidth.wrap(
                    "  times                \(esc(o.second)) sits \(ClockOffset.duration(o.offset)) from \(esc(o.first)) (\(Self.count(o.states, "state", "states")) both log): read in different zones"
                ) + "\n"
        }
        guard streams.count > 1 || streams.contains(where: { $0.files.count > 1 }) || result.waiting != nil else { return out }
        let files = streams.reduce(0) { $0 + $1.files.count }
        out +=
            "  streams              \(Self.number(streams.count)) from \(Self.count(files, "file", "files")) (a server's consecutive files are one stream)\n"
        for s in streams where s.files.count > 1 { out += SummaryWidth.wrap("    " + s.files.map(esc).joined(separator: " → ")) + "\n" }
        for s in result.quietStreams {
            out += SummaryWidth.wrap("    quiet: \(esc(s.name)), last record \(Timestamp.iso8601(s.last)); it holds nothing back") + "\n"
        }
        if let w = result.waiting {
            out +=
                SummaryWidth.wrap(
                    "    waiting: \(Self.count(w.count, "flip record", "flip records")) after the watermark \(Timestamp.iso8601(w.watermark)), "
                        + "where \(esc(w.stream)) ends; carried to the next run") + "\n"
        }
        return out
    }

    package func render(_ result: AuditResult) -> String {
        var out = ""
        let a = result.accounting
        let stats = result.statistics
        let esc = TerminalText.escape
        let coverage = result.coverage

        // What the run could check comes first: clean is not blind.
        switch coverage.verdict {
        case .complete: out += heading("COVERAGE") + "  complete: every check ran on every input\n"
        case .partial: out += heading("COVERAGE") + "  partial: some checks did not run\n"
        case .blind:
            out += paint("BLIND", "1;31") + "  the input was not understood: no finding below does not mean the logs are clean\n"
        }
        for gap in coverage.gaps { out += SummaryWidth.wrap("  - " + esc(gap.detail)) + "\n" }
        if !coverage.unseenClientIDs.isEmpty {
            out += SummaryWidth.wrap("  - --client-id carried by no request: " + coverage.unseenClientIDs.map(esc).joined(separator: ", ")) + "\n"
        }
        out += "\n"
        // Nothing could be read at all (a missing file): the errors and
        // the verdict, not a report of zeros.
        if a.lines == 0 && !result.inputErrors.isEmpty {
            out += heading("INPUT") + "  nothing could be read\n"
            for error in result.inputErrors { out += SummaryWidth.wrap(paint("  error: ", "31") + esc(error)) + "\n" }
            return out + Self.closingLine(result, coverage: coverage, paint: paint)
        }
        if result.mostlyLate {
            out +=
                SummaryWidth.wrap(
                    paint(
                        "MOSTLY LATE: \(Self.number(a.lateRecords)) of \(Self.number(a.records)) records lie before the checkpoint's watermark "
                            + "\(Timestamp.iso8601(result.previousWatermark ?? 0)) less 300 s and were left out (nights given out of order?)", "1;31"))
                + "\n\n"
        }
        let bySeverity = Severity.allCases.reversed().compactMap { s -> String? in
            guard let n = stats.findingsBySeverity[s], n > 0 else { return nil }
            return "\(s.rawValue) \(Self.number(n))"
        }
        out += heading("FINDINGS") + "  \(Self.number(result.findingCount))"
        out += bySeverity.isEmpty ? "\n" : "  (" + bySeverity.joined(separator: ", ") + ")\n"
        if !result.newKinds.isEmpty {
            out += "  new since the previous run: " + result.newKinds.map(\.rawValue).joined(separator: ", ") + "\n"
        }
        let examples = result.findingExamples.mapValues { $0.prefix(examplesPerKind) }
        for severity in Severity.allCases.reversed() {
            // What leaks a code or an error to a foreign host first.
            let present = FindingKind.allCases.filter { $0.severity == severity && (stats.findingsByKind[$0] ?? 0) > 0 }
            let kinds = present.filter(\.leaks) + present.filter { !$0.leaks }
            guard !kinds.isEmpty else { continue }
            out += "  " + severityLabel(severity) + "\n"
            for kind in kinds {
                out += SummaryWidth.wrap("    \(paint(kind.rawValue, "1")) ×\(Self.number(stats.findingsByKind[kind]!)) — \(kind.meaning)") + "\n"
                out += SummaryWidth.wrap("      fix: " + kind.fix.replacingOccurrences(of: "`", with: "")) + "\n"
                let shown = examples[kind] ?? []
                for f in shown {
                    // Cut after FILE:LINE, never before it.
                    let state = f.state.isEmpty ? "" : " state \(esc(Quote.text(f.state)))"
                    out += SummaryWidth.cut("      \(esc(result.describe(f.source)))", "\(state): \(esc(f.detail))") + "\n"
                }
                let more = stats.findingsByKind[kind]! - shown.count
                if more > 0 { out += "      … \(Self.number(more)) more (findings.csv, or --json)\n" }
            }
        }

        out += "\n" + heading("INPUT") + "\n"
        let gz = result.files.filter { $0.encoding == "gzip" }.count
        out += "  files                \(Self.number(a.files)) (\(Self.number(gz)) gzip, \(Self.number(a.files - gz)) plain)"
        if a.filesWithErrors > 0 { out += paint("  \(Self.number(a.filesWithErrors)) could not be read completely", "31") }
        out += "\n"
        out += "  bytes                \(Self.bytes(a.compressedBytes)) read, \(Self.bytes(a.uncompressedBytes)) uncompressed\n"
        if !result.files.isEmpty {
            // Each input's format, and how many log the Location (docs/formats.md).
            var formats: [String: Int] = [:]
            for f in result.files { formats[f.format, default: 0] += 1 }
            let list = formats.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { "\($0.key) \(Self.number($0.value))" }
            let logging = result.files.filter(\.logsLocation).count
            out +=
                "  formats              \(list.joined(separator: ", ")); Location logged by \(Self.number(logging)) of \(Self.count(result.files.count, "input", "inputs"))\n"
        }
        let notices = a.notices > 0 ? ", notices \(Self.number(a.notices))" : ""
        out +=
            "  lines                \(Self.number(a.lines))  (records \(Self.number(a.records)), malformed \(Self.number(a.malformedLines))\(notices), blank \(Self.number(a.blankLines)))\n"
        if a.notices > 0 {
            let kinds = a.noticesByKind.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { "\($0.key) \(Self.number($0.value))" }
            out += SummaryWidth.wrap("    notices: " + kinds.joined(separator: ", ") + " (a server's own lines, not requests; not audited)") + "\n"
        }
        for example in a.malformedExamples { out += SummaryWidth.wrap("    " + esc(example)) + "\n" }
        if a.malformedLines > a.malformedExamples.count {
            out += "    … \(Self.count(a.malformedLines - a.malformedExamples.count, "more malformed line", "more malformed lines"))\n"
        }
        if a.lateRecords > 0 {
            out += "  late records         \(Self.number(a.lateRecords))  (before the checkpoint's watermark less 300 s; left out)\n"
            for example in a.lateExamples { out += SummaryWidth.wrap("    " + esc(example)) + "\n" }
        }
        if a.outsideRecords > 0 {
            let window = [
                result.configuration.since.map { "since \(Timestamp.iso8601($0))" }, result.configuration.until.map { "until \(Timestamp.iso8601($0))" },
            ].compactMap { $0 }.joined(separator: ", ")
            out +=
                SummaryWidth.wrap(
                    "  outside the window   \(Self.number(a.outsideRecords))  (\(window); left out: a session cut by an edge shows only its side)") + "\n"
        }
        if a.duplicateRecords > 0 {
            out +=
                SummaryWidth.wrap(
                    "  duplicate records    \(Self.number(a.duplicateRecords))  (equal to a line of another input or of the last run; audited once)") + "\n"
        }
        out += Self.deployment(result, escape: esc)
        out += "  in-scope flip records \(Self.number(a.inScopeFlipRecords))\n"
        out += "  other OAuth traffic  \(Self.number(a.otherOAuthRecords))\n"
        out += "  return-only records  \(Self.number(a.returnRecords))\n"
        for file in result.files { if let hint = file.hint { out += SummaryWidth.wrap(paint("  warning: ", "33") + esc(file.name) + ": " + esc(hint)) + "\n" } }
        for error in result.inputErrors { out += SummaryWidth.wrap(paint("  error: ", "31") + esc(error)) + "\n" }

        out += "\n" + heading("SESSIONS") + "  \(Self.number(stats.sessions))\n"
        if stats.sessions > 0 {
            let outcomes = Outcome.allCases.filter { (stats.outcomeTotals[$0] ?? 0) > 0 }
            var rows: [[String]] = [["flow", "app", "environment"] + outcomes.map(\.rawValue) + ["total"]]
            for group in stats.outcomes.keys.sorted() {
                let counts = stats.outcomes[group]!
                rows.append(
                    [group.flow.rawValue, group.app.rawValue, group.environment.rawValue]
                        + outcomes.map { Self.number(counts[$0] ?? 0) } + [Self.number(counts.values.reduce(0, +))])
            }
            rows.append(["all", "", ""] + outcomes.map { Self.number(stats.outcomeTotals[$0] ?? 0) } + [Self.number(stats.sessions)])
            out += Self.table(rows, indent: 2)
        }

        let totals = stats.errorTotals
        let errorSessions = totals.reduce(0) { $0 + $1.count }
        out += "\n" + heading("ERROR TYPES") + "  (sessions with outcome error: \(Self.number(errorSessions)))\n"
        if errorSessions > 0 {
            var rows = [["error", "count", "share"]]
            for t in totals { rows.append([esc(t.error), Self.number(t.count), Self.percent(Double(t.count) / Double(errorSessions))]) }
            out += Self.table(rows, indent: 2)
            // A server-wide misconfiguration shows as one text most errors carry.
            var texts = [["error", "sessions", "most frequent error_description"]]
            for t in totals {
                for d in stats.topDescriptions(of: t.error) { texts.append([esc(t.error), Self.number(d.count), esc(d.text)]) }
            }
            if texts.count > 1 {
                out += "  most frequent descriptions:\n"
                out += Self.table(texts, indent: 4)
            }
            out += Self.periods(stats.errorDistributionRows, limit: periodLimit, escape: esc)
        }
        out += "\n" + heading("LATENCY") + "  request → return on separate records: "
        if let p = stats.latencyPercentiles {
            out += "\(Self.count(Int(p.count), "session", "sessions")), p50 \(Self.duration(p.p50)), p90 \(Self.duration(p.p90)), p99 \(Self.duration(p.p99))\n"
        } else {
            out += "none\n"
        }

        var notes: [String] = []
        for group in LocationAdvice.groups(result) {
            notes.append(
                "\(group.files.map(esc).joined(separator: ", ")) \(group.files.count == 1 ? "logs" : "log") no Location header, so returns to Google cannot be seen (sessions are 'unobservable'). \(group.text)"
                    + (group.example.map { "\n      " + LocationAdvice.lines($0).joined(separator: "\n      ") } ?? ""))
        }
        if !result.unpinnedProjectIDs.isEmpty {
            notes.append(
                "web-linking redirects were accepted for \(result.unpinnedProjectIDs.count == 1 ? "project ID" : "project IDs") \(result.unpinnedProjectIDs.map(esc).joined(separator: ", ")) because no --project-id is set; pin yours with --project-id ID so that others are flagged"
            )
        }
        if result.carriedIn > 0 || result.checkpoint != nil {
            notes.append("checkpoint: \(Self.number(result.carriedIn)) open sessions carried in, \(Self.number(result.carriedOut)) carried out to the next run")
        }
        if result.evictedSessions > 0 {
            notes.append(
                "\(Self.count(result.evictedSessions, "session was", "sessions were")) closed early because more than \(Self.number(result.configuration.maxSessions)) were open at once (a flood of distinct states?); their outcome is closed-early, later returns may read unknown-state, and results are not exact. Raise --max-sessions if this is normal traffic"
            )
        }
        if result.accounting.outOfOrderRecords > 0 {
            notes.append(
                "\(Self.count(result.accounting.outOfOrderRecords, "flip record was", "flip records were")) more than \(AuditConfiguration.reorderWindow / 1000) s behind the newest flip record of their input; every flip event was sorted, so they were audited in time order (separate files in time order are read faster)"
            )
        }
        if !notes.isEmpty {
            out += "\n" + heading("NOTES") + "\n"
            for n in notes { out += SummaryWidth.wrap("  - " + n) + "\n" }
        }
        out += Self.closingLine(result, coverage: coverage, paint: paint)
        return out
    }

    /// One line per period (the latest `limit`): its error sessions and
    /// most frequent values, summed over flow, app and environment.
    static func periods(_ rows: [(period: String, group: TargetGroup, error: String, count: Int, share: Double)], limit: Int, escape esc: (String) -> String)
        -> String
    {
        var byPeriod: [String: [String: Int]] = [:]
        // Each (period, group) ends with its `*` total row, which is left out.
        for (i, r) in rows.enumerated() where i + 1 < rows.count && rows[i + 1].period == r.period && rows[i + 1].group == r.group {
            byPeriod[r.period, default: [:]][r.error, default: 0] += r.count
        }
        let periods = byPeriod.keys.sorted()
        guard periods.count > 1 || periods.first != "all" else { return "" }
        var out = "  by period (UTC), most frequent first:\n"
        var lines: [[String]] = []
        for period in periods.suffix(limit) {
            let counts = byPeriod[period]!
            let total = counts.values.reduce(0, +)
            let top = counts.sorted { ($0.value, $1.key) > ($1.value, $0.key) }
            var named = top.prefix(errorsPerPeriod).map { "\(esc($0.key)) \(percent(Double($0.value) / Double(total)))" }
            if top.count > errorsPerPeriod { named.append("\(number(top.count - errorsPerPeriod)) more") }
            lines.append([period, number(total), named.joined(separator: ", ")])
        }
        out += table(lines, indent: 4)
        if periods.count > limit { out += "    … \(count(periods.count - limit, "earlier period", "earlier periods"))\n" }
        out += "    (per flow, app and environment: error_distribution.csv, with --csv DIR)\n"
        return out
    }

    // MARK: Formatting

    static func table(_ rows: [[String]], indent: Int) -> String {
        guard let width = rows.map(\.count).max() else { return "" }
        var widths = [Int](repeating: 0, count: width)
        for r in rows { for (i, c) in r.enumerated() { widths[i] = max(widths[i], DisplayWidth.of(c)) } }
        var out = ""
        for r in rows {
            var line = String(repeating: " ", count: indent)
            for (i, c) in r.enumerated() {
                let pad = String(repeating: " ", count: widths[i] - DisplayWidth.of(c))
                let numeric = i > 0 && c.first.map { $0.isNumber } == true
                line += (numeric ? pad + c : c + pad) + (i + 1 < r.count ? "  " : "")
            }
            while line.hasSuffix(" ") { line.removeLast() }
            out += line + "\n"
        }
        return out
    }

    /// `n` with thousands separators: `1,234,567`.
    static func number(_ n: Int) -> String {
        if n < 0 { return "-" + number(0 - n) }
        let s = String(n)
        var out = ""
        for (i, c) in s.enumerated() {
            if i > 0 && (s.count - i) % 3 == 0 { out += "," }
            out.append(c)
        }
        return out
    }

    /// `1 session`, `2 sessions`, `1,000 sessions`.
    static func count(_ n: Int, _ singular: String, _ plural: String) -> String {
        "\(number(n)) \(n == 1 ? singular : plural)"
    }

    static func bytes(_ n: UInt64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var v = Double(n)
        var u = 0
        while v >= 1024 && u < units.count - 1 { v /= 1024; u += 1 }
        return u == 0 ? "\(n) B" : "\(Double(Int(v * 10)) / 10) \(units[u])"
    }

    static func percent(_ share: Double) -> String {
        let tenths = Int((share * 1000).rounded())
        return "\(tenths / 10).\(tenths % 10)%"
    }

    static func duration(_ ms: UInt64) -> String {
        ms < 1000 ? "\(ms) ms" : "\(Double(ms / 100) / 10) s"
    }
}
