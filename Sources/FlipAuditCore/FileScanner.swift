/// The flip events of a run of lines of one input, and how far that
/// input's clock has got: what the time-ordered merge pulls.
struct EventBatch: Sendable {
    var events: [FlipEvent] = []
    /// Latest record time read so far in this input (nil before any record).
    var frontier: Int64?
    /// Whether this input has logged a Location field so far.
    var logsLocation = false
}

/// Reads one input: bytes → lines → records → flip events. It is the
/// `LineSink` of the line splitter; every `batchLines` lines it hands the
/// events found so far to `emit`, so batches end at the same lines however
/// the input was read.
struct FileScanner: LineSink {
    /// Lines per batch.
    static let batchLines = 2048

    private let file: InputFile
    private let fileIndex: Int32
    private let format: AuditConfiguration.Format
    private var extractor: FlipEventExtractor
    private var combined: CombinedLogParser
    private var json: JSONLineParser
    private var nginx: NginxLogFormatParser?
    /// The format picked for this file (after auto-detection).
    private enum Chosen: String { case combined, json, nginx }
    private var chosen: Chosen?
    private var record = LogRecord()
    private var batch = EventBatch()
    private var linesInBatch = 0
    private let emit: (EventBatch) -> Void
    /// Messages for standard error: the first malformed lines.
    private(set) var warnings: [String] = []

    private(set) var accounting = InputAccounting()
    private(set) var logsLocation = false
    /// Latest record time seen, if any record was parsed.
    private(set) var latestTime: Int64?
    /// Time of the first record parsed.
    private(set) var firstTime: Int64?

    init(file: InputFile, fileIndex: Int32, configuration: AuditConfiguration,
         emit: @escaping (EventBatch) -> Void) throws(ConfigurationError) {
        self.file = file
        self.fileIndex = fileIndex
        format = configuration.format
        extractor = FlipEventExtractor(configuration: configuration)
        combined = CombinedLogParser(maxLine: configuration.maxLine)
        json = JSONLineParser(maxLine: configuration.maxLine)
        if case .nginx(let text) = configuration.format {
            nginx = try NginxLogFormatParser(logFormat: text, maxLine: configuration.maxLine)
        }
        self.emit = emit
    }

    /// Hands out the events gathered since the last batch.
    mutating func flushBatch() {
        batch.frontier = latestTime
        batch.logsLocation = logsLocation
        emit(batch)
        batch = EventBatch()
        batch.events.reserveCapacity(64)
        linesInBatch = 0
    }

    /// Counts a line; ends the batch every `batchLines` lines.
    @inline(__always)
    private mutating func counted() {
        accounting.lines += 1
        linesInBatch += 1
        if linesInBatch == Self.batchLines { flushBatch() }
    }

    /// Records what the reader found when the input ends.
    mutating func finish(reader: LogFileReader) {
        accounting.compressedBytes = reader.compressedBytes
        accounting.uncompressedBytes = reader.decodedBytes
        encoding = reader.encoding.rawValue
    }

    /// Counts the partial last line of an input that was cut off.
    mutating func cutOff(bytes: Int, number: Int) {
        malformed(.cutOff, number: number, detail: "\(bytes) bytes")
        counted()
    }
    private(set) var encoding = "plain"

    var formatName: String { chosen?.rawValue ?? "empty" }

    mutating func line(_ bytes: UnsafeRawBufferPointer, number: Int) {
        defer { counted() }
        if bytes.isEmpty || bytes.allSatisfy({ $0 == .space || $0 == .tab }) {
            accounting.blankLines += 1
            return
        }
        let check = Bytes.LineCheck(bytes)
        if check.highOrNUL {
            if Bytes.find(0, in: bytes) != nil { malformed(.nulByte, number: number); return }
            if !Bytes.isValidText(bytes) { malformed(.invalidUTF8, number: number); return }
        }
        if chosen == nil { chosen = detect(bytes) }
        let failure: MalformedReason?
        switch chosen! {
        case .json: failure = json.parse(bytes, into: &record)
        case .nginx: failure = nginx!.parse(bytes, into: &record)
        case .combined: failure = combined.parse(bytes, into: &record, escapes: check.backslash)
        }
        if let failure { malformed(failure, number: number); return }
        accounting.records += 1
        if latestTime.map({ record.time > $0 }) ?? true { latestTime = record.time }
        if firstTime == nil { firstTime = record.time }
        if case .notLogged = record.location {} else { logsLocation = true }
        let (kind, event) = extractor.extract(record, source: SourceRef(file: fileIndex, line: Int64(number)))
        switch kind {
        case .inScope: accounting.inScopeFlipRecords += 1
        case .otherOAuth: accounting.otherOAuthRecords += 1
        case .returnOnly: accounting.returnRecords += 1
        case .unrelated: break
        }
        if let event { batch.events.append(event) }
    }

    mutating func overlongLine(number: Int, length: Int) {
        defer { counted() }
        malformed(.overlong, number: number, detail: "\(length) bytes")
    }

    /// Picks the format from the first non-empty line (`--format auto`).
    private func detect(_ line: UnsafeRawBufferPointer) -> Chosen {
        switch format {
        case .combined: return .combined
        case .json: return .json
        case .nginx: return .nginx
        case .auto:
            let first = line.first { $0 != .space && $0 != .tab }
            return first == .openBrace ? .json : .combined
        }
    }

    private mutating func malformed(_ reason: MalformedReason, number: Int, detail: String? = nil) {
        accounting.malformedLines += 1
        accounting.malformedByReason[reason.rawValue, default: 0] += 1
        // Only the first few are worded; the rest are counted.
        guard accounting.malformedLines <= Analyzer.malformedMessageLimit else { return }
        let text = "\(file.displayName):\(number): malformed line (\(reason.rawValue)\(detail.map { ", " + $0 } ?? ""))"
        if accounting.malformedExamples.count < InputAccounting.exampleLimit {
            accounting.malformedExamples.append(text)
        }
        warnings.append(text)
    }
}
