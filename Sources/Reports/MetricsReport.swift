import Audit
import Rules

/// The last run as Prometheus text exposition format, for node_exporter's
/// textfile collector (`--metrics`, docs/contract.md §9).
///
/// Every value describes one run, which the collector serves until the next
/// run replaces the file, so every metric is a gauge (no `_total` suffix:
/// `promtool check metrics` wants that for counters only). Series that a
/// dashboard or an alert names are always present, at 0 when nothing was
/// seen: every finding kind, every input figure, the carried sessions.
/// Values in base units (`_seconds`, `_bytes`). Label values are escaped
/// as the format asks (`\\`, `\"`, `\n`); error values from the logs
/// first have their control characters shown as `\x1b` (as on the
/// terminal), so a file read with `cat` cannot drive the terminal.
package enum MetricsReport {
    /// Most distinct `error` values given a series of their own; the rest
    /// are summed under `error="(other)"`. Error values come from the logs:
    /// without a cap, a client could make any number of series.
    static let errorValueLimit = 20

    /// The label value that sums the error values past `errorValueLimit`.
    package static let otherErrors = "(other)"

    /// The metrics file.
    /// - Parameters:
    ///   - exitStatus: the run's exit status.
    ///   - duration: how long the run took, in seconds.
    ///   - now: when the run ended, in seconds since 1970.
    ///   - previousSuccess: `flipaudit_last_success_timestamp_seconds` of
    ///     the file being replaced, kept when this run did not succeed, so
    ///     the "last success too old" alert keeps its series.
    ///   - carriedIn, carriedOut: sessions carried from the previous run
    ///     and to the next (0 until checkpoints exist; present so the
    ///     names are stable).
    package static func render(
        _ result: AuditResult, exitStatus: Int32, duration: Double, now: Double,
        previousSuccess: Double? = nil, carriedIn: Int = 0, carriedOut: Int = 0
    ) -> String {
        var out = MetricsText()
        let stats = result.statistics
        let a = result.accounting

        func family(_ name: String, _ help: String, _ samples: [([(String, String)], String)]) { out.family(name, "gauge", help, samples) }
        func single(_ name: String, _ help: String, _ value: String) { out.single(name, "gauge", help, value) }

        family(
            "flipaudit_findings", "Findings of the last run, by kind and severity.",
            FindingKind.allCases.map { ([("kind", $0.rawValue), ("severity", $0.severity.rawValue)], String(stats.findingsByKind[$0] ?? 0)) })

        var sessionSamples: [([(String, String)], String)] = []
        for group in stats.outcomes.keys.sorted() {
            let counts = stats.outcomes[group]!
            for outcome in Outcome.allCases {
                sessionSamples.append(
                    (
                        [
                            ("outcome", outcome.rawValue), ("flow", group.flow.rawValue), ("app", group.app.rawValue),
                            ("environment", group.environment.rawValue),
                        ], String(counts[outcome] ?? 0)
                    ))
            }
        }
        family("flipaudit_sessions", "Sessions of the last run, by outcome, flow, Google app and environment.", sessionSamples)

        family(
            "flipaudit_error_sessions",
            "Sessions of the last run with outcome error, by error value (at most \(errorValueLimit) series: the most frequent, the rest as error=\"\(otherErrors)\").",
            errorSamples(stats.errorTotals).map { ([("error", shown($0.error))], String($0.count)) })

        let coverage = result.coverage
        family(
            "flipaudit_coverage",
            "1 for the last run's coverage verdict: complete, partial (a check did not run), blind (input not understood; exit status 5).",
            Coverage.Verdict.allCases.map { ([("verdict", $0.rawValue)], coverage.verdict == $0 ? "1" : "0") })
        family(
            "flipaudit_coverage_gaps", "Checks of the last run that did not run, or not everywhere, by check.",
            Coverage.checks.map { check in ([("check", check)], String(coverage.gaps.filter { $0.check == check }.count)) })
        single("flipaudit_input_files", "Input files of the last run.", String(a.files))
        single("flipaudit_input_files_with_errors", "Inputs that could not be read completely (missing, unreadable, damaged).", String(a.filesWithErrors))
        single("flipaudit_input_compressed_bytes", "Bytes read from the inputs as stored (compressed for gzip).", String(a.compressedBytes))
        single("flipaudit_input_uncompressed_bytes", "Bytes of the inputs after decompression.", String(a.uncompressedBytes))
        single("flipaudit_input_lines", "Lines read.", String(a.lines))
        single("flipaudit_input_records", "Log records parsed.", String(a.records))
        single("flipaudit_input_malformed_lines", "Lines that could not be parsed (counted, skipped).", String(a.malformedLines))
        single(
            "flipaudit_input_notice_lines", "Lines that are a server's notices, not requests (HAProxy's messages, error logs): understood, not audited.",
            String(a.notices))
        single("flipaudit_input_flip_records", "In-scope App Flip records.", String(a.inScopeFlipRecords))
        single(
            "flipaudit_late_records", "Records older than the checkpoint's watermark less the reorder window, left out of the audit.",
            String(a.lateRecords))
        single("flipaudit_mostly_late", "1 when most records of the last run were late (nights given out of order).", result.mostlyLate ? "1" : "0")
        single("flipaudit_streams", "Streams the last run read: one server's consecutive files each.", String(result.streams.count))
        family(
            "flipaudit_tier_twins",
            "Requests logged by both inputs of a pair read as tiers (a proxy and its backend), audited once, by the pair.",
            result.tiers.map { ([("first", shown($0.first)), ("second", shown($0.second))], String($0.shared)) })
        family(
            "flipaudit_quiet_stream_last_record_timestamp_seconds",
            "Streams whose last record lies more than the session timeout before the newest stream's end (they hold nothing back), by their last file: that record's time, in seconds since 1970.",
            result.quietStreams.map { ([("stream", shown($0.name))], number(Double($0.last) / 1000)) })
        single(
            "flipaudit_waiting_records", "Flip records after the watermark, carried to the next run (--checkpoint; the coverage is partial).",
            String(result.waiting?.count ?? 0))
        single(
            "flipaudit_duplicate_records", "Flip records equal to one of another input or of the previous run's end, audited once.",
            String(a.duplicateRecords))
        single("flipaudit_sessions_closed_early", "Sessions closed early because more than --max-sessions were open at once.", String(result.evictedSessions))
        single("flipaudit_sessions_carried_in", "Open sessions carried in from the previous run's checkpoint.", String(carriedIn))
        single("flipaudit_sessions_carried_out", "Open sessions carried out to the next run's checkpoint.", String(carriedOut))
        single("flipaudit_last_run_duration_seconds", "How long the last run took.", number(duration))
        single(
            "flipaudit_last_run_exit_status",
            "Exit status of the last run ("
                + ExitStatus.allCases.filter { $0 != .usage }.map { "\($0.rawValue) \($0.meaning)" }.joined(separator: ", ") + ").",
            String(exitStatus))
        single("flipaudit_last_run_timestamp_seconds", "When the last run ended, in seconds since 1970.", number(now))
        let success = exitStatus == 0 || exitStatus == 1 ? now : previousSuccess
        if let success {
            single(
                "flipaudit_last_success_timestamp_seconds",
                "When the last run that read all its input and wrote all its outputs ended (exit status 0 or 1), in seconds since 1970.", number(success))
        }
        return out.text
    }

    /// Error values with their counts, most frequent first, capped at
    /// `errorValueLimit` series: past it, the most frequent but one, and
    /// the rest summed as `otherErrors` (with a value from the logs that
    /// is itself `(other)`, so that no series is written twice).
    static func errorSamples(_ totals: [(error: String, count: Int)]) -> [(error: String, count: Int)] {
        guard totals.count > errorValueLimit else { return totals }
        let values = totals.filter { $0.error != otherErrors }
        let kept = Array(values.prefix(errorValueLimit - 1))
        let rest = totals.reduce(0) { $0 + $1.count } - kept.reduce(0) { $0 + $1.count }
        return kept + [(otherErrors, rest)]
    }

    /// An error value from the logs as its label shows it: a backslash
    /// doubled, then control characters as `\x1b` (as on the terminal),
    /// so that two different values never show alike (a line feed and the
    /// text `\x0a`) and a file read with `cat` cannot drive the terminal.
    static func shown(_ error: String) -> String {
        TerminalText.escape(error.contains("\\") ? error.replacingOccurrences(of: "\\", with: "\\\\") : error)
    }

    /// A float as Go's parser reads it: integers without a fraction,
    /// others with millisecond precision.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return value.isNaN ? "NaN" : (value > 0 ? "+Inf" : "-Inf") }
        if value == value.rounded() && abs(value) < 1e15 { return String(Int64(value)) }
        let ms = (value * 1000).rounded() / 1000
        return String(ms)
    }

    /// The `flipaudit_last_success_timestamp_seconds` value of an earlier
    /// metrics file, if it has one.
    package static func lastSuccess(in text: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix("flipaudit_last_success_timestamp_seconds ") {
            return Double(line.dropFirst("flipaudit_last_success_timestamp_seconds ".count))
        }
        return nil
    }
}
