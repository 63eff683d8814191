import Audit
import Foundation
import Histogram
import Parsing
import Rules

/// The summary as one self-contained HTML page (`--html`,
/// docs/contract.md §9): inline CSS, inline SVG charts, no script and no
/// resource from anywhere (a Content-Security-Policy says so to the
/// browser), readable on a phone and in print.
///
/// Every text taken from the logs goes through `HTMLEscaping` and is cut
/// to `valueLimit` characters; lists that grow with the input (files,
/// errors, periods, error values) are capped, so the page stays small
/// whatever the input. Totals carry `data-total` attributes that the
/// browser check compares with the JSON summary.
package enum HTMLReport {
    /// Examples shown per finding kind.
    package static let examplesPerKind = 5
    /// Longest log value shown, in characters.
    static let valueLimit = 200
    /// Most files and input errors listed.
    static let listLimit = 100
    /// Most periods drawn in the error chart (the latest ones).
    static let periodLimit = 60
    /// Error values drawn with a color of their own; the rest are "other".
    static let errorValueLimit = 8

    static let contentSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"

    private static func esc(_ text: String) -> String { HTMLEscaping.escape(text, limit: valueLimit) }

    /// The verdict: whether the run would exit 1 under `--fail-on`
    /// (`failOn` nil for `never`), and whether some input was not read.
    static func verdict(_ result: AuditResult, failOn: Severity?) -> (status: String, text: String) {
        let coverage = result.coverage
        if coverage.verdict == .blind {
            // Never a pass: the input was not understood (exit status 5).
            let what = coverage.gaps.filter { $0.check == "read" }.map(\.detail).joined(separator: " ")
            return ("blind", "BLIND: the input was not understood: no finding below does not mean the logs are clean (exit status 5). \(what)")
        }
        if result.hadInputErrors {
            return ("incomplete", "Some input could not be read completely (exit status 3); everything readable was audited.")
        }
        guard let failOn else {
            let worst = result.worstSeverity.map { ", the worst \($0.rawValue)" } ?? ""
            return ("info", "No threshold set (--fail-on never): \(result.findingCount) findings\(worst).")
        }
        let above = Severity.allCases.filter { $0 >= failOn }.reduce(0) { $0 + (result.statistics.findingsBySeverity[$1] ?? 0) }
        return above > 0
            ? ("fail", "FAIL: \(above) findings at or above \(failOn.rawValue) (--fail-on \(failOn.rawValue)).")
            : ("pass", "PASS: no finding at or above \(failOn.rawValue) (--fail-on \(failOn.rawValue)).")
    }

    /// What the run could check: the coverage verdict and each gap.
    static func coverageSection(_ coverage: Coverage) -> String {
        var out = "<section id=\"coverage\" data-coverage=\"\(coverage.verdict.rawValue)\"><h2>Coverage: \(coverage.verdict.rawValue)</h2>"
        if coverage.gaps.isEmpty && coverage.unseenClientIDs.isEmpty {
            return out + "<p>Every check ran on every input.</p></section>\n"
        }
        out += "<ul>\n"
        for gap in coverage.gaps { out += "<li data-check=\"\(gap.check)\">\(HTMLEscaping.escape(gap.detail))</li>\n" }
        if !coverage.unseenClientIDs.isEmpty {
            out += "<li>--client-id carried by no request: \(coverage.unseenClientIDs.map { esc($0) }.joined(separator: ", "))</li>\n"
        }
        return out + "</ul></section>\n"
    }

    /// `runDate`: when the run ended (the page names it); now by default.
    package static func render(_ result: AuditResult, failOn: Severity?, runDate: Date = Date()) -> String {
        let stats = result.statistics
        let a = result.accounting
        var out = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta http-equiv="Content-Security-Policy" content="\(contentSecurityPolicy)">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="referrer" content="no-referrer">
            <title>flipaudit report</title>
            <style>\(style)</style>
            </head>
            <body>
            <header><h1>flipaudit report</h1><p class="sub">Google App Flip account linking, audited from access logs</p>

            """
        out += about(result, runDate: runDate) + "</header>\n"
        let verdict = verdict(result, failOn: failOn)
        let toFindings = result.findingCount > 0 ? " <a href=\"#findings\">See the findings.</a>" : ""
        out +=
            "<section id=\"verdict\" class=\"verdict \(verdict.status)\" data-verdict=\"\(verdict.status)\"><p>\(HTMLEscaping.escape(verdict.text))\(toFindings)</p></section>\n"
        out += changedSection(result)
        out += coverageSection(result.coverage)

        // Totals at a glance.
        out += "<section id=\"totals\"><h2>At a glance</h2><div class=\"cards\">\n"
        for (key, label, value) in [
            ("files", "files", a.files), ("lines", "lines", a.lines), ("records", "records", a.records),
            ("malformed_lines", "malformed lines", a.malformedLines), ("in_scope_flip_records", "flip records", a.inScopeFlipRecords),
            ("sessions", "sessions", stats.sessions), ("findings", "findings", result.findingCount),
        ] {
            out += "<div class=\"card\"><span class=\"num\" data-total=\"\(key)\">\(value)</span><span class=\"label\">\(label)</span></div>\n"
        }
        out += "</div>\n<p class=\"sev-line\">"
        for severity in Severity.allCases.reversed() {
            let n = stats.findingsBySeverity[severity] ?? 0
            let label = "\(severity.rawValue) <b data-total=\"findings-\(severity.rawValue)\">\(n)</b>"
            // A count above zero leads to its findings, in this page.
            out +=
                n > 0
                ? "<a class=\"sev \(severity.rawValue)\" href=\"#sev-\(severity.rawValue)\">\(label)</a> "
                : "<span class=\"sev \(severity.rawValue)\">\(label)</span> "
        }
        out += "</p></section>\n"

        // Findings first: what to fix, worst first (docs/contract.md §9).
        out += findingSection(result)
        out += inputSection(result)
        out += sessionSection(result)
        out += errorSection(result)
        out += latencySection(result)
        out += trendSection(result)
        out +=
            "<footer><p>Made by flipaudit. Authorization codes appear only as digests (<code>sha256:</code> and 12 hex digits). Text from the logs is shown escaped.</p></footer>\n</body>\n</html>\n"
        return out
    }

    // MARK: Sections

    /// What the page is about: the time range of the sessions and
    /// findings, the run's date, flipaudit's version, and the options that
    /// change results.
    static func about(_ result: AuditResult, runDate: Date) -> String {
        let stats = result.statistics
        var range = "no App Flip session or finding in the input"
        if let first = stats.firstTime, let last = stats.lastTime {
            range =
                "flip records from <time data-time=\"first\">\(Timestamp.iso8601(first))</time> to <time data-time=\"last\">\(Timestamp.iso8601(last))</time> (UTC)"
        }
        let run = Timestamp.iso8601(Int64((runDate.timeIntervalSince1970 * 1000).rounded(.down)))
        var options = result.configuration.resultOptions
        if result.checkpoint != nil || result.carriedIn > 0 { options.append("--checkpoint") }
        var out = "<p class=\"about\">\(range) · run <time>\(run)</time> · flipaudit \(FlipAuditVersion.current)</p>\n"
        out += "<p class=\"about\">Options: <code>\(options.map { esc($0) }.joined(separator: "</code> <code>"))</code></p>\n"
        return out
    }

    static func inputSection(_ result: AuditResult) -> String {
        let a = result.accounting
        var out = "<section id=\"inputs\"><h2>Inputs</h2>\n"
        out += "<p>\(a.files) files, \(TerminalReport.bytes(a.compressedBytes)) read, \(TerminalReport.bytes(a.uncompressedBytes)) uncompressed; "
        out += "\(a.lines) lines: \(a.records) records, \(a.malformedLines) malformed, \(a.blankLines) blank; "
        out += "\(a.inScopeFlipRecords) in-scope flip records, \(a.otherOAuthRecords) other OAuth, \(a.returnRecords) return-only.</p>\n"
        if !result.inputErrors.isEmpty {
            out += "<h3 class=\"bad\">Not read completely (<span data-total=\"files_with_errors\">\(a.filesWithErrors)</span>)</h3><ul class=\"problems\">\n"
            for e in result.inputErrors.prefix(listLimit) { out += "<li>\(esc(e))</li>\n" }
            if result.inputErrors.count > listLimit { out += "<li>… \(result.inputErrors.count - listLimit) more</li>\n" }
            out += "</ul>\n"
        }
        if a.malformedLines > 0 {
            out += "<h3>Malformed lines</h3><ul class=\"problems\">\n"
            for (reason, count) in a.malformedByReason.sorted(by: { ($1.value, $0.key) < ($0.value, $1.key) }).prefix(listLimit) {
                out += "<li>\(esc(reason)): \(count)</li>\n"
            }
            out += "</ul><p>First ones:</p><ul class=\"mono\">\n"
            for e in a.malformedExamples { out += "<li>\(esc(e))</li>\n" }
            out += "</ul>\n"
        }
        var notes: [String] = []
        for group in LocationAdvice.groups(result) {
            let names = group.files.prefix(listLimit).map(esc).joined(separator: ", ")
            notes.append(
                "<p><b>\(names)</b> \(group.files.count == 1 ? "logs" : "log") no <code>Location</code> header, so returns to Google cannot be seen (sessions are <i>unobservable</i>). \(esc(group.text))</p>"
                    + (group.example.map { "<pre>\(HTMLEscaping.escape($0))</pre>" } ?? ""))
        }
        if !result.unpinnedProjectIDs.isEmpty {
            notes.append(
                "<p>Web-linking redirects were accepted for \(result.unpinnedProjectIDs.count == 1 ? "project ID" : "project IDs") \(result.unpinnedProjectIDs.prefix(listLimit).map(esc).joined(separator: ", ")) because no <code>--project-id</code> is set; pin yours with <code>--project-id ID</code> so that others are flagged.</p>"
            )
        }
        if result.carriedIn > 0 || result.checkpoint != nil {
            notes.append(
                "<p>Checkpoint: <span data-total=\"carried_in\">\(result.carriedIn)</span> open sessions carried in from the previous run, <span data-total=\"carried_out\">\(result.carriedOut)</span> carried out to the next; their rows are written by the run in which they close.</p>"
            )
        }
        if result.evictedSessions > 0 {
            notes.append(
                "<p><span data-total=\"evicted_sessions\">\(result.evictedSessions)</span> sessions were closed early because more than \(result.configuration.maxSessions) were open at once (a flood of distinct states?); their outcome is closed-early, later returns may read unknown-state, and results are not exact. Raise <code>--max-sessions</code> if this is normal traffic.</p>"
            )
        }
        if result.mostlyLate {
            notes.append(
                "<p><strong>Mostly late:</strong> \(a.lateRecords) of \(a.records) records lie before the checkpoint's watermark \(Timestamp.iso8601(result.previousWatermark ?? 0)) less \(AuditConfiguration.reorderWindow / 1000) s and were left out of the audit (nights given out of order?).</p>"
            )
        }
        if a.lateRecords > 0 {
            var text =
                "<p><span data-total=\"late_records\">\(a.lateRecords)</span> late records (older than the checkpoint's watermark less \(AuditConfiguration.reorderWindow / 1000) s) were counted and left out of the audit:</p><ul>"
            for e in a.lateExamples { text += "<li>\(esc(e))</li>" }
            notes.append(text + "</ul>")
        }
        if a.duplicateRecords > 0 {
            notes.append(
                "<p><span data-total=\"duplicate_records\">\(a.duplicateRecords)</span> flip records equal, byte for byte, to a record of another input or of the previous run's end were audited once.</p>"
            )
        }
        if a.outOfOrderRecords > 0 {
            notes.append(
                "<p>\(a.outOfOrderRecords) flip records were more than \(AuditConfiguration.reorderWindow / 1000) s behind the newest flip record of their input; every flip event was sorted, so they were audited in time order (separate files in time order are read faster).</p>"
            )
        }
        for n in notes { out += "<div class=\"note\">\(n)</div>\n" }

        out +=
            "<div class=\"scroll\"><table><thead><tr><th>file</th><th>encoding</th><th>format</th><th class=\"n\">lines</th><th>Location logged</th><th>problem</th></tr></thead><tbody>\n"
        for f in result.files.prefix(listLimit) {
            out +=
                "<tr><td class=\"mono\">\(esc(f.name))</td><td>\(esc(f.encoding))</td><td>\(esc(f.format))</td><td class=\"n\">\(f.lines)</td><td>\(f.logsLocation ? "yes" : "<b>no</b>")</td><td>\(f.error.map(esc) ?? f.hint.map(esc) ?? "")</td></tr>\n"
        }
        if result.files.count > listLimit { out += "<tr><td colspan=\"6\">… \(result.files.count - listLimit) more files</td></tr>\n" }
        out += "</tbody></table></div>\n" + deployment(result) + "</section>\n"
        return out
    }

    /// How the logs were read as a deployment (docs/contract.md §9): each
    /// stream with its files, its last record and whether it went quiet;
    /// the records that wait for the next run; the inputs seen before.
    static func deployment(_ result: AuditResult) -> String {
        guard !result.streams.isEmpty || !result.skipped.isEmpty || !result.tiers.isEmpty || !result.offsets.isEmpty else { return "" }
        var out = ""
        if !result.offsets.isEmpty {
            out +=
                "<h3 id=\"offsets\">Times read in different zones</h3>\n<p>Inputs whose records of one state sit a whole number of quarter hours apart, state after state: sessions across them are wrong until both are read in their zones.</p>\n<div class=\"scroll\"><table><thead><tr><th>first</th><th>second</th><th class=\"n\">offset</th><th class=\"n\">states</th></tr></thead><tbody>\n"
            for o in result.offsets {
                out +=
                    "<tr data-offset-seconds=\"\(o.offset / 1000)\"><td class=\"mono\">\(esc(o.first))</td><td class=\"mono\">\(esc(o.second))</td><td class=\"n\">\(esc(ClockOffset.duration(o.offset)))</td><td class=\"n\">\(o.states)</td></tr>\n"
            }
            out += "</tbody></table></div>\n"
        }
        if !result.tiers.isEmpty {
            out +=
                "<h3 id=\"tiers\">Tiers</h3>\n<p>Inputs that log the same requests (a proxy and its backend): each request both logged is audited once, as the record that logs a Location (else the earlier).</p>\n<div class=\"scroll\"><table><thead><tr><th>first</th><th>second</th><th class=\"n\">requests shared</th></tr></thead><tbody>\n"
            for t in result.tiers {
                out +=
                    "<tr data-tier-shared=\"\(t.shared)\"><td class=\"mono\">\(esc(t.first))</td><td class=\"mono\">\(esc(t.second))</td><td class=\"n\">\(t.shared)</td></tr>\n"
            }
            out += "</tbody></table></div>\n"
        }
        out +=
            "<h3 id=\"deployment\">How the logs were read</h3>\n<p><span data-total=\"streams\">\(result.streams.count)</span> streams: a server's consecutive files (one base name, times that follow one another) are one stream, which only its last file ends. A quiet stream (its last record more than the session timeout before the newest stream's end) holds nothing back.</p>\n"
        out +=
            "<div class=\"scroll\"><table><thead><tr><th>stream: its files, oldest first</th><th>last record</th><th>state</th></tr></thead><tbody>\n"
        for s in result.streams.prefix(listLimit) {
            out +=
                "<tr data-stream-files=\"\(s.files.count)\" data-quiet=\"\(s.quiet)\"><td class=\"mono\">\(s.files.map(esc).joined(separator: "<br>→ "))</td><td>\(Timestamp.iso8601(s.last))</td><td>\(s.quiet ? "<b>quiet</b>: it held nothing back" : "read to its end")</td></tr>\n"
        }
        if result.streams.count > listLimit { out += "<tr><td colspan=\"3\">… \(result.streams.count - listLimit) more streams</td></tr>\n" }
        out += "</tbody></table></div>\n"
        if let w = result.waiting {
            out +=
                "<div class=\"note\"><p><span data-total=\"waiting_records\">\(w.count)</span> flip records after the watermark \(Timestamp.iso8601(w.watermark)), where <span class=\"mono\">\(esc(w.stream))</span> ends, wait for the next run (carried in the checkpoint); <code>--cut-at</code> says when the logs were cut.</p></div>\n"
        }
        for told in result.skipped { out += "<div class=\"note\"><p>\(esc(told)): skipped, not audited again.</p></div>\n" }
        return out
    }

    static func sessionSection(_ result: AuditResult) -> String {
        let stats = result.statistics
        var out = "<section id=\"sessions\"><h2>Sessions by outcome</h2>\n"
        guard stats.sessions > 0 else { return out + "<p>No App Flip session in the input.</p></section>\n" }
        let outcomes = Outcome.allCases.filter { (stats.outcomeTotals[$0] ?? 0) > 0 }
        out += "<div class=\"scroll\"><table><thead><tr><th>flow</th><th>app</th><th>environment</th>"
        for o in outcomes { out += "<th class=\"n\">\(o.rawValue)</th>" }
        out += "<th class=\"n\">total</th></tr></thead><tbody>\n"
        for group in stats.outcomes.keys.sorted() {
            let counts = stats.outcomes[group]!
            out += "<tr><td>\(group.flow.rawValue)</td><td>\(group.app.rawValue)</td><td>\(group.environment.rawValue)</td>"
            for o in outcomes { out += "<td class=\"n\">\(counts[o] ?? 0)</td>" }
            out += "<td class=\"n\">\(counts.values.reduce(0, +))</td></tr>\n"
        }
        out += "</tbody><tfoot><tr><th colspan=\"3\">all</th>"
        for o in outcomes { out += "<td class=\"n\" data-total=\"outcome-\(o.rawValue)\">\(stats.outcomeTotals[o] ?? 0)</td>" }
        out += "<td class=\"n\">\(stats.sessions)</td></tr></tfoot></table></div></section>\n"
        return out
    }

    /// Colors of the error values in the chart, most frequent first; the
    /// last is for "other".
    static let palette = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f"]

    static func errorSection(_ result: AuditResult) -> String {
        let stats = result.statistics
        let totals = stats.errorTotals
        let errorSessions = totals.reduce(0) { $0 + $1.count }
        var out = "<section id=\"errors\"><h2>Error types</h2>\n<p>Sessions with outcome error: <b data-total=\"error_sessions\">\(errorSessions)</b>.</p>\n"
        guard errorSessions > 0 else { return out + "</section>\n" }

        // The values with a color of their own; the rest are "other".
        let shown = totals.count > errorValueLimit ? Array(totals.prefix(errorValueLimit - 1).map(\.error)) : totals.map(\.error)
        let other = totals.count > shown.count
        var perPeriod: [String: [String: Int]] = [:]
        for (key, count) in stats.errors {
            let value = shown.contains(key.error) ? key.error : "\u{0}other"
            perPeriod[key.period, default: [:]][value, default: 0] += count
        }
        let allPeriods = perPeriod.keys.sorted()
        let periods = Array(allPeriods.suffix(periodLimit))
        let maxTotal = periods.map { perPeriod[$0]!.values.reduce(0, +) }.max() ?? 1
        let keys = shown + (other ? ["\u{0}other"] : [])
        func label(_ key: String) -> String { key == "\u{0}other" ? "other values" : esc(key) }
        func color(_ index: Int) -> String { index < shown.count ? palette[index % (palette.count - 1)] : palette[palette.count - 1] }

        // Stacked bars: one per period, one segment per error value.
        // Wide bars with level labels for a few periods (days); narrow
        // ones with slanted labels for many (hours).
        let few = periods.count <= 12
        let barWidth = few ? 64 : 24, gap = few ? 24 : 8, left = 60, top = 10, height = 180
        let width = left + periods.count * (barWidth + gap) + gap
        out +=
            "<figure><svg class=\"chart\" role=\"img\" aria-label=\"Error values per period\" viewBox=\"0 0 \(max(width, 240)) \(top + height + 40)\" width=\"\(max(width, 240))\" height=\"\(top + height + 40)\">\n"
        out += "<line x1=\"\(left)\" y1=\"\(top + height)\" x2=\"\(width)\" y2=\"\(top + height)\" class=\"axis\"/>\n"
        out +=
            "<text x=\"\(left - 6)\" y=\"\(top + 10)\" class=\"tick\" text-anchor=\"end\">\(maxTotal)</text><text x=\"\(left - 6)\" y=\"\(top + height)\" class=\"tick\" text-anchor=\"end\">0</text>\n"
        for (i, period) in periods.enumerated() {
            let x = left + gap + i * (barWidth + gap)
            var y = Double(top + height)
            for (k, key) in keys.enumerated() {
                guard let n = perPeriod[period]![key], n > 0 else { continue }
                let h = Double(height) * Double(n) / Double(maxTotal)
                y -= h
                out +=
                    "<rect x=\"\(x)\" y=\(quoted(y)) width=\"\(barWidth)\" height=\(quoted(h)) fill=\"\(color(k))\"><title>\(esc(period)): \(label(key)) \(n)</title></rect>\n"
            }
            out +=
                few
                ? "<text x=\"\(x + barWidth / 2)\" y=\"\(top + height + 14)\" class=\"tick\" text-anchor=\"middle\">\(esc(period))</text>\n"
                : "<text x=\"\(x + barWidth / 2)\" y=\"\(top + height + 14)\" class=\"tick\" text-anchor=\"end\" transform=\"rotate(-30 \(x + barWidth / 2) \(top + height + 14))\">\(esc(period))</text>\n"
        }
        out += "</svg>\n<figcaption>"
        if allPeriods.count > periods.count { out += "The latest \(periods.count) of \(allPeriods.count) periods. " }
        out += "<ul class=\"legend\">"
        for (k, key) in keys.enumerated() {
            out += "<li><span class=\"swatch\" style=\"background:\(color(k))\"></span>\(label(key))</li>"
        }
        out += "</ul></figcaption></figure>\n"

        out += "<div class=\"scroll\"><table><thead><tr><th>error</th><th class=\"n\">sessions</th><th class=\"n\">share</th></tr></thead><tbody>\n"
        for t in totals.prefix(listLimit) {
            out +=
                "<tr><td class=\"mono\">\(esc(t.error))</td><td class=\"n\">\(t.count)</td><td class=\"n\">\(TerminalReport.percent(Double(t.count) / Double(errorSessions)))</td></tr>\n"
        }
        if totals.count > listLimit { out += "<tr><td colspan=\"3\">… \(totals.count - listLimit) more values</td></tr>\n" }
        out += "</tbody></table></div>\n"
        // The most frequent texts per value: a server-wide misconfiguration
        // shows as one text that most errors carry.
        var texts = ""
        for t in totals.prefix(listLimit) {
            for d in stats.topDescriptions(of: t.error) {
                texts += "<tr><td class=\"mono\">\(esc(t.error))</td><td class=\"n\">\(d.count)</td><td>\(esc(d.text))</td></tr>\n"
            }
        }
        if !texts.isEmpty {
            out +=
                "<h3 id=\"error-descriptions\">Most frequent error descriptions</h3>\n<div class=\"scroll\"><table><thead><tr><th>error</th><th class=\"n\">sessions</th><th>error_description</th></tr></thead><tbody>\n"
            out += texts + "</tbody></table></div>\n"
        }
        out += "</section>\n"
        return out
    }

    /// Latency bins in ms: [lower, upper) with a label.
    static let latencyBins: [(UInt64, UInt64, String)] = [
        (0, 100, "<0.1 s"), (100, 250, "0.1–0.25 s"), (250, 500, "0.25–0.5 s"), (500, 1000, "0.5–1 s"),
        (1000, 2000, "1–2 s"), (2000, 5000, "2–5 s"), (5000, 10_000, "5–10 s"), (10_000, 30_000, "10–30 s"),
        (30_000, 60_000, "30–60 s"), (60_000, 300_000, "1–5 min"), (300_000, .max, "≥5 min"),
    ]

    static func latencySection(_ result: AuditResult) -> String {
        let stats = result.statistics
        var out = "<section id=\"latency\"><h2>Request → return latency</h2>\n"
        guard let p = stats.latencyPercentiles else {
            return out + "<p>No session with its request and return on separate records.</p></section>\n"
        }
        out +=
            "<p><span data-total=\"latency_count\">\(p.count)</span> sessions with request and return on separate records: p50 <b>\(TerminalReport.duration(p.p50))</b>, p90 <b>\(TerminalReport.duration(p.p90))</b>, p99 <b>\(TerminalReport.duration(p.p99))</b>.</p>\n"
        let counts = latencyBins.map { bin -> UInt64 in
            let upper = bin.1 == .max ? stats.latency.highestTrackableValue : bin.1 - 1
            return stats.latency.count(within: bin.0...max(bin.0, upper))
        }
        let maxCount = max(counts.max() ?? 1, 1)
        let barWidth = 70, gap = 6, left = 10, top = 16, height = 150
        let width = left + latencyBins.count * (barWidth + gap)
        out +=
            "<figure><svg class=\"chart\" role=\"img\" aria-label=\"Latency histogram\" viewBox=\"0 0 \(width) \(top + height + 36)\" width=\"\(width)\" height=\"\(top + height + 36)\">\n"
        for (i, bin) in latencyBins.enumerated() {
            let x = left + i * (barWidth + gap)
            let h = Double(height) * Double(counts[i]) / Double(maxCount)
            out +=
                "<rect x=\"\(x)\" y=\(quoted(Double(top + height) - h)) width=\"\(barWidth)\" height=\(quoted(h)) class=\"bar\"><title>\(bin.2): \(counts[i])</title></rect>\n"
            if counts[i] > 0 {
                out += "<text x=\"\(x + barWidth / 2)\" y=\(quoted(Double(top + height) - h - 3)) class=\"tick\" text-anchor=\"middle\">\(counts[i])</text>\n"
            }
            out += "<text x=\"\(x + barWidth / 2)\" y=\"\(top + height + 14)\" class=\"tick\" text-anchor=\"middle\">\(HTMLEscaping.escape(bin.2))</text>\n"
        }
        out += "</svg><figcaption>Sessions per latency range (first request to first return).</figcaption></figure></section>\n"
        return out
    }

    static func findingSection(_ result: AuditResult) -> String {
        let stats = result.statistics
        var out = "<section id=\"findings\"><h2>Findings</h2>\n"
        if result.findingCount == 0 { out += "<p>No finding.</p>\n" }
        for severity in Severity.allCases.reversed() {
            let kinds = FindingKind.allCases.filter { $0.severity == severity && (stats.findingsByKind[$0] ?? 0) > 0 }
            guard !kinds.isEmpty else { continue }
            out += "<h3 class=\"sev-head \(severity.rawValue)\" id=\"sev-\(severity.rawValue)\">\(severity.rawValue)</h3>\n"
            for kind in kinds {
                let count = stats.findingsByKind[kind]!
                out += "<article class=\"finding \(severity.rawValue)\" id=\"kind-\(kind.rawValue)\">\n"
                out += "<h4><code>\(kind.rawValue)</code> <span class=\"count\" data-kind=\"\(kind.rawValue)\">\(count)</span></h4>\n"
                out += "<p class=\"meaning\">\(HTMLEscaping.prose(kind.meaning.prefix(1).uppercased() + kind.meaning.dropFirst())).</p>\n"
                out += "<p class=\"fix\"><b>What to fix:</b> \(HTMLEscaping.prose(kind.fix))</p>\n"
                let examples = (result.findingExamples[kind] ?? []).prefix(examplesPerKind)
                if !examples.isEmpty {
                    out +=
                        "<div class=\"scroll\"><table class=\"examples\"><thead><tr><th>source</th><th>time</th><th>state</th><th>detail</th></tr></thead><tbody>\n"
                    for f in examples {
                        out +=
                            "<tr><td class=\"mono\">\(esc(result.describe(f.source)))</td><td class=\"mono time\">\(Timestamp.iso8601(f.time))</td><td class=\"mono\">\(esc(f.state.isEmpty ? "" : Quote.text(f.state)))</td><td>\(esc(f.detail))</td></tr>\n"
                    }
                    out += "</tbody></table></div>\n"
                    if count > examples.count { out += "<p class=\"more\">\(count - examples.count) more in findings.csv (<code>--csv</code>).</p>\n" }
                }
                out += "</article>\n"
            }
        }
        out += "</section>\n"
        return out
    }

    /// A coordinate as a quoted attribute value with one decimal.
    private static func quoted(_ v: Double) -> String {
        "\"\(Double((v * 10).rounded()) / 10)\""
    }

    static let style = """
        :root{--fg:#1d2330;--muted:#5b6475;--line:#d9dde5;--bg:#fff;--soft:#f4f6f9;--crit:#b00020;--high:#d9480f;--med:#b7791f;--low:#2b6cb0;--info:#6b7280}
        *{box-sizing:border-box}
        body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg);margin:0 auto;max-width:1100px;padding:16px}
        h1{font-size:1.6em;margin:0}h2{font-size:1.25em;border-bottom:2px solid var(--line);padding-bottom:4px;margin-top:28px}h3{font-size:1.05em}h4{margin:0 0 4px;font-size:1em}
        .sub{color:var(--muted);margin:2px 0 12px}.about{color:var(--muted);margin:2px 0;font-size:.9em}
        a.sev{text-decoration:none}a.sev:hover,a.sev:focus{text-decoration:underline}.verdict a{font-weight:400}
        code,.mono,pre{font-family:ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:.9em}
        .mono{overflow-wrap:anywhere}.time{white-space:nowrap}
        pre{background:var(--soft);padding:8px;white-space:pre-wrap;word-break:break-all;border-radius:4px}
        .verdict{padding:12px 16px;border-radius:6px;font-weight:600;font-size:1.1em;border:2px solid}
        .verdict p{margin:0}
        .verdict.pass{background:#e6f4ea;border-color:#2e7d32}.verdict.fail,.verdict.blind{background:#fdecea;border-color:var(--crit)}
        .verdict.incomplete{background:#fff4e5;border-color:var(--high)}.verdict.info{background:var(--soft);border-color:var(--line)}
        .cards{display:flex;flex-wrap:wrap;gap:8px}
        .card{flex:1 1 120px;border:1px solid var(--line);border-radius:6px;padding:8px 12px;background:var(--soft)}
        .card .num{display:block;font-size:1.5em;font-weight:700}.card .label{color:var(--muted);font-size:.85em}
        .sev{display:inline-block;margin:4px 8px 0 0;padding:2px 8px;border-radius:10px;color:#fff;font-size:.9em}
        .sev.critical,.sev-head.critical{background:var(--crit)}.sev.high,.sev-head.high{background:var(--high)}.sev.medium,.sev-head.medium{background:var(--med)}.sev.low,.sev-head.low{background:var(--low)}.sev.info,.sev-head.info{background:var(--info)}
        .sev-head{color:#fff;padding:4px 10px;border-radius:4px;text-transform:uppercase;letter-spacing:.05em}
        .scroll{overflow-x:auto}
        table{border-collapse:collapse;margin:8px 0;min-width:50%}
        th,td{border-bottom:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
        th{background:var(--soft)}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
        .note{border-left:4px solid var(--med);background:#fffbeb;padding:4px 12px;margin:8px 0}
        .bad{color:var(--crit)}
        .problems li{margin:2px 0}
        figure{margin:8px 0;overflow-x:auto}
        svg.chart{max-width:100%;height:auto;font:11px system-ui,sans-serif}
        svg .axis{stroke:#888}svg .tick{fill:var(--muted)}svg .bar{fill:#4e79a7}
        .legend{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:4px 16px}
        .swatch{display:inline-block;width:12px;height:12px;margin-right:6px;vertical-align:middle;border-radius:2px}
        .finding{border:1px solid var(--line);border-left-width:6px;border-radius:4px;padding:8px 12px;margin:10px 0;break-inside:avoid}
        .finding.critical{border-left-color:var(--crit)}.finding.high{border-left-color:var(--high)}.finding.medium{border-left-color:var(--med)}.finding.low{border-left-color:var(--low)}
        .finding .count{background:var(--soft);border-radius:10px;padding:0 8px;font-weight:600}
        .finding p{margin:4px 0}.fix{background:#eef6ff;padding:4px 8px;border-radius:4px}.more{color:var(--muted);font-size:.9em}
        footer{color:var(--muted);font-size:.85em;margin-top:32px;border-top:1px solid var(--line)}
        @media (max-width:600px){body{padding:8px;font-size:14px}th,td{padding:3px 4px}.card{flex-basis:40%}}
        @media print{body{max-width:none;font-size:11pt}.scroll,figure{overflow:visible}.finding,table,figure{break-inside:avoid}h2,h3,h4{break-after:avoid}a{color:inherit}.sev,.sev-head{-webkit-print-color-adjust:exact;print-color-adjust:exact}}
        """
}
