import Parsing
import Reading

/// The log formats a line can be read as.
enum RecordFormat: String, Sendable {
    case combined, json, nginx

    /// The format every line is read as, or nil under `--format auto`,
    /// where each line picks its own (`shape`).
    static func fixed(_ setting: AuditConfiguration.Format) -> Self? {
        switch setting {
        case .combined: return .combined
        case .json: return .json
        case .nginx: return .nginx
        case .auto: return nil
        }
    }

    /// The format of one line under `--format auto` (docs/contract.md §2):
    /// JSON when its first byte that is not a space or tab is `{`, combined
    /// otherwise. One byte looked at on almost every line; `line` is not
    /// blank.
    @inline(__always)
    static func shape(_ line: UnsafeRawBufferPointer) -> Self {
        var i = 0
        while i < line.count && (line[i] == .space || line[i] == .tab) { i += 1 }
        return i < line.count && line[i] == .openBrace ? .json : .combined
    }
}

/// How the lines of a piece (or an input) parsed: records per format, and
/// of the lines that failed their parser, how many another format reads —
/// what the hint for an input read in the wrong format is made from.
package struct FormatTally: Sendable, Equatable {
    var combinedRecords = 0
    var jsonRecords = 0
    var nginxRecords = 0
    /// Lines their format's parser refused (not over-long, NUL or UTF-8).
    var unparsed = 0
    /// Of those, how many parse as combined, as JSON.
    var fitCombined = 0
    var fitJSON = 0

    package mutating func add(_ other: FormatTally) {
        combinedRecords += other.combinedRecords
        jsonRecords += other.jsonRecords
        nginxRecords += other.nginxRecords
        unparsed += other.unparsed
        fitCombined += other.fitCombined
        fitJSON += other.fitJSON
    }

    /// `combined`, `json`, `nginx`, `mixed` (JSON and combined records
    /// both), or `none` when no line parsed.
    package var name: String {
        switch (combinedRecords > 0, jsonRecords > 0, nginxRecords > 0) {
        case (false, false, false): return "none"
        case (true, false, false): return RecordFormat.combined.rawValue
        case (false, true, false): return RecordFormat.json.rawValue
        case (false, false, true): return RecordFormat.nginx.rawValue
        default: return "mixed"
        }
    }

    /// The one warning for an input most of whose non-blank lines are
    /// malformed (docs/contract.md §2): the share, and the format that
    /// would read them, if one does; nil otherwise.
    package static func hint(_ accounting: InputAccounting, tally: FormatTally, setting: AuditConfiguration.Format) -> String? {
        let written = accounting.lines - accounting.blankLines
        guard written > 0, accounting.malformedLines * 2 > written else { return nil }
        let percent = (accounting.malformedLines * 100) / written
        let tried: String
        switch setting {
        case .auto: tried = "read as JSON or combined (by each line's first byte)"
        case .combined: tried = "read as --format combined"
        case .json: tried = "read as --format json"
        case .nginx: tried = "read with --log-format"
        }
        let share = "\(tried), \(percent)% of its lines (\(accounting.malformedLines) of \(written)) are malformed"
        // Most of them parsed (dated in the future, over-long, NUL or not
        // UTF-8): another format is not the answer, and is not proposed.
        if tally.unparsed * 2 <= accounting.malformedLines {
            let future = accounting.malformedByReason[MalformedReason.future.rawValue] ?? 0
            if future * 2 > accounting.malformedLines {
                return "\(share) (mostly: \(MalformedReason.future.rawValue): dated more than an hour after the run's start; "
                    + "check the clock, or give --now the time the night was audited at)"
            }
            let why = accounting.malformedByReason.max { a, b in (a.value, b.key) < (b.value, a.key) }.map { " (mostly: \($0.key))" } ?? ""
            return "\(share)\(why)"
        }
        let fit = max(tally.fitCombined, tally.fitJSON)
        guard fit * 2 > tally.unparsed, fit > 0 else {
            let why = accounting.malformedByReason.max { a, b in (a.value, b.key) < (b.value, a.key) }.map { " (mostly: \($0.key))" } ?? ""
            let advice = setting == .auto ? "; if it is an nginx log, give its log_format with --log-format" : ""
            return "\(share)\(why), and no other format reads them\(advice)"
        }
        let better = tally.fitJSON > tally.fitCombined ? "json" : "combined"
        let advice: String
        switch setting {
        case .auto: advice = ""
        case .nginx: advice = ": leave out --log-format"
        case .combined, .json: advice = ": try --format auto"
        }
        return "\(share); \(fit) of them read as \(better)\(advice)"
    }

    package init() {}
}

/// A malformed line as the scanner notes it: where, and why.
package struct MalformedNote: Sendable {
    /// Line number within the scanned piece (from 1).
    package var line: Int
    package var reason: MalformedReason
    package var detail: String?
}

/// What scanning a piece (whole lines of one input) found. Line numbers —
/// of notes and peaks, and of events unless `linesBefore` is set — count
/// from the piece's first line (1): a piece may be scanned before the
/// pieces ahead of it, and `ScanAssembler` numbers its lines once they are
/// in order.
package struct PieceScan: Sendable {
    package var events: [FlipEvent] = []
    /// Lines, blank lines, records, malformed lines by reason, flip
    /// records (no examples: `ScanAssembler` words them).
    package var accounting = InputAccounting()
    /// The first malformed lines (up to `AuditConfiguration.malformedMessageLimit`).
    package var malformed: [MalformedNote] = []
    /// The first late records (up to `AuditConfiguration.malformedMessageLimit`):
    /// their lines, as `malformed`'s, and times.
    package var late: [(line: Int, time: Int64)] = []
    /// Records whose time is later than every earlier record of the piece:
    /// enough to know the input's latest time at any line.
    package var peaks: [(line: Int, time: Int64)] = []
    /// The first line that logged a Location field: of the lines that are
    /// not JSON, and of the JSON lines (`unobservable` is judged per
    /// format: docs/contract.md §3).
    package var firstLocationLine: Int?
    package var firstJSONLocationLine: Int?
    /// The formats its lines parsed as.
    package var tally = FormatTally()
    /// Lines that ended in `\r\n`, read as if they ended in `\n`.
    package var crlfLines = 0
    /// Whether the input's last line, in this piece, had no newline.
    package var noFinalNewline = false
    /// The scanner's `linesBefore`: when set, the lines of the events (only
    /// those) count from the input's start.
    package var linesBefore: Int?
}

/// Reads lines of one input: bytes → records → flip events. It is the
/// `LineSink` of a line splitter; `take()` hands out what the lines since
/// the last `take()` gave — a piece: one `PieceCutter` cut, or on the
/// in-order paths the lines one chunk completed — as a `PieceScan`.
package struct LineScanner: LineSink {
    private var fileIndex: Int32
    /// The format of every line, or nil under `--format auto`.
    private let fixed: RecordFormat?
    private var extractor: FlipEventExtractor
    private var combined: CombinedLogParser
    private var json: JSONLineParser
    private var nginx: NginxLogFormatParser?
    /// Lines of the input before the lines this scanner is given next, when
    /// known: its events are then built with their line in the input, and
    /// none is built twice. Nil when the lines ahead are not counted yet
    /// (a piece scanned ahead of its turn): `ScanAssembler` builds its
    /// events again with the right line. Moves on at every `take()`.
    package var linesBefore: Int?
    private var record = LogRecord()
    private var scan = PieceScan()
    private var latest: Int64?
    /// Records after this are malformed (`time in the future`).
    private let futureAfter: Int64
    /// Records before this are late: counted, and left out of the audit.
    private let lateBefore: Int64

    package init(fileIndex: Int32, configuration: AuditConfiguration) throws(ConfigurationError) {
        self.fileIndex = fileIndex
        futureAfter = configuration.futureAfter
        lateBefore = configuration.lateBefore
        fixed = RecordFormat.fixed(configuration.format)
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
    package mutating func restart(fileIndex: Int32) {
        self.fileIndex = fileIndex
        linesBefore = nil
        record = LogRecord()
        scan = PieceScan()
        latest = nil
    }

    /// What the lines since the last call found.
    package mutating func take() -> PieceScan {
        var done = PieceScan()
        swap(&done, &scan)
        done.linesBefore = linesBefore
        if let before = linesBefore { linesBefore = before + done.accounting.lines }
        scan.events.reserveCapacity(64)
        latest = nil
        return done
    }

    /// Counts the partial last line of an input that was cut off.
    package mutating func cutOff(bytes: Int) {
        malformed(.cutOff, detail: "\(bytes) bytes")
        scan.accounting.lines += 1
    }

    /// Whether `line` begins with the UTF-8 byte order mark, EF BB BF.
    static func startsWithBOM(_ line: UnsafeRawBufferPointer) -> Bool {
        line.count >= 3 && line[0] == 0xEF && line[1] == 0xBB && line[2] == 0xBF
    }

    /// Whether a line holds only spaces and tabs.
    static func isBlank(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.allSatisfy { $0 == .space || $0 == .tab }
    }

    package mutating func line(_ line: UnsafeRawBufferPointer, number _: Int, plain: Bool) {
        defer { scan.accounting.lines += 1 }
        if Self.isBlank(line) {
            scan.accounting.blankLines += 1
            return
        }
        var bytes = line
        let check = plain ? .plain : Bytes.LineCheck(bytes)
        if check.highOrNUL {
            // A UTF-8 byte order mark (a file written by a Windows tool, or
            // one of several cat'ed together) is not part of the record;
            // its bytes are ≥ 0x80, so only such a line can hold one.
            if Self.startsWithBOM(bytes) {
                bytes = UnsafeRawBufferPointer(rebasing: bytes[3...])
                if Self.isBlank(bytes) {
                    scan.accounting.blankLines += 1
                    return
                }
            }
            if Bytes.find(0, in: bytes) != nil { malformed(.nulByte); return }
            if !Bytes.isValidText(bytes) { malformed(.invalidUTF8); return }
        }
        let format = fixed ?? RecordFormat.shape(bytes)
        if let failure = parse(bytes, as: format, escapes: check.backslash) {
            scan.tally.unparsed += 1
            // Only on a line that failed: would another format read it?
            if format != .json && RecordFormat.shape(bytes) == .json && json.parse(bytes, into: &record) == nil {
                scan.tally.fitJSON += 1
            } else if format != .combined && combined.parse(bytes, into: &record, escapes: check.backslash) == nil {
                scan.tally.fitCombined += 1
            }
            malformed(failure)
            return
        }
        if record.time > futureAfter { malformed(.future); return }
        switch format {
        case .combined: scan.tally.combinedRecords += 1
        case .json: scan.tally.jsonRecords += 1
        case .nginx: scan.tally.nginxRecords += 1
        }
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
        if format == .json {
            if scan.firstJSONLocationLine == nil, record.location.isLogged { scan.firstJSONLocationLine = number }
        } else if scan.firstLocationLine == nil, record.location.isLogged {
            scan.firstLocationLine = number
        }
        let source = SourceRef(file: fileIndex, line: Int64((linesBefore ?? 0) + number))
        let (kind, event) = extractor.extract(record, source: source, line: bytes, json: format == .json)
        switch kind {
        case .inScope: scan.accounting.inScopeFlipRecords += 1
        case .otherOAuth: scan.accounting.otherOAuthRecords += 1
        case .returnOnly: scan.accounting.returnRecords += 1
        case .unrelated: break
        }
        if let event { scan.events.append(event) }
    }

    /// Parses one line into `record`; why it failed, if it did.
    @inline(__always)
    private mutating func parse(_ bytes: UnsafeRawBufferPointer, as format: RecordFormat, escapes: Bool) -> MalformedReason? {
        switch format {
        case .json: return json.parse(bytes, into: &record)
        case .nginx: return nginx!.parse(bytes, into: &record)
        case .combined: return combined.parse(bytes, into: &record, escapes: escapes)
        }
    }

    package mutating func carriageReturn() { scan.crlfLines += 1 }

    package mutating func noFinalNewline() { scan.noFinalNewline = true }

    package mutating func overlongLine(number _: Int, length: Int) {
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
