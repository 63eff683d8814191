import Parsing
import Rules

/// What a follower can see now (docs/follow.md, "Clean is not blind,
/// live"): the batch's coverage verdict, judged on what is followed at
/// this moment. `blind` when a followed file's lines are mostly not
/// understood (the batch's rule, on the lines read from it since it was
/// opened) or when no file is followed at all; `partial` when an input
/// cannot be seen (a pattern that matches nothing, a name missing, a file
/// that cannot be read), or a file's returns cannot be seen (its sessions
/// closed `unobservable`: it logs no Location); `complete` otherwise. A verdict other than
/// `complete` is said at start, on each change and every hour, makes
/// `/healthz` 503 and sets `flipaudit_follow_coverage`.
struct LiveCoverage {
    var verdict: Coverage.Verdict
    /// Why, one clause per input or file, by name.
    var reasons: [String]
    /// The inputs and files the reasons are about: what a change is.
    var names: [String]
    /// Inputs not seen (named, or patterns) and files followed but blind.
    var unseen: Int
    var blind: Int

    static let complete = LiveCoverage(verdict: .complete, reasons: [], names: [], unseen: 0, blind: 0)

    /// The same verdict about the same inputs (the shares in the reasons
    /// move with every line read).
    func sameAs(_ other: LiveCoverage) -> Bool { verdict == other.verdict && names == other.names }

    /// `unseen`: an input (a name or a pattern) and why it is not seen;
    /// `followed`: each file followed under a name now, with the lines read
    /// from it and the formats they fit; `unobservable`: the followed files
    /// whose returns cannot be seen.
    static func judge(
        unseen: [(input: String, why: String)], followed: [(name: String, accounting: InputAccounting, tally: FormatTally)],
        unobservable: [String] = [], format: AuditConfiguration.Format
    ) -> LiveCoverage {
        var reasons = unseen.map { "\($0.input) \($0.why)" }
        var names = unseen.map(\.input)
        var blind = 0
        for file in followed {
            guard let hint = FormatTally.hint(file.accounting, tally: file.tally, setting: format) else { continue }
            blind += 1
            reasons.append("\(file.name): \(hint)")
            names.append(file.name)
        }
        for name in unobservable {
            reasons.append(
                "\(name): returns to Google not observable (no Location logged): the code, error-return and redirect checks do not run on its sessions")
            names.append(name)
        }
        let verdict: Coverage.Verdict = blind > 0 || followed.isEmpty ? .blind : unseen.isEmpty && unobservable.isEmpty ? .complete : .partial
        if followed.isEmpty && unseen.isEmpty { reasons.append("no file is followed") }
        return LiveCoverage(verdict: verdict, reasons: reasons, names: names, unseen: unseen.count, blind: blind)
    }

    /// One line: the verdict and its reasons (the first few, and how many more).
    var sentence: String {
        guard !reasons.isEmpty else { return "coverage \(verdict.rawValue)" }
        let shown = reasons.prefix(Self.reasonsShown).joined(separator: "; ")
        let more = reasons.count > Self.reasonsShown ? "; and \(reasons.count - Self.reasonsShown) more" : ""
        return "coverage \(verdict.rawValue): \(shown)\(more)"
    }

    /// Reasons a sentence names; the gauges count them all.
    static let reasonsShown = 5
}
