import Histogram
import Parsing

/// A (flow, app, environment) group, the unit of docs/contract.md §5's breakdowns.
package struct TargetGroup: Hashable, Comparable, Sendable {
    package var flow: Flow
    package var app: GoogleApp
    package var environment: GoogleEnvironment

    package static func < (a: Self, b: Self) -> Bool {
        (a.flow.sortRank, a.app.sortRank, a.environment.sortRank) < (b.flow.sortRank, b.app.sortRank, b.environment.sortRank)
    }

    /// Hashes the three ranks as one number (the enums' raw Strings would
    /// be hashed otherwise, once per session).
    package func hash(into hasher: inout Hasher) {
        hasher.combine(index)
    }

    /// Every group, in `index` order.
    static let all: [TargetGroup] = Flow.allCases.flatMap { flow in
        GoogleApp.allCases.flatMap { app in GoogleEnvironment.allCases.map { TargetGroup(flow: flow, app: app, environment: $0) } }
    }

    private static let apps = GoogleApp.allCases.count
    private static let environments = GoogleEnvironment.allCases.count

    /// The group's place in `all` (its three ranks as one number).
    var index: Int { (flow.sortRank * Self.apps + app.sortRank) * Self.environments + environment.sortRank }
}

/// One cell of the error-type distribution.
package struct ErrorBucket: Hashable, Comparable, Sendable {
    package var period: String
    package var group: TargetGroup
    package var error: String

    package static func < (a: Self, b: Self) -> Bool {
        if a.period != b.period { return a.period < b.period }
        if a.group != b.group { return a.group < b.group }
        return a.error < b.error
    }
}

/// docs/contract.md §5's statistics, gathered from closed sessions and findings.
package struct AuditStatistics: Sendable {
    /// Sessions by group and outcome: counted in one flat array (by
    /// `TargetGroup.index` and `Outcome.rank`), not hashed per session.
    private var outcomeCounts = [Int](repeating: 0, count: TargetGroup.all.count * Self.outcomeKinds)
    private static let outcomeKinds = Outcome.allCases.count
    /// Sessions by group and outcome: the groups and outcomes that had any.
    package var outcomes: [TargetGroup: [Outcome: Int]] {
        var result: [TargetGroup: [Outcome: Int]] = [:]
        for group in TargetGroup.all {
            for outcome in Outcome.allCases {
                let n = outcomeCounts[group.index * Self.outcomeKinds + outcome.rank]
                if n > 0 { result[group, default: [:]][outcome] = n }
            }
        }
        return result
    }
    /// Sessions by outcome: the outcomes that had any.
    package var outcomeTotals: [Outcome: Int] {
        var result: [Outcome: Int] = [:]
        for outcome in Outcome.allCases {
            let n = TargetGroup.all.reduce(0) { $0 + outcomeCounts[$1.index * Self.outcomeKinds + outcome.rank] }
            if n > 0 { result[outcome] = n }
        }
        return result
    }
    /// Sessions with outcome `error`, by period, group and error value.
    package var errors: [ErrorBucket: Int] = [:]
    /// Request→return latency in ms, for returns on a separate record.
    package var latency = Histogram<UInt64>(highestTrackableValue: 7 * 24 * 3_600_000, numberOfSignificantValueDigits: .three)
    /// Per error value, how many sessions with outcome `error` returned
    /// each `error_description` text (cut as `descriptionText` cuts it;
    /// sessions without one are not counted). At most
    /// `descriptionTextsPerError` texts are counted per value: later new
    /// ones only in `otherDescriptions`, so a flood of unique texts cannot
    /// fill the memory.
    package var descriptions: [String: [String: Int]] = [:]
    var otherDescriptions: [String: Int] = [:]
    package var findingsByKind: [FindingKind: Int] = [:]
    package var findingsBySeverity: [Severity: Int] = [:]
    package var sessions = 0
    /// Earliest and latest time (ms) of a session's records or a finding:
    /// the time range the reports name.
    package var firstTime: Int64?
    package var lastTime: Int64?

    let bucket: AuditConfiguration.Bucket
    /// The configured client IDs (`--client-id`), and those a session's
    /// request carried: coverage's client ID check ran only if one did.
    let configuredClientIDs: Set<String>
    package private(set) var clientIDsSeen = Set<String>()

    package init(bucket: AuditConfiguration.Bucket, clientIDs: Set<String> = []) {
        self.bucket = bucket
        configuredClientIDs = clientIDs
    }

    package mutating func add(_ session: SessionRecord) {
        sessions += 1
        if !configuredClientIDs.isEmpty, configuredClientIDs.contains(session.clientID) { clientIDsSeen.insert(session.clientID) }
        noteTime(session.firstSeen)
        noteTime(session.lastSeen)
        let group = TargetGroup(flow: session.target.flow, app: session.target.app, environment: session.target.environment)
        outcomeCounts[group.index * Self.outcomeKinds + session.outcome.rank] += 1
        if session.outcome == .error {
            errors[ErrorBucket(period: period(session.firstSeen), group: group, error: session.error), default: 0] += 1
            if !session.errorDescription.isEmpty { addDescription(session.errorDescription, of: session.error) }
        }
        if let ms = session.latencyMs, session.latencyAcrossRecords {
            _ = latency.record(UInt64(max(0, min(ms, 7 * 24 * 3_600_000))))
        }
    }

    /// How many texts per error value are counted; how many are shown;
    /// how many characters of a text are kept.
    static let descriptionTextsPerError = 256
    static let descriptionsShown = 3
    static let descriptionCharacters = 200

    /// The text as counted and shown: its first 200 characters, and `…`
    /// when it was longer (docs/contract.md §5).
    static func descriptionText(_ text: String) -> String {
        // No more bytes than the limit: no more characters either.
        if text.utf8.count <= descriptionCharacters { return text }
        var cut = text.prefix(descriptionCharacters + 1)
        guard cut.count > descriptionCharacters else { return text }
        cut.removeLast()
        return String(cut) + "…"
    }

    private mutating func addDescription(_ raw: String, of error: String) {
        let text = Self.descriptionText(raw)
        if descriptions[error]?[text] != nil || (descriptions[error]?.count ?? 0) < Self.descriptionTextsPerError {
            descriptions[error, default: [:]][text, default: 0] += 1
        } else {
            otherDescriptions[error, default: 0] += 1
        }
    }

    /// The most frequent `error_description` texts of `error` (most
    /// frequent first, then by text), at most `descriptionsShown`.
    package func topDescriptions(of error: String) -> [(text: String, count: Int)] {
        guard let texts = descriptions[error] else { return [] }
        let ranked: [(text: String, count: Int)] = texts.map { (text: $0.key, count: $0.value) }
            .sorted { a, b in a.count != b.count ? a.count > b.count : a.text < b.text }
        return Array(ranked.prefix(Self.descriptionsShown))
    }

    private mutating func noteTime(_ t: Int64) {
        if firstTime.map({ t < $0 }) ?? true { firstTime = t }
        if lastTime.map({ t > $0 }) ?? true { lastTime = t }
    }

    package mutating func add(_ finding: Finding) {
        noteTime(finding.time)
        findingsByKind[finding.kind, default: 0] += 1
        findingsBySeverity[finding.severity, default: 0] += 1
    }

    func period(_ time: Int64) -> String {
        switch bucket {
        case .day: return Timestamp.period(time, hourly: false)
        case .hour: return Timestamp.period(time, hourly: true)
        case .none: return "all"
        }
    }

    /// Latency percentiles in ms, or nil without samples.
    package var latencyPercentiles: (p50: UInt64, p90: UInt64, p99: UInt64, count: UInt64)? {
        guard latency.totalCount > 0 else { return nil }
        return (latency.valueAtPercentile(50), latency.valueAtPercentile(90), latency.valueAtPercentile(99), latency.totalCount)
    }

    /// Error-distribution rows of docs/contract.md §7: per (period, group) the values
    /// and a `*` total, with share = count / total.
    package var errorDistributionRows: [(period: String, group: TargetGroup, error: String, count: Int, share: Double)] {
        var totals: [String: [TargetGroup: Int]] = [:]
        for (key, count) in errors { totals[key.period, default: [:]][key.group, default: 0] += count }
        var rows: [(String, TargetGroup, String, Int, Double)] = []
        for period in totals.keys.sorted() {
            for group in totals[period]!.keys.sorted() {
                let total = totals[period]![group]!
                let values = errors.filter { $0.key.period == period && $0.key.group == group }
                    .sorted { $0.key.error < $1.key.error }
                for (key, count) in values {
                    rows.append((period, group, Self.distributionValue(key.error), count, Double(count) / Double(total)))
                }
                rows.append((period, group, Self.totalRow, total, 1.0))
            }
        }
        return rows
    }

    /// The `error` of a group's total row in the distribution.
    static let totalRow = "*"

    /// An error value as the distribution writes it: one from the logs
    /// that is `*`, or begins with a backslash, gets a backslash in front,
    /// so that `*` is only ever the total row (a client sending
    /// `error=*` would add a second total to its group) and every value
    /// reads back as it was.
    static func distributionValue(_ error: String) -> String {
        error == totalRow || error.hasPrefix("\\") ? "\\" + error : error
    }

    /// Overall count of each error value (sum over rows), most frequent first.
    package var errorTotals: [(error: String, count: Int)] {
        var totals: [String: Int] = [:]
        for (key, count) in errors { totals[key.error, default: 0] += count }
        return totals.map { ($0.key, $0.value) }.sorted { ($1.count, $0.error) < ($0.count, $1.error) }
    }
}
