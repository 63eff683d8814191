/// The log formats a file can be read as, once `--format auto` has looked
/// at its first line.
enum RecordFormat: String, Sendable {
    case combined, json, nginx

    /// The format for a file whose first non-blank, valid line is `line`.
    static func detect(_ line: UnsafeRawBufferPointer, setting: AuditConfiguration.Format) -> Self {
        switch setting {
        case .combined: return .combined
        case .json: return .json
        case .nginx: return .nginx
        case .auto:
            let first = line.first { $0 != .space && $0 != .tab }
            return first == .openBrace ? .json : .combined
        }
    }

    /// Whether `line` (line end stripped) is one the format is detected
    /// from: not blank, no NUL byte, valid UTF-8 — the first line that is
    /// parsed at all.
    static func isDetectable(_ line: UnsafeRawBufferPointer) -> Bool {
        !LineScanner.isBlank(line) && Bytes.isValidText(line)
    }
}

/// A malformed line as the scanner notes it: where, and why.
struct MalformedNote: Sendable {
    /// Line number within the scanned piece (from 1).
    var line: Int
    var reason: MalformedReason
    var detail: String?
}

/// What scanning a piece (whole lines of one input) found. Line numbers —
/// of notes and peaks, and of events unless `linesBefore` is set — count
/// from the piece's first line (1): a piece may be scanned before the
/// pieces ahead of it, and `ScanAssembler` numbers its lines once they are
/// in order.
struct PieceScan: Sendable {
    var events: [FlipEvent] = []
    /// Lines, blank lines, records, malformed lines by reason, flip
    /// records (no examples: `ScanAssembler` words them).
    var accounting = InputAccounting()
    /// The first malformed lines (up to `AuditConfiguration.malformedMessageLimit`).
    var malformed: [MalformedNote] = []
    /// The first late records (up to `AuditConfiguration.malformedMessageLimit`):
    /// their lines, as `malformed`'s, and times.
    var late: [(line: Int, time: Int64)] = []
    /// Records whose time is later than every earlier record of the piece:
    /// enough to know the input's latest time at any line.
    var peaks: [(line: Int, time: Int64)] = []
    /// The first line that logged a Location field.
    var firstLocationLine: Int?
    /// The format the piece was read as (nil while only blank or unreadable
    /// lines were seen).
    var format: RecordFormat?
    /// The scanner's `linesBefore`: when set, the lines of the events (only
    /// those) count from the input's start.
    var linesBefore: Int?
}

/// Reads lines of one input: bytes → records → flip events. It is the
/// `LineSink` of a line splitter; `take()` hands out what the lines since
/// the last `take()` gave — a piece: one `PieceCutter` cut, or on the
/// in-order paths the lines one chunk completed — as a `PieceScan`.
struct LineScanner: LineSink {
    private var fileIndex: Int32
    private let setting: AuditConfiguration.Format
    private var extractor: FlipEventExtractor
    private var combined: CombinedLogParser
    private var json: JSONLineParser
    private var nginx: NginxLogFormatParser?
    /// The format picked for this file: detected from its first readable
    /// line, or set by whoever saw that line (`PieceCutter`).
    var format: RecordFormat?
    /// Lines of the input before the lines this scanner is given next, when
    /// known: its events are then built with their line in the input, and
    /// none is built twice. Nil when the lines ahead are not counted yet
    /// (a piece scanned ahead of its turn): `ScanAssembler` builds its
    /// events again with the right line. Moves on at every `take()`.
    var linesBefore: Int?
    private var record = LogRecord()
    private var scan = PieceScan()
    private var latest: Int64?
    /// Records after this are malformed (`time in the future`).
    private let futureAfter: Int64
    /// Records before this are late: counted, and left out of the audit.
    private let lateBefore: Int64

    init(fileIndex: Int32, configuration: AuditConfiguration) throws(ConfigurationError) {
        self.fileIndex = fileIndex
        futureAfter = configuration.futureAfter
        lateBefore = configuration.lateBefore
        setting = configuration.format
        extractor = FlipEventExtractor(configuration: configuration)
        combined = CombinedLogParser(maxLine: configuration.maxLine)
        json = JSONLineParser(maxLine: configuration.maxLine)
        if case .nginx(let text) = configuration.format {
            nginx = try NginxLogFormatParser(logFormat: text, maxLine: configuration.maxLine)
        }
    }

    /// Makes this scanner read another input from its start, keeping its
    /// parsers and extractor (and what they remember of recent values,
    /// which depends on the values alone).
    mutating func restart(fileIndex: Int32) {
        self.fileIndex = fileIndex
        format = nil
        linesBefore = nil
        record = LogRecord()
        scan = PieceScan()
        latest = nil
    }

    /// What the lines since the last call found.
    mutating func take() -> PieceScan {
        var done = PieceScan()
        swap(&done, &scan)
        done.format = format
        done.linesBefore = linesBefore
        if let before = linesBefore { linesBefore = before + done.accounting.lines }
        scan.events.reserveCapacity(64)
        latest = nil
        return done
    }

    /// Counts the partial last line of an input that was cut off.
    mutating func cutOff(bytes: Int) {
        malformed(.cutOff, detail: "\(bytes) bytes")
        scan.accounting.lines += 1
    }

    /// Whether a line holds only spaces and tabs.
    static func isBlank(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.allSatisfy { $0 == .space || $0 == .tab }
    }

    mutating func line(_ bytes: UnsafeRawBufferPointer, number _: Int, plain: Bool) {
        defer { scan.accounting.lines += 1 }
        if Self.isBlank(bytes) {
            scan.accounting.blankLines += 1
            return
        }
        let check = plain ? .plain : Bytes.LineCheck(bytes)
        if check.highOrNUL {
            if Bytes.find(0, in: bytes) != nil { malformed(.nulByte); return }
            if !Bytes.isValidText(bytes) { malformed(.invalidUTF8); return }
        }
        if format == nil { format = RecordFormat.detect(bytes, setting: setting) }
        let failure: MalformedReason?
        switch format! {
        case .json: failure = json.parse(bytes, into: &record)
        case .nginx: failure = nginx!.parse(bytes, into: &record)
        case .combined: failure = combined.parse(bytes, into: &record, escapes: check.backslash)
        }
        if let failure { malformed(failure); return }
        if record.time > futureAfter { malformed(.future); return }
        let number = scan.accounting.lines + 1
        scan.accounting.records += 1
        if record.time < lateBefore {
            scan.accounting.lateRecords += 1
            if scan.accounting.lateRecords <= AuditConfiguration.malformedMessageLimit { scan.late.append((number, record.time)) }
            return
        }
        if latest.map({ record.time > $0 }) ?? true {
            latest = record.time
            scan.peaks.append((number, record.time))
        }
        if scan.firstLocationLine == nil, record.location.isLogged { scan.firstLocationLine = number }
        let source = SourceRef(file: fileIndex, line: Int64((linesBefore ?? 0) + number))
        let (kind, event) = extractor.extract(record, source: source, line: bytes)
        switch kind {
        case .inScope: scan.accounting.inScopeFlipRecords += 1
        case .otherOAuth: scan.accounting.otherOAuthRecords += 1
        case .returnOnly: scan.accounting.returnRecords += 1
        case .unrelated: break
        }
        if let event { scan.events.append(event) }
    }

    mutating func overlongLine(number _: Int, length: Int) {
        malformed(.overlong, detail: "\(length) bytes")
        scan.accounting.lines += 1
    }

    /// Counts a malformed line (the current one); notes the first few.
    private mutating func malformed(_ reason: MalformedReason, detail: String? = nil) {
        scan.accounting.malformedLines += 1
        scan.accounting.malformedByReason[reason.rawValue, default: 0] += 1
        guard scan.accounting.malformedLines <= AuditConfiguration.malformedMessageLimit else { return }
        scan.malformed.append(MalformedNote(line: scan.accounting.lines + 1, reason: reason, detail: detail))
    }
}
