/// Everything an audit found, ready for the reports.
public struct AuditResult: Sendable {
    public var configuration: AuditConfiguration
    public var inputs: [InputFile]
    public var accounting: InputAccounting
    public var files: [FileSummary]
    /// Problems that made some input unreadable: `NAME: message`.
    public var inputErrors: [String]
    /// Sessions ordered by first request (then source).
    public var sessions: [SessionRecord]
    /// Findings ordered by time, source, then kind.
    public var findings: [Finding]
    public var statistics: AuditStatistics
    /// Project IDs of `/r/ID` redirects accepted because none is pinned.
    public var unpinnedProjectIDs: [String]
    /// Files whose sessions were `unobservable` (no Location logged).
    public var unobservableFiles: [String]

    /// `FILE:LINE` of a source.
    public func describe(_ source: SourceRef) -> String {
        let name = inputs.indices.contains(Int(source.file)) ? inputs[Int(source.file)].displayName : "?"
        return "\(name):\(source.line)"
    }

    /// Whether some input could not be read completely (exit 3).
    public var hadInputErrors: Bool { !inputErrors.isEmpty }

    /// The most severe finding, if any.
    public var worstSeverity: Severity? { findings.map(\.severity).max() }
}

/// Runs the pipeline: inputs → flip events (per file) → time order →
/// sessions and findings → statistics. Results do not depend on the order
/// of the arguments or on how a session's records are split across files.
public final class Analyzer {
    private let configuration: AuditConfiguration
    private let warn: (String) -> Void
    private let progress: ((Progress) -> Void)?
    /// Malformed-line messages printed before they are only counted.
    public static let malformedMessageLimit = 10

    /// Where the reading is, for a progress line.
    public struct Progress: Sendable {
        public var file: String
        public var fileNumber: Int
        public var fileCount: Int
        /// Decoded bytes of this file read so far.
        public var bytes: UInt64
    }

    /// `warn` receives one-line messages about bad input (for standard
    /// error); `progress` is called once per decoded chunk.
    public init(configuration: AuditConfiguration, warn: @escaping (String) -> Void = { _ in },
                progress: ((Progress) -> Void)? = nil) {
        self.configuration = configuration
        self.warn = warn
        self.progress = progress
    }

    public func run(_ arguments: [String]) throws(ConfigurationError) -> AuditResult {
        let (inputs, problems) = InputCatalog.resolve(arguments)
        var accounting = InputAccounting()
        var inputErrors: [String] = []
        for (name, error) in problems {
            let message = "\(name): \(error)"
            inputErrors.append(message)
            warn(message)
            accounting.filesWithErrors += 1
        }
        var events: [FlipEvent] = []
        var files: [FileSummary] = []
        var fileLogsLocation: [Bool] = []
        var latest: Int64?
        var malformedWarnings = 0
        let warn = self.warn
        let limit = Self.malformedMessageLimit
        for (index, file) in inputs.enumerated() {
            let scanner = try FileScanner(
                file: file, fileIndex: Int32(index), configuration: configuration,
                collect: { events.append($0) },
                warn: { message in
                    malformedWarnings += 1
                    if malformedWarnings <= limit { warn(message) }
                })
            let report = progress.map { p in
                { (bytes: UInt64) in p(Progress(file: file.displayName, fileNumber: index + 1, fileCount: inputs.count, bytes: bytes)) }
            }
            let error = scanner.scan(maxLine: configuration.maxLine, progress: report)
            if let error {
                let message = "\(file.displayName): \(error)"
                inputErrors.append(message)
                warn(message)
            }
            accounting.add(scanner.accounting)
            fileLogsLocation.append(scanner.logsLocation)
            if let t = scanner.latestTime { latest = max(latest ?? t, t) }
            files.append(FileSummary(name: file.displayName, encoding: scanner.encoding, format: scanner.formatName,
                                     lines: scanner.accounting.lines, logsLocation: scanner.logsLocation,
                                     error: error.map { "\($0)" }))
        }
        if malformedWarnings > limit {
            warn("… \(malformedWarnings - limit) more malformed lines (counted in the report)")
        }

        events.sort { ($0.time, $0.source) < ($1.time, $1.source) }
        let collector = ResultCollector(bucket: configuration.bucket)
        let tracker = SessionTracker(configuration: configuration, fileLogsLocation: fileLogsLocation, sink: collector)
        for event in events { tracker.process(event) }
        tracker.finish(endTime: latest ?? 0)

        let findings = collector.findings.sorted {
            ($0.time, $0.source, $0.kind.rank, $0.state) < ($1.time, $1.source, $1.kind.rank, $1.state)
        }
        let sessions = collector.sessions.sorted {
            ($0.firstSeen, $0.source, $0.state) < ($1.firstSeen, $1.source, $1.state)
        }
        return AuditResult(
            configuration: configuration, inputs: inputs, accounting: accounting, files: files,
            inputErrors: inputErrors, sessions: sessions, findings: findings, statistics: collector.statistics,
            unpinnedProjectIDs: tracker.unpinnedProjectIDs.sorted(),
            unobservableFiles: tracker.unobservableFiles.sorted().map { inputs[Int($0)].displayName })
    }
}

/// Gathers what the tracker decides: rows, findings and statistics.
final class ResultCollector: AuditSink {
    var findings: [Finding] = []
    var sessions: [SessionRecord] = []
    var statistics: AuditStatistics

    init(bucket: AuditConfiguration.Bucket) {
        statistics = AuditStatistics(bucket: bucket)
    }

    func finding(_ finding: Finding) {
        findings.append(finding)
        statistics.add(finding)
    }

    func sessionClosed(_ session: SessionRecord) {
        sessions.append(session)
        statistics.add(session)
    }
}
