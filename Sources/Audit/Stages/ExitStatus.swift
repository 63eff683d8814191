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
