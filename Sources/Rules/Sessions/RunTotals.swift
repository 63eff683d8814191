import Foundation

/// One run's totals as the checkpoint keeps them for the report's trends
/// (docs/contract.md §9): findings by kind and by severity, sessions by
/// outcome, and returns by error value (the `errorValuesKept` most
/// frequent; the rest added up in `otherErrors`, so a flood of made-up
/// values cannot grow the checkpoint). The last `kept` runs are kept.
package struct RunTotals: Sendable, Equatable, Codable {
    /// Runs kept in a checkpoint.
    package static let kept = 60
    /// Error values kept per run.
    package static let errorValuesKept = 20

    /// The run's number in its chain (`Checkpoint.run`).
    package var run: Int
    /// When the run started (milliseconds of the wall clock).
    package var started: Int64
    /// Findings by kind (`FindingKind` raw values); kinds not found left out.
    package var findings: [String: Int]
    /// Findings by severity.
    var severities: [String: Int]
    /// Sessions by outcome.
    package var outcomes: [String: Int]
    /// Returns by error value.
    package var errors: [String: Int]
    /// Returns with an error value not among `errors`.
    package var otherErrors: Int

    package init(
        run: Int, started: Int64, findings: [String: Int], severities: [String: Int], outcomes: [String: Int],
        errors: [String: Int], otherErrors: Int
    ) {
        self.run = run
        self.started = started
        self.findings = findings
        self.severities = severities
        self.outcomes = outcomes
        self.errors = errors
        self.otherErrors = otherErrors
    }

    /// The totals of a run's statistics.
    package init(_ stats: AuditStatistics, run: Int, started: Int64) {
        self.run = run
        self.started = started
        findings = Dictionary(uniqueKeysWithValues: stats.findingsByKind.filter { $0.value > 0 }.map { ($0.key.rawValue, $0.value) })
        severities = Dictionary(uniqueKeysWithValues: stats.findingsBySeverity.filter { $0.value > 0 }.map { ($0.key.rawValue, $0.value) })
        outcomes = Dictionary(uniqueKeysWithValues: stats.outcomeTotals.filter { $0.value > 0 }.map { ($0.key.rawValue, $0.value) })
        let ranked = stats.errorTotals.sorted { ($1.count, $0.error) < ($0.count, $1.error) }
        errors = Dictionary(uniqueKeysWithValues: ranked.prefix(Self.errorValuesKept).map { ($0.error, $0.count) })
        otherErrors = ranked.dropFirst(Self.errorValuesKept).reduce(0) { $0 + $1.count }
    }

    /// The fields after `run` and `started` on a `totals` line: JSON with
    /// sorted keys.
    private struct Body: Codable {
        var errors: [String: Int]
        var findings: [String: Int]
        var other_errors: Int
        var outcomes: [String: Int]
        var severities: [String: Int]
    }

    /// The body of the checkpoint's `totals` line.
    var bodyJSON: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body = Body(errors: errors, findings: findings, other_errors: otherErrors, outcomes: outcomes, severities: severities)
        // Dictionaries of String and Int always encode.
        return String(decoding: (try? encoder.encode(body)) ?? Data("{}".utf8), as: UTF8.self)
    }

    /// Reads a `totals` line's body, checking every name and count.
    static func decode(run: Int, started: Int64, body: String) throws(TextFields.Malformed) -> RunTotals {
        let parsed: Body
        do { parsed = try JSONDecoder().decode(Body.self, from: Data(body.utf8)) } catch {
            throw TextFields.Malformed(reason: "bad totals")
        }
        let bound = Int(Checkpoint.countBound)
        func counts(_ d: [String: Int], _ names: Set<String>?) throws(TextFields.Malformed) {
            for (name, n) in d {
                guard (0...bound).contains(n) else { throw TextFields.Malformed(reason: "totals count out of range") }
                if let names, !names.contains(name) { throw TextFields.Malformed(reason: "unknown name in totals") }
            }
        }
        try counts(parsed.findings, Set(FindingKind.allCases.map(\.rawValue)))
        try counts(parsed.severities, Set(Severity.allCases.map(\.rawValue)))
        try counts(parsed.outcomes, Set(Outcome.allCases.map(\.rawValue)))
        try counts(parsed.errors, nil)
        guard parsed.errors.count <= errorValuesKept, (0...bound).contains(parsed.other_errors) else {
            throw TextFields.Malformed(reason: "too many error values in totals")
        }
        return RunTotals(
            run: run, started: started, findings: parsed.findings, severities: parsed.severities, outcomes: parsed.outcomes,
            errors: parsed.errors, otherErrors: parsed.other_errors)
    }
}
