import Reading
import Rules

/// Gathers the summary from the ordered rows: statistics, and the first
/// findings of each kind as examples.
final class ResultCollector: RowSink {
    /// Examples kept per finding kind.
    static let examplesPerKind = 5
    var statistics: AuditStatistics
    var examples: [FindingKind: [Finding]] = [:]

    init(bucket: AuditConfiguration.Bucket, clientIDs: Set<String>) {
        statistics = AuditStatistics(bucket: bucket, clientIDs: clientIDs)
    }

    func start(inputs: [InputFile]) {}

    func finding(_ finding: Finding) {
        statistics.add(finding)
        if (examples[finding.kind]?.count ?? 0) < Self.examplesPerKind { examples[finding.kind, default: []].append(finding) }
    }

    func session(_ session: SessionRecord) {
        statistics.add(session)
    }
}
