import Reading

/// Reads one line into a record in the format it is written in: the one
/// format a setting fixes, or under `--format auto` the format of each
/// line on its own (docs/formats.md), so one stream of mixed servers is
/// read whole. The common line costs one byte looked at and one parser:
/// the others are tried only on a line that parser refused.
///
/// ```
///  line ──shape──▶ `{` JSON ──▶ json (flat keys, Caddy, Traefik, Google Cloud, Cloudflare)
///              ├─▶ `[` ──────▶ envoy
///              ├─▶ a date, after a `#Fields:` line ──▶ w3c (iis, cloudfront)
///              └─▶ else ─────▶ combined ──refused──▶ alb (its first word) ▶ haproxy
/// ```
/// W3C directive lines (`#Fields:`, `#Version:`) are not records: the
/// scanner hands them to `directive(_:)`.
/// Not `Sendable`: its parsers keep scratch buffers; one per thread.
package struct RecordReader {
    /// How lines are read.
    package enum Setting: Sendable, Equatable {
        /// Each line in its own format.
        case auto
        /// Every line in one format (`--format NAME`).
        case fixed(RecordFormat)
        /// Every line by a pasted `log_format` or `LogFormat`.
        case logFormat(String)
    }

    /// The last line's record (views valid until the next line).
    package var record = LogRecord()
    /// The format the last line was read as (or tried in, when refused).
    package private(set) var format = RecordFormat.combined {
        didSet { formatCode = format.rawValue }
    }
    /// `format.rawValue`, stored: read across modules without a call.
    package private(set) var formatCode = RecordFormat.combined.rawValue
    private let fixed: RecordFormat?
    /// The fixed format's parser.
    private let fixedReader: FormatRow.Reader
    /// Whether every line goes the long way (`readOther`): a fixed
    /// format, or W3C columns in force.
    private var longWay: Bool
    private var combined: CombinedLogParser
    private var json: JSONLineParser
    private var haproxy: HAProxyLogParser
    private var envoy: EnvoyLogParser
    private var alb: ALBLogParser
    private var w3c: W3CLogParser
    private var pasted: LogFormatParser?

    package init(
        _ setting: Setting, maxLine: Int, jsonFields: [(role: JSONLineParser.Role, path: String)] = [],
        timeUnit: JSONLineParser.TimeUnit? = nil, zone: LocalZone? = nil
    ) throws(ConfigurationError) {
        combined = CombinedLogParser(maxLine: maxLine)
        json = JSONLineParser(maxLine: maxLine, fields: jsonFields, timeUnit: timeUnit)
        haproxy = HAProxyLogParser(maxLine: maxLine, zone: zone)
        envoy = EnvoyLogParser(maxLine: maxLine)
        alb = ALBLogParser(maxLine: maxLine)
        w3c = W3CLogParser(maxLine: maxLine, zone: zone)
        switch setting {
        case .auto: fixed = nil
        case .fixed(let f):
            guard f.row.reader != .pasted else { throw .logFormat("--format \(f.name) needs --log-format") }
            fixed = f
        case .logFormat(let text):
            let parser = try LogFormatParser(logFormat: text, maxLine: maxLine, zone: zone)
            pasted = parser
            fixed = parser.syntax
        }
        // A pasted format is read by its own parser, whatever its syntax.
        fixedReader = pasted != nil ? .pasted : fixed?.row.reader ?? .combined
        longWay = fixed != nil
    }

    /// Reads `line` into `record`; why it is not a record, if it is not.
    /// `escapes` false promises the line has no backslash. The common
    /// line (`--format auto`, a first byte that is not `{`, `[`, a space or
    /// a tab, no W3C columns) goes straight to the combined parser,
    /// inlined here; every other line takes `readOther`.
    package mutating func read(_ line: UnsafeRawBufferPointer, escapes: Bool) -> MalformedReason? {
        guard !longWay, let first = line.first, first != UInt8(ascii: "{"), first != UInt8(ascii: "["), first != UInt8(ascii: " "),
            first != UInt8(ascii: "\t")
        else { return readOther(line, escapes: escapes) }
        format = .combined
        guard let failure = combined.parseInline(line, into: &record, escapes: escapes) else {
            // Origin-form targets start with `/`: one byte on the common line.
            if record.target.first == UInt8(ascii: "h"), Self.cutByVarnish(record) { return .truncated }
            return nil
        }
        return other(line, refused: failure)
    }

    /// `read` for every line but the common one.
    @inline(never)
    private mutating func readOther(_ line: UnsafeRawBufferPointer, escapes: Bool) -> MalformedReason? {
        if let fixed {
            format = fixed
            return parse(line, as: fixedReader, escapes: escapes)
        }
        let shape = RecordFormat.shape(line)
        format = shape
        switch shape {
        case .json:
            let failure = json.parse(line, into: &record)
            if failure == nil { format = json.shape }
            return failure
        case .envoy:
            guard let failure = envoy.parse(line, into: &record) else { return nil }
            guard combined.parse(line, into: &record, escapes: escapes) == nil else { return failure }
            format = .combined
            return nil
        default:
            if w3c.hasLayout && W3CLogParser.startsWithDate(line) {
                format = w3c.format
                return w3c.parse(line, into: &record)
            }
            guard let failure = combined.parse(line, into: &record, escapes: escapes) else {
                // Origin-form targets start with `/`: one byte on the common line.
                if record.target.first == UInt8(ascii: "h"), Self.cutByVarnish(record) { return .truncated }
                return nil
            }
            return other(line, refused: failure)
        }
    }

    /// Whether `line` is a W3C directive (`#Fields:`, `#Version:`, …),
    /// read as one — a `#Fields:` line sets the columns of the lines after
    /// it — when the lines are read per record or as W3C.
    @inline(__always)
    package mutating func directive(_ line: UnsafeRawBufferPointer) -> Bool {
        guard fixed == nil || fixedReader == .w3c, W3CLogParser.isDirective(line) else { return false }
        w3c.directive(line)
        longWay = fixed != nil || w3c.hasLayout
        return true
    }

    /// Sets the W3C columns from a `#Fields:` line read ahead of a piece
    /// (`PieceCutter.Piece.header`), or forgets them.
    package mutating func fields(_ header: UnsafeRawBufferPointer?) {
        defer { longWay = fixed != nil || w3c.hasLayout }
        guard let header else { w3c.fields(nil); return }
        w3c.directive(header)
    }

    /// A line combined refused, under `--format auto`: ALB when its first
    /// word says so, else HAProxy; combined's reason when neither reads it.
    @inline(never)
    private mutating func other(_ line: UnsafeRawBufferPointer, refused: MalformedReason) -> MalformedReason? {
        if ALBLogParser.looksLike(line) {
            format = .alb
            return alb.parse(line, into: &record)
        }
        if W3CLogParser.startsWithDate(line) {
            // A W3C line with no `#Fields:` line ahead of it.
            format = .iis
            return .noFieldsHeader
        }
        let failure = haproxy.parse(line, into: &record)
        if failure == nil || failure == .truncated {
            format = .haproxy
            return failure
        }
        return refused
    }

    @inline(__always)
    private mutating func parse(_ line: UnsafeRawBufferPointer, as reader: FormatRow.Reader, escapes: Bool) -> MalformedReason? {
        switch reader {
        case .combined: return combined.parse(line, into: &record, escapes: escapes)
        case .json: return json.parse(line, into: &record)
        case .pasted: return pasted!.parse(line, into: &record)
        case .haproxy: return haproxy.parse(line, into: &record)
        case .envoy: return envoy.parse(line, into: &record)
        case .alb: return alb.parse(line, into: &record)
        case .w3c:
            let failure = w3c.parse(line, into: &record)
            if failure == nil { self.format = w3c.format }
            return failure
        }
    }

    /// Another format that reads a line the reader refused, if one does:
    /// what the hint for an input read in the wrong format names.
    package mutating func fit(_ line: UnsafeRawBufferPointer, escapes: Bool) -> RecordFormat? {
        let tried = format
        var scratch = LogRecord()
        if tried != .json && RecordFormat.shape(line) == .json {
            return json.parse(line, into: &scratch) == nil ? json.shape : nil
        }
        if tried != .combined && combined.parse(line, into: &scratch, escapes: escapes) == nil { return .combined }
        if tried != .alb && ALBLogParser.looksLike(line) && alb.parse(line, into: &scratch) == nil { return .alb }
        if tried != .envoy && envoy.parse(line, into: &scratch) == nil { return .envoy }
        if tried != .haproxy && haproxy.parse(line, into: &scratch) == nil { return .haproxy }
        return nil
    }

    /// Varnish (`varnishncsa`, whose `%r` writes the absolute URL) keeps a
    /// log record in `vsl_reclen` bytes (255 by default): a URL of more
    /// is cut at 254 bytes, a `Location: …` header at 254 with its name,
    /// a value of 244. A combined record whose absolute target's path and
    /// query, or whose Location, has exactly that length was cut by its
    /// writer: truncated, never read as a mismatch. Only a record whose
    /// target is absolute, as Varnish writes it, is asked (nginx and
    /// Apache log the path, and a Location of 244 bytes is theirs).
    static let varnishURLCut = 254
    static let varnishLocationCut = 244

    static func cutByVarnish(_ record: LogRecord) -> Bool {
        let t = record.target
        guard t.count > 8, t[0] == UInt8(ascii: "h"), let scheme = Bytes.find(.slash, in: t), scheme + 1 < t.count, t[scheme + 1] == .slash,
            let path = Bytes.find(.slash, in: t, from: scheme + 2)
        else { return false }
        if t.count - path == varnishURLCut { return true }
        if case .value(let location) = record.location, location.count == varnishLocationCut { return true }
        return false
    }

    /// Whether a line refused as `truncated` held a flip record: what is
    /// left of it names two of `client_id`, `state`, `redirect_uri`, or a
    /// `state` beside a `code` or an `error` (a return, as a Location
    /// captured ahead of the request shows it).
    package static func isFlipRecord(_ line: UnsafeRawBufferPointer) -> Bool {
        let state = Bytes.containsCaseInsensitive(line, "state=")
        var names = state ? 1 : 0
        if Bytes.containsCaseInsensitive(line, "client_id=") { names += 1 }
        if Bytes.containsCaseInsensitive(line, "redirect_uri=") { names += 1 }
        return names >= 2 || (state && (Bytes.containsCaseInsensitive(line, "code=") || Bytes.containsCaseInsensitive(line, "error=")))
    }
}

/// How the lines of a piece (or an input) were read: records per format,
/// and of the lines that failed, how many another format reads — what
/// the hint for an input read in the wrong format is made from.
package struct FormatTally: Sendable, Equatable {
    /// Records per `RecordFormat.rawValue` (a vector: counted on every
    /// line without an array's copy-on-write check).
    package var records = SIMD16<Int64>()
    /// Lines their format's parser refused (not over-long, NUL or UTF-8).
    package var unparsed = 0
    /// Of those, how many each other format reads.
    package var fits = SIMD16<Int64>()

    package init() {}

    package mutating func add(_ other: FormatTally) {
        records &+= other.records
        fits &+= other.fits
        unparsed += other.unparsed
    }

    /// The format's name when every record was read in one, `mixed` when
    /// in several, `none` when no line was read.
    package var name: String {
        let used = formats
        switch used.count {
        case 0: return "none"
        case 1: return used[0].name
        default: return "mixed"
        }
    }

    /// The formats of its records, most records first (ties by name).
    package var formats: [RecordFormat] {
        RecordFormat.allCases.filter { records[$0.rawValue] > 0 }
            .sorted { (records[$0.rawValue], $1.name) > (records[$1.rawValue], $0.name) }
    }

    /// The server whose times carry no zone (`FormatRow.zoneless`) when
    /// records of its format were read without one: more of them than the
    /// `zoned` whose zone a line gave (a syslog header's). Nil when every
    /// record's time carried its zone.
    package func zoneless(zoned: Int) -> String? {
        for row in FormatTable.rows {
            guard let server = row.zoneless, records[row.format.rawValue] > (row.reader == .haproxy ? Int64(zoned) : 0) else { continue }
            return server
        }
        return nil
    }

    /// The format that reads most of the refused lines, with how many.
    package var bestFit: (format: RecordFormat, lines: Int)? {
        guard let best = RecordFormat.allCases.max(by: { (fits[$0.rawValue], $1.name) < (fits[$1.rawValue], $0.name) }),
            fits[best.rawValue] > 0
        else { return nil }
        return (best, Int(fits[best.rawValue]))
    }
}
