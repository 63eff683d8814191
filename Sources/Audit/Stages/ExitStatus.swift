import Rules

/// The exit statuses of docs/contract.md §6, in one place: every command,
/// the metrics' help text and the docs take them from here. Several may
/// apply to one run; the highest of 5, 4, 3, 1 wins (`max`).
package enum ExitStatus: Int32, Sendable, CaseIterable, Comparable {
    /// No finding at or above `--fail-on`, everything read and written,
    /// the input understood.
    case clean = 0
    /// A finding at or above `--fail-on`.
    case findings = 1
    /// A usage error, found before any input is read.
    case usage = 2
    /// Some input could not be read completely (the rest was audited).
    case inputIncomplete = 3
    /// An output could not be written completely (the others were).
    case outputFailed = 4
    /// Blind: an input was mostly not understood, or none was.
    case blind = 5

    /// What it means, in a few words (metrics help, docs).
    package var meaning: String {
        switch self {
        case .clean: return "clean"
        case .findings: return "finding at or above --fail-on"
        case .usage: return "usage error"
        case .inputIncomplete: return "input not read completely"
        case .outputFailed: return "output not written"
        case .blind: return "blind: input not understood"
        }
    }

    /// What it means for an audit, whole (`flipaudit --help`, the manual).
    package var help: String {
        switch self {
        case .clean: return "clean: no finding at or above --fail-on (default never)"
        case .findings: return "a finding at or above --fail-on"
        case .usage:
            return "usage error (checked before any input is read: bad values, an output that would overwrite an input or another output, "
                + "a checkpoint that is locked or has seen an input)"
        case .inputIncomplete: return "some input could not be read completely (everything readable is still reported)"
        case .outputFailed:
            return "an output could not be written completely (full disk, closed or broken standard output; every other output is still written)"
        case .blind: return "blind: an input was mostly not understood, or none was (whatever --fail-on says)"
        }
    }

    /// The audit's exit table as `--help` gives it: every status, which wins.
    package static var helpTable: String {
        "Exit status: " + allCases.map { "\($0.rawValue) \($0.help)" }.joined(separator: "; ")
            + ". The highest of 5, 4, 3, 1 wins; a signal exits with 128 + its number."
    }

    package static func < (a: ExitStatus, b: ExitStatus) -> Bool { a.rawValue < b.rawValue }

    /// The run's status before its outputs are written: blind, input
    /// errors, findings at or above `failOn` (nil: never).
    package static func of(_ result: AuditResult, failOn: Severity?) -> ExitStatus {
        var status = ExitStatus.clean
        if let failOn, let worst = result.worstSeverity, worst >= failOn { status = .findings }
        if result.hadInputErrors { status = max(status, .inputIncomplete) }
        if result.coverage.verdict == .blind { status = max(status, .blind) }
        return status
    }
}

/// Thrown by a driver that has said why it stops: the process exits with it.
extension ExitStatus: Error {}
