import Parsing
import Reading

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
    /// Redirect records with two different redirect targets after the
    /// User-Agent (no Location taken), and the first of them.
    package var ambiguousLocations = 0
    package var firstAmbiguousLine: Int?
    /// Records whose zone a syslog header gave (HAProxy's own times have none).
    package var zonedByHeader = 0
    /// Redirect records with no URL in the one field read as their
    /// Location, and the first of them.
    package var doubtfulLocations = 0
    package var firstDoubtfulLine: Int?
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
    /// The reader of this input, and those of every format the run knows
    /// (`AuditConfiguration.readers()`, picked per input).
    private var reader: RecordReader
    private var readers: [RecordReader]
    private var readerIndex = 0
    private var extractor: FlipEventExtractor
    /// Lines of the input before the lines this scanner is given next, when
    /// known: its events are then built with their line in the input, and
    /// none is built twice. Nil when the lines ahead are not counted yet
    /// (a piece scanned ahead of its turn): `ScanAssembler` builds its
    /// events again with the right line. Moves on at every `take()`.
    package var linesBefore: Int?
    private var scan = PieceScan()
    /// The format of the last records (its raw value), and how many in a
    /// row (not yet in `scan.tally`).
    private var runCode = RecordFormat.combined.rawValue
    private var runIsJSON = false
    private var run = 0
    private var latest: Int64?
    /// Records after this are malformed (`time in the future`).
    package var futureAfter: Int64
    /// Records before this are late: counted, and left out of the audit.
    private let lateBefore: Int64
    /// `--since` and `--until`: records before `since` or from `until` on
    /// are counted and left out.
    private let since: Int64
    private let until: Int64

    package init(fileIndex: Int32, configuration: AuditConfiguration) throws(ConfigurationError) {
        self.fileIndex = fileIndex
        futureAfter = configuration.futureAfter
        lateBefore = configuration.lateBefore
        since = configuration.since ?? .min
        until = configuration.until ?? .max
        extractor = FlipEventExtractor(configuration: configuration)
        readers = try configuration.readers()
        reader = readers[0]
    }

    /// Makes this scanner read another input from its start, keeping its
    /// parsers and extractor (and what they remember of recent values,
    /// which depends on the values alone).
    package mutating func restart(fileIndex: Int32, reader index: Int = 0) {
        self.fileIndex = fileIndex
        if index != readerIndex {
            swap(&reader, &readers[readerIndex])
            swap(&reader, &readers[index])
            readerIndex = index
        }
        linesBefore = nil
        reader.record = LogRecord()
        reader.fields(nil)
        scan = PieceScan()
        run = 0
        latest = nil
        extractor.newPiece()
    }

    /// Names the lines from the next one on as lines of input `fileIndex`
    /// (a followed file renamed by its rotation), all else kept.
    package mutating func rename(fileIndex: Int32) {
        self.fileIndex = fileIndex
    }

    /// The W3C `#Fields:` line in force before the next line, as the
    /// `PieceCutter` carried it to a piece (nil: none).
    package mutating func fields(_ header: [UInt8]?) {
        guard let header else { reader.fields(nil); return }
        header.withUnsafeBytes { reader.fields($0) }
    }

    /// What the lines since the last call found.
    package mutating func take() -> PieceScan {
        scan.tally.records[runCode] &+= Int64(run)
        run = 0
        var done = PieceScan()
        swap(&done, &scan)
        done.linesBefore = linesBefore
        if let before = linesBefore { linesBefore = before + done.accounting.lines }
        scan.events.reserveCapacity(64)
        latest = nil
        extractor.newPiece()
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
        // A W3C directive (`#Fields:` sets the columns of the lines after
        // it): not a record, counted with the blank lines.
        if bytes[0] == .hash, reader.directive(bytes) {
            scan.accounting.blankLines += 1
            return
        }
        if let failure = reader.read(bytes, escapes: check.backslash) {
            if failure == .truncated {
                malformed(.truncated, detail: RecordReader.isFlipRecord(bytes) ? "a flip record" : nil)
                return
            }
            // A server's own message (HAProxy's, an error log's line): a
            // notice, understood and not audited.
            if let notice = Notice.of(bytes) {
                scan.accounting.notices += 1
                scan.accounting.noticesByKind[notice.rawValue, default: 0] += 1
                return
            }
            scan.tally.unparsed += 1
            // Only on a line that failed: would another format read it?
            if let fit = reader.fit(bytes, escapes: check.backslash) { scan.tally.fits[fit.rawValue] += 1 }
            malformed(failure)
            return
        }
        let time = reader.record.time
        // Records per format, counted as a run of one format: most inputs
        // have one (`take` adds the run to the tally). Compared by the
        // stored code: `!=` or `rawValue` across modules is a call.
        if reader.formatCode != runCode {
            scan.tally.records[runCode] &+= Int64(run)
            runCode = reader.formatCode
            runIsJSON = reader.format.isJSON
            run = 0
        }
        run &+= 1
        // Read in its format, refused for its time: understood, not audited.
        if time > futureAfter { malformed(.future); return }
        let number = scan.accounting.lines + 1
        scan.accounting.records += 1
        // Outside --since/--until: a record, not audited (one compare
        // pair; without the options the bounds are the widest times).
        if time < since || time >= until {
            scan.accounting.outsideRecords += 1
            return
        }
        if time < lateBefore {
            scan.accounting.lateRecords += 1
            if scan.accounting.lateRecords <= AuditConfiguration.malformedMessageLimit { scan.late.append((number, time)) }
            return
        }
        if latest.map({ time > $0 }) ?? true {
            latest = time
            scan.peaks.append((number, time))
        }
        if reader.record.zoneFromHeader { scan.zonedByHeader += 1 }
        if reader.record.locationAmbiguous {
            scan.ambiguousLocations += 1
            if scan.firstAmbiguousLine == nil { scan.firstAmbiguousLine = number }
        }
        // A status that always carries a Location (301, 302, 303, 307,
        // 308: bits 0, 1, 2, 6 and 7 above 301), told in the scanner: one
        // compare on the common record, no call.
        let redirect = UInt(bitPattern: reader.record.status &- 301)
        if redirect < 8, (0xC7 as UInt) >> redirect & 1 == 1, case .emptyByPlace = reader.record.location {
            scan.doubtfulLocations += 1
            if scan.firstDoubtfulLine == nil { scan.firstDoubtfulLine = number }
        }
        if runIsJSON {
            if scan.firstJSONLocationLine == nil, reader.record.location.isLogged { scan.firstJSONLocationLine = number }
        } else if scan.firstLocationLine == nil, reader.record.location.isLogged {
            scan.firstLocationLine = number
        }
        // Most records are not App Flip traffic: told from two fields,
        // before the record is copied out to the extractor.
        guard let sifted = extractor.sift(target: reader.record.target, location: reader.record.location) else { return }
        let source = SourceRef(file: fileIndex, line: Int64((linesBefore ?? 0) + number))
        let (kind, event) = extractor.extract(reader.record, sifted: sifted, source: source, line: bytes, json: runIsJSON)
        switch kind {
        case .inScope: scan.accounting.inScopeFlipRecords += 1
        case .otherOAuth: scan.accounting.otherOAuthRecords += 1
        case .returnOnly: scan.accounting.returnRecords += 1
        case .unrelated: break
        }
        if let event { scan.events.append(event) }
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
