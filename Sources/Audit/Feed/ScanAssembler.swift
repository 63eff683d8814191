import Parsing
import Reading
import Rules

/// Puts the piece scans of one input back together, in line order: numbers
/// their lines from the input's start, words the first malformed lines, and
/// ends a batch of events every `batchLines` lines — the same lines however
/// the input was cut into pieces and whichever thread scanned them, so the
/// time-ordered merge sees the same batches either way.
struct ScanAssembler {
    /// Lines per batch.
    static let batchLines = 2048

    private let file: InputFile
    /// Lines of the input put in order so far.
    private var lines = 0
    private var batch = EventBatch()
    private var linesInBatch = 0
    private var tally = FormatTally()
    private let setting: AuditConfiguration.Format
    /// `--tz`, for the formats whose times carry no zone.
    private let zone: String?
    private(set) var accounting = InputAccounting()
    /// The first lines that logged a Location field, once reached.
    private(set) var locationLines = LocationLines()
    var logsLocation: Bool { locationLines.any }
    /// Latest record time so far (nil before any record).
    private(set) var latestTime: Int64?
    /// Time of the input's first record.
    private(set) var firstTime: Int64?
    /// Messages for standard error: the first malformed lines.
    private var warnings: [String] = []
    /// Lines that ended in CRLF; whether the last line had no newline.
    private var crlfLines = 0
    private var noFinalNewline = false
    /// Redirect records with two candidate Locations, and the first's line.
    private var ambiguousLocations = 0
    private var zonedByHeader = 0
    private var firstAmbiguousLine: Int?
    /// Redirect records with no URL in the field read as the Location.
    private var doubtfulLocations = 0
    private var firstDoubtfulLine: Int?
    /// The first late record's message (said with the input's count).
    private var firstLate: String?

    init(file: InputFile, format: AuditConfiguration.Format, zone: String? = nil) {
        self.file = file
        setting = format
        self.zone = zone
        batch.events.reserveCapacity(64)
    }

    /// Takes the scan of the lines that follow those added so far; hands
    /// every batch it completes to `emit`.
    mutating func add(_ scan: PieceScan, emit: (EventBatch) -> Void) {
        let base = lines
        // What the scanner added to its events' lines: `base` when it knew
        // it, 0 when the piece was scanned ahead of its turn.
        let added = scan.linesBefore ?? 0
        assert(scan.linesBefore.map { $0 == base } ?? true, "piece scanned with a wrong line offset")
        for (i, note) in scan.malformed.enumerated() where accounting.malformedLines + i + 1 <= AuditConfiguration.malformedMessageLimit {
            let detail = note.detail.map { ", " + $0 } ?? ""
            let text = "\(file.displayName):\(base + note.line): malformed line (\(note.reason.rawValue)\(detail))"
            if accounting.malformedExamples.count < InputAccounting.exampleLimit { accounting.malformedExamples.append(text) }
            warnings.append(text)
        }
        for (i, late) in scan.late.enumerated() where accounting.lateRecords + i + 1 <= AuditConfiguration.malformedMessageLimit {
            let text =
                "\(file.displayName):\(base + late.line): late record (\(Timestamp.iso8601(late.time)) lies before the checkpoint's "
                + "watermark less \(AuditConfiguration.reorderWindow / 1000) s); left out of the audit"
            if accounting.lateExamples.count < InputAccounting.exampleLimit { accounting.lateExamples.append(text) }
            // One line per input on standard error, at its end: a folder
            // of rotated logs read again says so once per file.
            if firstLate == nil { firstLate = text }
        }
        accounting.add(scan.accounting)
        crlfLines += scan.crlfLines
        if firstAmbiguousLine == nil, let first = scan.firstAmbiguousLine { firstAmbiguousLine = base + first }
        ambiguousLocations += scan.ambiguousLocations
        zonedByHeader += scan.zonedByHeader
        if firstDoubtfulLine == nil, let first = scan.firstDoubtfulLine { firstDoubtfulLine = base + first }
        doubtfulLocations += scan.doubtfulLocations
        noFinalNewline = noFinalNewline || scan.noFinalNewline
        if firstTime == nil { firstTime = scan.peaks.first?.time }
        tally.add(scan.tally)
        var event = 0
        var peak = 0
        var done = 0
        while done < scan.accounting.lines {
            let upTo = done + min(scan.accounting.lines - done, Self.batchLines - linesInBatch)
            while event < scan.events.count && Int(scan.events[event].source.line) - added <= upTo {
                let e = scan.events[event]
                batch.events.append(added == base ? e : FlipEvent(e, line: e.source.line - Int64(added) + Int64(base)))
                event += 1
            }
            while peak < scan.peaks.count && scan.peaks[peak].line <= upTo {
                let t = scan.peaks[peak].time
                if latestTime.map({ t > $0 }) ?? true { latestTime = t }
                peak += 1
            }
            if locationLines.text == nil, let first = scan.firstLocationLine, first <= upTo {
                locationLines.text = Int64(base + first)
            }
            if locationLines.json == nil, let first = scan.firstJSONLocationLine, first <= upTo {
                locationLines.json = Int64(base + first)
            }
            linesInBatch += upTo - done
            done = upTo
            if linesInBatch == Self.batchLines { flush(emit) }
        }
        lines += scan.accounting.lines
    }

    /// Hands out the events gathered since the last batch.
    private mutating func flush(_ emit: (EventBatch) -> Void) {
        batch.frontier = latestTime
        batch.locationLines = locationLines
        emit(batch)
        batch = EventBatch()
        batch.events.reserveCapacity(64)
        linesInBatch = 0
    }

    /// Hands out the last batch and sums up the input. `end` is what the
    /// reader reported (nil when the input could not be opened); `failure`
    /// why the input stopped early, if it did.
    mutating func finish(end: InputEnd?, failure: InputError?, emit: (EventBatch) -> Void) -> FileScan {
        flush(emit)
        accounting.files = 1
        if let end {
            accounting.compressedBytes = end.compressedBytes
            accounting.uncompressedBytes = end.decodedBytes
        }
        if failure != nil { accounting.filesWithErrors = 1 }
        let message = failure.map { "\(file.displayName): \($0)" }
        // One warning when most lines are malformed (docs/contract.md §2).
        let hint = FormatTally.hint(accounting, tally: tally, setting: setting)
        if let hint { warnings.append("\(file.displayName): \(hint)") }
        // Read normally, each said once with its count (docs/contract.md §8).
        if crlfLines > 0 { warnings.append("\(file.displayName): \(crlfLines) \(crlfLines == 1 ? "line ends" : "lines end") in CRLF; read as LF") }
        // Said once when its times carry no zone (HAProxy's, unless a
        // syslog header gave every one of them its own).
        let zoneless = tally.zoneless(zoned: zonedByHeader)
        if let server = zoneless {
            warnings.append("\(file.displayName): \(server)'s times carry no zone: read as \(zone ?? "UTC") (--tz ZONE)")
        }
        if let first = firstAmbiguousLine {
            warnings.append(
                "\(file.displayName):\(first): \(ambiguousLocations) redirect \(ambiguousLocations == 1 ? "record holds" : "records hold") "
                    + "two different redirect targets in the fields after the request; neither is taken as the Location: "
                    + "give the server's format with --log-format (nginx \"$sent_http_location\", Apache \"%{Location}o\") to say which")
        }
        if let firstLate {
            let more = accounting.lateRecords - 1
            warnings.append(more > 0 ? firstLate + " (and \(more) more late \(more == 1 ? "record" : "records") in this input)" : firstLate)
        }
        if let first = firstDoubtfulLine {
            warnings.append(
                "\(file.displayName):\(first): \(doubtfulLocations) redirect \(doubtfulLocations == 1 ? "record has" : "records have") "
                    + "no URL in the quoted field after the User-Agent that is read as the Location; if that field is not the Location "
                    + "(nginx's stock main format logs $http_x_forwarded_for there), give the server's format with --log-format")
        }
        if noFinalNewline { warnings.append("\(file.displayName): its last line has no newline; read all the same") }
        if accounting.lines == 0 && failure == nil {
            warnings.append("\(file.displayName): empty (\(accounting.compressedBytes) bytes, no line); nothing to audit in it")
        }
        return FileScan(
            accounting: accounting, locationLines: locationLines, latestTime: latestTime, firstTime: firstTime,
            summary: FileSummary(
                name: file.displayName, encoding: end?.encoding.rawValue ?? "plain",
                format: accounting.lines == accounting.blankLines
                    ? "empty" : accounting.records == 0 && accounting.malformedLines == 0 && accounting.notices > 0 ? "notices" : tally.name,
                lines: accounting.lines,
                logsLocation: logsLocation, error: failure.map { "\($0)" }, hint: hint,
                crlfLines: crlfLines > 0 ? crlfLines : nil, noFinalNewline: noFinalNewline ? true : nil,
                records: accounting.records, malformedLines: accounting.malformedLines,
                refusedLines: accounting.malformedByReason[MalformedReason.future.rawValue], notices: accounting.notices),
            error: message, warnings: warnings + (message.map { [$0] } ?? []), zoneless: zoneless != nil)
    }
}

/// The flip events of `ScanAssembler.batchLines` lines of one input (fewer
/// in its last batch), and how far that input's clock has got: what the
/// time-ordered merge pulls.
struct EventBatch: Sendable {
    var events: [FlipEvent] = []
    /// Latest record time read so far in this input (nil before any record).
    var frontier: Int64?
    /// The first lines of this input that logged a Location field, when
    /// the reading has got that far.
    var locationLines = LocationLines()
}
