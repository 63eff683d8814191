import Foundation

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
    private let progress: (@Sendable (Progress) -> Void)?
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
                progress: (@Sendable (Progress) -> Void)? = nil) {
        self.configuration = configuration
        self.warn = warn
        self.progress = progress
    }

    public func run(_ arguments: [String]) throws(ConfigurationError) -> AuditResult {
        // A log_format that cannot work is refused before any input is read.
        if case .nginx(let text) = configuration.format {
            _ = try NginxLogFormatParser(logFormat: text, maxLine: configuration.maxLine)
        }
        let (inputs, problems) = InputCatalog.resolve(arguments)
        var accounting = InputAccounting()
        var inputErrors: [String] = []
        for (name, error) in problems {
            let message = "\(name): \(error)"
            inputErrors.append(message)
            warn(message)
            accounting.filesWithErrors += 1
        }
        // Each input is read on its own (in parallel when configured); what
        // it yields is merged in file order, so nothing depends on timing.
        let scans = ScanResults(count: inputs.count)
        let configuration = self.configuration
        let progress = self.progress
        let warn = self.warn
        var malformedWarnings = 0
        let limit = Self.malformedMessageLimit
        /// Prints the warnings of finished files, in file order.
        func flush() {
            for outcome in scans.takeReady() {
                for message in outcome.warnings {
                    if outcome.malformedMessages.contains(message) {
                        malformedWarnings += 1
                        if malformedWarnings > limit { continue }
                    }
                    warn(message)
                }
            }
        }
        let scanOne = { @Sendable (index: Int) in
            let file = inputs[index]
            let report = progress.map { p in
                { @Sendable (bytes: UInt64) in p(Progress(file: file.displayName, fileNumber: index + 1, fileCount: inputs.count, bytes: bytes)) }
            }
            scans.store(index, Self.scan(file, index: index, configuration: configuration, progress: report))
        }
        if configuration.parallel && inputs.count > 1 {
            DispatchQueue.concurrentPerform(iterations: inputs.count, execute: scanOne)
        } else {
            for index in inputs.indices {
                scanOne(index)
                flush()
            }
        }
        flush()
        if malformedWarnings > limit {
            warn("… \(malformedWarnings - limit) more malformed lines (counted in the report)")
        }
        var events: [FlipEvent] = []
        var files: [FileSummary] = []
        var fileLogsLocation: [Bool] = []
        var latest: Int64?
        for outcome in scans.all {
            accounting.add(outcome.accounting)
            events.append(contentsOf: outcome.events)
            fileLogsLocation.append(outcome.logsLocation)
            if let t = outcome.latestTime { latest = max(latest ?? t, t) }
            files.append(outcome.summary)
            if let error = outcome.error { inputErrors.append(error) }
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

extension Analyzer {
    /// What reading one input produced.
    struct FileScan: Sendable {
        var accounting: InputAccounting
        var events: [FlipEvent]
        var logsLocation: Bool
        var latestTime: Int64?
        var summary: FileSummary
        /// `NAME: message` when the input could not be read completely.
        var error: String?
        /// Messages for standard error, in line order.
        var warnings: [String]
        var malformedMessages: Set<String>
    }

    /// Reads one input end to end.
    static func scan(_ file: InputFile, index: Int, configuration: AuditConfiguration,
                     progress: ((UInt64) -> Void)?) -> FileScan {
        var events: [FlipEvent] = []
        var warnings: [String] = []
        var malformed = Set<String>()
        // `run` has already built the log_format parser once, so this
        // cannot fail.
        var scanner = try! FileScanner(
            file: file, fileIndex: Int32(index), configuration: configuration,
            collect: { events.append($0) },
            warn: { warnings.append($0); malformed.insert($0) })
        let error = scanner.scan(maxLine: configuration.maxLine, prefetch: configuration.parallel, progress: progress)
        let message = error.map { "\(file.displayName): \($0)" }
        if let message { warnings.append(message) }
        return FileScan(
            accounting: scanner.accounting, events: events, logsLocation: scanner.logsLocation,
            latestTime: scanner.latestTime,
            summary: FileSummary(name: file.displayName, encoding: scanner.encoding, format: scanner.formatName,
                                 lines: scanner.accounting.lines, logsLocation: scanner.logsLocation,
                                 error: error.map { "\($0)" }),
            error: message, warnings: warnings, malformedMessages: malformed)
    }
}

/// Per-input results filled in by reader threads, handed out in file order.
final class ScanResults: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [Analyzer.FileScan?]
    private var nextReady = 0

    init(count: Int) { results = Array(repeating: nil, count: count) }

    func store(_ index: Int, _ scan: Analyzer.FileScan) {
        lock.lock(); defer { lock.unlock() }
        results[index] = scan
    }

    /// The results not handed out yet whose predecessors are all done.
    func takeReady() -> [Analyzer.FileScan] {
        lock.lock(); defer { lock.unlock() }
        var ready: [Analyzer.FileScan] = []
        while nextReady < results.count, let r = results[nextReady] {
            ready.append(r)
            nextReady += 1
        }
        return ready
    }

    /// All results, in file order (after every input was read).
    var all: [Analyzer.FileScan] {
        lock.lock(); defer { lock.unlock() }
        return results.map { $0! }
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
