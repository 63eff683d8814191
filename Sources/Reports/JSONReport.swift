import Audit
import Foundation
import Parsing
import Rules

/// The summary report as one JSON document (`--json`): accounting,
/// outcomes, error distribution, latency, findings per kind with their first
/// examples. The full lists are the CSV files. Keys are snake_case and
/// sorted, so the same input gives the same bytes. The document follows
/// docs/schema/flipaudit-report.schema.json; `schema` names its version.
package enum JSONReport {
    /// The `schema` value: raised when a key changes meaning or type or is
    /// removed (added keys keep it; readers ignore keys they do not know).
    static let schema = "flipaudit-report/1"

    struct Document: Encodable {
        var schema = JSONReport.schema
        var tool = "flipaudit"
        /// What the run could check, first (docs/contract.md §5).
        var coverage: CoverageDoc
        var input: InputAccounting
        var files: [FileSummary]
        var input_errors: [String]
        var sessions: Int
        var outcomes: [String: Int]
        var outcomes_by_group: [GroupOutcomes]
        var error_distribution: [ErrorRow]
        var error_totals: [ErrorTotal]
        var latency_ms: Latency?
        var findings: Findings
        var unpinned_project_ids: [String]
        var evicted_sessions: Int
        /// Open sessions taken from and handed to the checkpoint.
        var carried_in: Int
        var carried_out: Int
        var unobservable_files: [String]
        /// When most records were late: the checkpoint's watermark they
        /// lay before (nights given out of order); nil otherwise.
        var mostly_late: MostlyLate?
        /// Finding kinds this run found and the chain's previous run did
        /// not (`--checkpoint`; empty otherwise).
        var new_kinds: [String]
        /// How the run read the deployment: its streams, the quiet ones,
        /// what waits for the next run, the inputs seen before.
        var deployment: Deployment
    }

    struct Deployment: Encodable {
        /// Pairs of inputs read as tiers of one another (a proxy and its
        /// backend), with the requests both logged (audited once).
        var tiers: [Tier]
        /// Pairs of inputs whose records sit a whole number of quarter
        /// hours apart: read in different zones (absent when none).
        var offsets: [Offset]?
        var streams: [Stream]
        /// Flip records after the watermark, carried to the next run.
        var waiting: Waiting?
        /// What was said of each input an earlier run of the chain audited
        /// (skipped).
        var skipped: [String]
    }

    struct Offset: Encodable {
        var first: String
        var second: String
        /// How far `second`'s records sit after `first`'s.
        var offset_seconds: Int64
        var states: Int
        /// The one of the two whose times carry no zone (read in --tz).
        var zoneless: String?
    }

    struct Tier: Encodable {
        var first: String
        var second: String
        var shared: Int
    }

    struct Stream: Encodable {
        var files: [String]
        var last_record: String
        var quiet: Bool
    }

    struct Waiting: Encodable {
        var records: Int
        var stream: String
        var watermark: String
    }

    struct CoverageDoc: Encodable {
        var verdict: String
        var gaps: [GapDoc]
        var unseen_client_ids: [String]
    }

    struct GapDoc: Encodable {
        var check: String
        var detail: String
    }

    struct MostlyLate: Encodable {
        var late_records: Int
        var records: Int
        var watermark: String
    }

    struct GroupOutcomes: Encodable {
        var flow: String, app: String, environment: String
        var outcomes: [String: Int]
    }

    struct ErrorRow: Encodable {
        var period: String, flow: String, app: String, environment: String, error: String
        var count: Int
        var share: Double
    }

    struct ErrorTotal: Encodable {
        var error: String
        var count: Int
        var share: Double
        /// The most frequent `error_description` texts (docs/contract.md §5).
        var descriptions: [DescriptionCount]
    }

    struct DescriptionCount: Encodable {
        var text: String
        var count: Int
    }

    struct Latency: Encodable {
        var count: UInt64, p50: UInt64, p90: UInt64, p99: UInt64
    }

    struct Findings: Encodable {
        var total: Int
        var by_severity: [String: Int]
        var by_kind: [KindSummary]
    }

    struct KindSummary: Encodable {
        var kind: String, severity: String, meaning: String
        var count: Int
        var examples: [Example]
    }

    struct Example: Encodable {
        var time: String, state: String, detail: String, source: String
    }

    /// How many examples each kind lists.
    package static let examplesPerKind = 3

    package static func render(_ result: AuditResult) throws -> String {
        let stats = result.statistics
        let errorTotal = stats.errorTotals.reduce(0) { $0 + $1.count }
        let examples = result.findingExamples.mapValues { list in
            list.prefix(examplesPerKind).map { f in
                Example(time: Timestamp.iso8601(f.time), state: f.state, detail: f.detail, source: result.describe(f.source))
            }
        }
        let coverage = result.coverage
        let doc = Document(
            coverage: CoverageDoc(
                verdict: coverage.verdict.rawValue, gaps: coverage.gaps.map { GapDoc(check: $0.check, detail: $0.detail) },
                unseen_client_ids: coverage.unseenClientIDs),
            input: result.accounting,
            files: result.files,
            input_errors: result.inputErrors,
            sessions: stats.sessions,
            outcomes: Dictionary(uniqueKeysWithValues: Outcome.allCases.map { ($0.rawValue, stats.outcomeTotals[$0] ?? 0) }),
            outcomes_by_group: stats.outcomes.keys.sorted().map { g in
                GroupOutcomes(
                    flow: g.flow.rawValue, app: g.app.rawValue, environment: g.environment.rawValue,
                    outcomes: Dictionary(uniqueKeysWithValues: stats.outcomes[g]!.map { ($0.key.rawValue, $0.value) }))
            },
            error_distribution: stats.errorDistributionRows.map {
                ErrorRow(
                    period: $0.period, flow: $0.group.flow.rawValue, app: $0.group.app.rawValue,
                    environment: $0.group.environment.rawValue, error: $0.error, count: $0.count, share: rounded($0.share))
            },
            error_totals: stats.errorTotals.map {
                ErrorTotal(
                    error: $0.error, count: $0.count, share: rounded(Double($0.count) / Double(max(errorTotal, 1))),
                    descriptions: stats.topDescriptions(of: $0.error).map { DescriptionCount(text: $0.text, count: $0.count) })
            },
            latency_ms: stats.latencyPercentiles.map { Latency(count: $0.count, p50: $0.p50, p90: $0.p90, p99: $0.p99) },
            findings: Findings(
                total: result.findingCount,
                by_severity: Dictionary(uniqueKeysWithValues: Severity.allCases.map { ($0.rawValue, stats.findingsBySeverity[$0] ?? 0) }),
                by_kind: FindingKind.allCases.compactMap { kind in
                    guard let count = stats.findingsByKind[kind] else { return nil }
                    return KindSummary(
                        kind: kind.rawValue, severity: kind.severity.rawValue, meaning: kind.meaning,
                        count: count, examples: examples[kind] ?? [])
                }),
            unpinned_project_ids: result.unpinnedProjectIDs,
            evicted_sessions: result.evictedSessions,
            carried_in: result.carriedIn,
            carried_out: result.carriedOut,
            unobservable_files: result.unobservableFiles,
            mostly_late: result.mostlyLate
                ? MostlyLate(
                    late_records: result.accounting.lateRecords, records: result.accounting.records,
                    watermark: Timestamp.iso8601(result.previousWatermark ?? 0))
                : nil,
            new_kinds: result.newKinds.map(\.rawValue),
            deployment: Deployment(
                tiers: result.tiers.map { Tier(first: $0.first, second: $0.second, shared: $0.shared) },
                offsets: result.offsets.isEmpty
                    ? nil
                    : result.offsets.map {
                        Offset(first: $0.first, second: $0.second, offset_seconds: $0.offset / 1000, states: $0.states, zoneless: $0.zoneless)
                    },
                streams: result.streams.map { Stream(files: $0.files, last_record: Timestamp.iso8601($0.last), quiet: $0.quiet) },
                waiting: result.waiting.map { Waiting(records: $0.count, stream: $0.stream, watermark: Timestamp.iso8601($0.watermark)) },
                skipped: result.skipped))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(doc)
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    private static func rounded(_ v: Double) -> Double { (v * 10_000).rounded() / 10_000 }
}
