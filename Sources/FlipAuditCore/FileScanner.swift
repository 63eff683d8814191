/// Reads one input end to end: bytes → lines → records → flip events.
/// It is the `LineSink` of the line splitter; events go to `collect`.
struct FileScanner: LineSink {
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
    private let collect: (FlipEvent) -> Void
    private let warn: (String) -> Void

    private(set) var accounting = InputAccounting()
    private(set) var logsLocation = false
    /// Latest record time seen, if any record was parsed.
    private(set) var latestTime: Int64?

    init(file: InputFile, fileIndex: Int32, configuration: AuditConfiguration,
         collect: @escaping (FlipEvent) -> Void, warn: @escaping (String) -> Void) throws(ConfigurationError) {
        self.file = file
        self.fileIndex = fileIndex
        format = configuration.format
        extractor = FlipEventExtractor(configuration: configuration)
        combined = CombinedLogParser(maxLine: configuration.maxLine)
        json = JSONLineParser(maxLine: configuration.maxLine)
        if case .nginx(let text) = configuration.format {
            nginx = try NginxLogFormatParser(logFormat: text, maxLine: configuration.maxLine)
        }
        self.collect = collect
        self.warn = warn
    }

    /// Reads the whole input. Returns the read error, if any; every line
    /// decoded before it has been analysed.
    /// With `prefetch`, zlib runs on a second thread ahead of the parsing.
    mutating func scan(maxLine: Int, prefetch: Bool, progress: ((UInt64) -> Void)? = nil) -> InputError? {
        accounting.files = 1
        let reader: LogFileReader
        do {
            reader = try LogFileReader(path: file.path)
        } catch {
            accounting.filesWithErrors = 1
            return error
        }
        var splitter = LineSplitter(maxLine: maxLine)
        var failure: InputError?
        let prefetcher = prefetch ? ChunkPrefetcher(reader: reader) : nil
        var decoded: UInt64 = 0
        do {
            while let chunk = try (prefetcher != nil ? prefetcher!.next() : reader.nextChunk()) {
                splitter.feed(chunk, to: &self)
                decoded += UInt64(chunk.count)
                progress?(decoded)
            }
            splitter.finish(to: &self)
        } catch {
            failure = error
            if let cut = splitter.discardPartialLine() {
                accounting.lines += 1
                malformed(.cutOff, number: splitter.lineCount + 1, detail: "\(cut) bytes")
            }
            accounting.filesWithErrors = 1
        }
        accounting.compressedBytes = reader.compressedBytes
        accounting.uncompressedBytes = reader.decodedBytes
        encoding = reader.encoding.rawValue
        return failure
    }

    private(set) var encoding = "plain"

    var formatName: String { chosen?.rawValue ?? "empty" }

    mutating func line(_ bytes: UnsafeRawBufferPointer, number: Int) {
        accounting.lines += 1
        if bytes.isEmpty || bytes.allSatisfy({ $0 == .space || $0 == .tab }) {
            accounting.blankLines += 1
            return
        }
        if !Bytes.isPlainASCII(bytes) {
            if Bytes.find(0, in: bytes) != nil { malformed(.nulByte, number: number); return }
            if !Bytes.isValidText(bytes) { malformed(.invalidUTF8, number: number); return }
        }
        if chosen == nil { chosen = detect(bytes) }
        let failure: MalformedReason?
        switch chosen! {
        case .json: failure = json.parse(bytes, into: &record)
        case .nginx: failure = nginx!.parse(bytes, into: &record)
        case .combined: failure = combined.parse(bytes, into: &record)
        }
        if let failure { malformed(failure, number: number); return }
        accounting.records += 1
        if latestTime.map({ record.time > $0 }) ?? true { latestTime = record.time }
        if case .notLogged = record.location {} else { logsLocation = true }
        let (kind, event) = extractor.extract(record, source: SourceRef(file: fileIndex, line: Int64(number)))
        switch kind {
        case .inScope: accounting.inScopeFlipRecords += 1
        case .otherOAuth: accounting.otherOAuthRecords += 1
        case .returnOnly: accounting.returnRecords += 1
        case .unrelated: break
        }
        if let event { collect(event) }
    }

    mutating func overlongLine(number: Int, length: Int) {
        accounting.lines += 1
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
        let text = "\(file.displayName):\(number): malformed line (\(reason.rawValue)\(detail.map { ", " + $0 } ?? ""))"
        if accounting.malformedExamples.count < InputAccounting.exampleLimit {
            accounting.malformedExamples.append(text)
        }
        warn(text)
    }
}
