import Reading
import Rules

/// Everything an audit found, ready for the reports.
package struct AuditResult: Sendable {
    package var configuration: AuditConfiguration
    package var inputs: [InputFile]
    package var accounting: InputAccounting
    package var files: [FileSummary]
    /// Problems that made some input unreadable: `NAME: message`.
    package var inputErrors: [String]
    /// The first findings of each kind, in row order (the full list is the
    /// rows handed to the `RowSink`s).
    package var findingExamples: [FindingKind: [Finding]]
    package var statistics: AuditStatistics
    /// Sessions closed early because `--max-sessions` were open.
    package var evictedSessions: Int
    /// Project IDs of `/r/ID` redirects accepted because none is pinned.
    package var unpinnedProjectIDs: [String]
    /// Files whose sessions were `unobservable` (no Location logged).
    package var unobservableFiles: [String]
    /// What the run could check (docs/contract.md §5).
    package var coverage: Coverage {
        Coverage.judge(
            files: files, accounting: accounting, inputErrors: inputErrors, unobservable: unobservableFiles,
            clientIDs: configuration.clientIDs, clientIDsSeen: statistics.clientIDsSeen,
            waiting: waiting.map { ($0.count, $0.stream, $0.watermark) }, skipped: skipped)
    }
    /// Inputs an earlier run of the chain audited, left out: what was said
    /// of each (docs/contract.md §9).
    package var skipped: [String] = []
    /// The streams the run read (docs/contract.md §9): one server's
    /// consecutive files each, in the order they ended.
    package var streams: [StreamSummary] = []
    /// Streams whose last record lies more than the session timeout
    /// before the newest stream's end: they held nothing back.
    package var quietStreams: [StreamSummary] { streams.filter(\.quiet) }
    /// Flip records past the watermark, carried for the next run.
    package var waiting: WaitingRecords?
    /// Pairs of inputs read as tiers (a proxy and its backend), with the
    /// requests they shared (audited once).
    package var tiers: [TierPair] = []
    /// Pairs of inputs whose records sit a whole number of quarter hours
    /// apart (read in different zones), said first.
    package var offsets: [ClockOffset] = []
    /// Names of earlier runs' inputs that carried sessions' sources name
    /// (ranked after `inputs`).
    var carriedFiles: [String] = []
    /// Open sessions taken in from the previous run's checkpoint.
    package var carriedIn = 0
    /// The previous run's watermark, when a checkpoint was taken in:
    /// records older than it by more than the reorder window are late.
    package var previousWatermark: Int64?
    /// The night this run audited: the least of the inputs' newest
    /// audited record times, never before the previous run's watermark;
    /// nil when no record was audited (`--csv …/{date}`).
    package var watermark: Int64?
    /// Whether most records were late: nights given out of order.
    package var mostlyLate: Bool { accounting.lateRecords > 0 && accounting.lateRecords * 2 > accounting.records }
    /// What this run hands to the next, when it carries (`--checkpoint`):
    /// its open sessions (`carriedOut`), memories, clock and key.
    package var checkpoint: Checkpoint?
    package var carriedOut: Int { checkpoint?.openSessions ?? 0 }
    /// The totals of the chain's last runs, this one last (`--checkpoint`;
    /// empty without): the report's trends.
    package var trends: [RunTotals] = []
    /// Finding kinds this run found and the previous run of the chain did
    /// not (empty for a chain's first run and without `--checkpoint`).
    package var newKinds: [FindingKind] {
        guard trends.count >= 2 else { return [] }
        let (now, before) = (trends[trends.count - 1], trends[trends.count - 2])
        return FindingKind.allCases.filter { (now.findings[$0.rawValue] ?? 0) > 0 && (before.findings[$0.rawValue] ?? 0) == 0 }
    }

    /// `FILE:LINE` of a source.
    package func describe(_ source: SourceRef) -> String {
        let i = Int(source.file)
        let name =
            inputs.indices.contains(i)
            ? inputs[i].displayName
            : carriedFiles.indices.contains(i - inputs.count) ? carriedFiles[i - inputs.count] : "?"
        return "\(name):\(source.line)"
    }

    /// Whether some input could not be read completely (exit 3).
    package var hadInputErrors: Bool { !inputErrors.isEmpty }

    /// The most severe finding, if any.
    package var worstSeverity: Severity? { statistics.findingsBySeverity.filter { $0.value > 0 }.keys.max() }

    /// How many findings there were.
    package var findingCount: Int { statistics.findingsByKind.values.reduce(0, +) }
}

/// One stream of the deployment (docs/contract.md §9): a server's
/// consecutive files, the time of its last record, and whether it went
/// quiet (its last record more than the session timeout before the newest
/// stream's end: it held nothing back).
package struct StreamSummary: Sendable, Equatable {
    package var files: [String]
    package var last: Int64
    package var quiet: Bool
    /// Its last file: the name it is told by.
    package var name: String { files.last ?? "" }
}

/// Flip records past the watermark, which wait for the next run, and the
/// stream whose end is the watermark.
package struct WaitingRecords: Sendable, Equatable {
    package var count: Int
    package var stream: String
    package var watermark: Int64
}

/// Two inputs read as tiers of one another (docs/contract.md §9): the
/// requests both logged, audited once.
package struct TierPair: Sendable, Equatable {
    package var first: String
    package var second: String
    package var shared: Int
}
