import Testing

@testable import Parsing

/// Round trips: random records, each written as its own server writes it —
/// with that server's escaping, and its `-` for an absent value — then read
/// back by flipaudit's reader and compared field for field (time in ms since
/// the epoch, client, method, target, status, Location, and how sure the
/// record is of them). A parser that loses, adds or mis-decodes a byte, shifts
/// a field, or reads a time in the wrong zone fails here; the message names
/// the seed, the record's number and the line as written (the records come
/// from `SplitMix` alone: the same seed draws the same lines).
@Suite("Round trips: each server's lines read back as the server had the record")
struct RoundTripTests {
    /// The seeds; each draws `count` records per format.
    static let seeds: [UInt64] = [1, 2, 3, 20_261_122]
    static let count = 500
    /// Room for the longest line drawn: a query of some thousand pieces,
    /// each escaped up to four bytes to one.
    static let maxLine = 1 << 18

    /// nginx's `combined` + `"$sent_http_location"` (or its `main`, with
    /// `"$http_x_forwarded_for"` before the Location) as ngx_http_log_module
    /// writes it: `"`, `\` and bytes below 0x20 or above 0x7E as `\xHH`, `-`
    /// for a value not found. Apache's `combined` + `"%{Location}o"` (or with
    /// `%D` before the Location) as mod_log_config writes it: `\"` and `\\`,
    /// whitespace in C notation (`\t`, `\n`, `\r`, `\v`, `\b`), other bytes
    /// outside 0x20–0x7E as `\xhh`, `-` for an absent header. Read under
    /// `--format combined` and `--format auto` alike; the Location as
    /// docs/formats.md says a combined line holds it.
    @Test("combined, as nginx and Apache escape it: time, client, method, target, status and Location", arguments: seeds)
    func combinedFamily(seed: UInt64) throws {
        var random = RoundTripRandom(seed: seed)
        let fixed = try RecordReader(.fixed(.combined), maxLine: Self.maxLine)
        let auto = try RecordReader(.auto, maxLine: Self.maxLine)
        var check = RoundTripCheck(seed: seed, [("--format combined", fixed), ("--format auto", auto)])
        var previous: RoundTripRecord?
        for index in 0..<Self.count {
            let r = random.record(.escaping, millis: false, after: previous)
            previous = r
            let extra = random.chance(3)
            let written = random.chance(2) ? RoundTripWrite.nginxCombined(r, main: extra) : RoundTripWrite.apacheCombined(r, duration: extra)
            check.line(written.line, index: index, want: written.want, format: .combined)
        }
        #expect(check.failures.isEmpty, "\(check.summary)")
    }

    /// Three pasted nginx formats, written with nginx's default escaping
    /// (`\xHH`, `-` for a value not found): the `log_format flip` of
    /// docs/formats.md, in two quoted parts; a `log_format … escape=default`
    /// with `$msec`, `$request_method` and `$request_uri` apart and
    /// `$upstream_http_location`; a bare string whose client is
    /// `$http_x_forwarded_for` (its first address; `-` an empty client) and
    /// whose time is `$time_iso8601` in the server's zone.
    @Test("a pasted nginx log_format: $time_local, $msec, $time_iso8601; $request or its parts; X-Forwarded-For as the client", arguments: seeds)
    func nginxLogFormat(seed: UInt64) throws {
        var random = RoundTripRandom(seed: seed)
        for (format, text) in RoundTripWrite.nginxFormats.enumerated() {
            let reader = try RecordReader(.logFormat(text), maxLine: Self.maxLine)
            var check = RoundTripCheck(seed: seed, [("log_format #\(format)", reader)])
            var previous: RoundTripRecord?
            for index in 0..<Self.count {
                let r = random.record(.escaping, millis: format == 1, after: previous)
                previous = r
                let written = RoundTripWrite.nginxPasted(r, format: format)
                check.line(written.line, index: index, want: written.want, format: .nginx)
            }
            #expect(check.failures.isEmpty, "\(text)\n\(check.summary)")
        }
    }

    /// Two pasted Apache formats, written as mod_log_config escapes `%r`,
    /// `%m`, `%U`, `%q`, `%i` and `%o` (ap_escape_logitem: `\"`, `\\`, `\t`
    /// and the other C whitespace escapes, `\xhh`; `-` for an absent header):
    /// the `LogFormat … flip` line of docs/formats.md (`%t`, `"%r"`, `%D`
    /// before the Location), and a time in pieces,
    /// `[%{%Y-%m-%dT%H:%M:%S}t.%{usec_frac}t %{%z}t]`, in zones such as
    /// -0330 (every other record), with `"%m %U%q %H"` for the request.
    @Test("a pasted Apache LogFormat: %t, or a split time with usec_frac and %z (-0330 and others); %r, or %m %U%q", arguments: seeds)
    func apacheLogFormat(seed: UInt64) throws {
        var random = RoundTripRandom(seed: seed)
        for (format, text) in RoundTripWrite.apacheFormats.enumerated() {
            let reader = try RecordReader(.logFormat(text), maxLine: Self.maxLine)
            var check = RoundTripCheck(seed: seed, [("LogFormat #\(format)", reader)])
            var previous: RoundTripRecord?
            for index in 0..<Self.count {
                var r = random.record(.escaping, millis: format == 1, after: previous)
                if format == 1 && random.chance(2) { r.zone = -210 }
                previous = r
                let written = RoundTripWrite.apachePasted(r, format: format)
                check.line(written.line, index: index, want: written.want, format: .apache)
            }
            #expect(check.failures.isEmpty, "\(text)\n\(check.summary)")
        }
    }

    /// HAProxy `option httplog` (HAProxy's log.c: the request's `"`, `#` and
    /// bytes below 0x20 or from 0x7F as `#XX`; in captured headers `{`, `|`
    /// and `}` too), raw, behind an RFC 3164 header, or behind rsyslog's RFC
    /// 3339 one, whose zone is the accept date's; the others read in `--tz`.
    /// Captures (`capture request header Host`, `… User-Agent`, `capture
    /// response header Location`, each `len 8192`) on some records, and
    /// `log … len 65535` with `tune.http.logurilen 65535`, so that HAProxy
    /// cuts no line: the Location is a redirect record's captured target.
    @Test("HAProxy httplog: raw, RFC 3164 and rsyslog RFC 3339 headers; #XX escapes; captured Host, User-Agent and Location", arguments: seeds)
    func haproxyHTTPLog(seed: UInt64) throws {
        var random = RoundTripRandom(seed: seed)
        let tz = random.pick(RoundTripClock.zones)
        let zone = RoundTripClock.localZone(tz)
        let name = tz == 0 ? "(UTC)" : RoundTripClock.offset(tz, colon: true)
        let fixed = try RecordReader(.fixed(.haproxy), maxLine: Self.maxLine, zone: zone)
        let auto = try RecordReader(.auto, maxLine: Self.maxLine, zone: zone)
        var check = RoundTripCheck(seed: seed, [("--format haproxy --tz \(name)", fixed), ("--format auto --tz \(name)", auto)])
        var previous: RoundTripRecord?
        for index in 0..<Self.count {
            var r = random.record(.escaping, millis: true, after: previous)
            let framing = random.pick([RoundTripFraming.raw, .rfc3164, .rsyslog])
            // The accept date is the host's wall clock: --tz, unless the
            // header carries the zone itself.
            if framing != .rsyslog { r.zone = tz }
            previous = r
            let requestCapture = random.chance(2)
            let responseCapture = !random.chance(4)
            let zulu = random.chance(2)
            let written = RoundTripWrite.haproxy(r, framing: framing, requestCapture: requestCapture, responseCapture: responseCapture, zulu: zulu)
            check.line(written.line, index: index, want: written.want, format: .haproxy)
        }
        #expect(check.failures.isEmpty, "\(check.summary)")
    }

    /// HAProxy's own `log … format rfc5424` header (log.c,
    /// `update_log_hdr_rfc5424`: `<PRI>1 YYYY-MM-DDTHH:MM:SS[.ffffff]+hh:mm
    /// host …`, the local time and its offset) before an httplog message
    /// whose accept date is on the same clock: by docs/formats.md, a syslog
    /// header whose time has a zone gives the accept date its zone, whatever
    /// `--tz` says (here always another zone).
    @Test("HAProxy behind its own RFC 5424 header: the header's zone is the accept date's, whatever --tz says", arguments: seeds)
    func haproxyRFC5424Header(seed: UInt64) throws {
        var random = RoundTripRandom(seed: seed)
        let tz = random.pick(RoundTripClock.zones)
        let zone = RoundTripClock.localZone(tz)
        let fixed = try RecordReader(.fixed(.haproxy), maxLine: Self.maxLine, zone: zone)
        let auto = try RecordReader(.auto, maxLine: Self.maxLine, zone: zone)
        var check = RoundTripCheck(seed: seed, [("--format haproxy --tz \(tz) min", fixed), ("--format auto --tz \(tz) min", auto)])
        let others = RoundTripClock.zones.filter { $0 != tz }
        for index in 0..<Self.count {
            var r = random.record(.escaping, millis: true)
            r.zone = random.pick(others)
            let requestCapture = random.chance(2)
            let responseCapture = !random.chance(4)
            let zulu = random.chance(2)
            let written = RoundTripWrite.haproxy(r, framing: .rfc5424, requestCapture: requestCapture, responseCapture: responseCapture, zulu: zulu)
            check.line(written.line, index: index, want: written.want, format: .haproxy)
        }
        #expect(check.failures.isEmpty, "\(check.summary)")
    }

    /// JSON lines: nginx's `escape=json` (`\"`, `\\`, `\n`, `\r`, `\t`,
    /// `\b`, `\f`, `\u00XX`; an absent value `""`), and flat keys written as
    /// any JSON encoder may: every character raw or escaped (`\/`, `\uXXXX`
    /// in either case, surrogate pairs), keys in any order with spaces and
    /// tabs between tokens, times as RFC 3339 (0 to 9 fraction digits, any
    /// zone form), common-log, epoch seconds, ms or ns, numbers or strings;
    /// the target whole, as a path and a `query`/`args`, or a full URL; and
    /// lower-ranked keys of the same role beside the one that must win
    /// (docs/formats.md: first found wins, per role), nested objects and
    /// arrays that hold role names and must be skipped.
    @Test("JSON lines: nginx escape=json, and flat keys with any JSON escape, order, spacing, time unit and lower-ranked decoys", arguments: seeds)
    func jsonLines(seed: UInt64) throws {
        var random = RoundTripRandom(seed: seed)
        let fixed = try RecordReader(.fixed(.json), maxLine: Self.maxLine)
        let auto = try RecordReader(.auto, maxLine: Self.maxLine)
        var check = RoundTripCheck(seed: seed, [("--format json", fixed), ("--format auto", auto)])
        var previous: RoundTripRecord?
        for index in 0..<Self.count {
            let nginx = random.chance(2)
            let msec = random.chance(2)
            let r = random.record(.json, millis: !nginx || msec, after: previous)
            previous = r
            let written: RoundTripWritten
            if nginx {
                written = RoundTripWrite.nginxJSON(r, msec: msec)
            } else {
                written = RoundTripWrite.anyJSON(r, &random)
            }
            check.line(written.line, index: index, want: written.want, format: .json)
        }
        #expect(check.failures.isEmpty, "\(check.summary)")
    }

    /// Caddy's JSON access log as its zap encoder writes it (`\"`, `\\`,
    /// `\n`, `\r`, `\t`, other control bytes `\u00xx`, the rest raw): `ts` in
    /// epoch seconds (Go's shortest float text), the request nested, 2.6's
    /// `remote_ip` alone or 2.7's `client_ip` beside a proxy's `remote_ip`
    /// (the client's wins), `resp_headers.Location` as an array when sent.
    @Test("Caddy's JSON log, 2.6 (remote_ip) and 2.7+ (client_ip): zap's escaping, ts in seconds, resp_headers.Location", arguments: seeds)
    func caddyLog(seed: UInt64) throws {
        var random = RoundTripRandom(seed: seed)
        let fixed = try RecordReader(.fixed(.caddy), maxLine: Self.maxLine)
        let auto = try RecordReader(.auto, maxLine: Self.maxLine)
        var check = RoundTripCheck(seed: seed, [("--format caddy", fixed), ("--format auto", auto)])
        var previous: RoundTripRecord?
        for index in 0..<Self.count {
            let r = random.record(.json, millis: true, after: previous)
            previous = r
            let written = RoundTripWrite.caddy(r, clientIP: random.chance(2), tls: random.chance(3))
            check.line(written.line, index: index, want: written.want, format: .caddy)
        }
        #expect(check.failures.isEmpty, "\(check.summary)")
    }

    /// Any JSON log mapped with `--json-field ROLE=PATH`: nested paths, an
    /// array's first string, a full URL as the target, the time in the unit
    /// given (which overrides the size rule: milliseconds of 1970 read as
    /// milliseconds), and built-in keys of the same roles beside the mapped
    /// ones, which come first (docs/formats.md).
    @Test("--json-field: nested paths, each time unit, mapped paths before built-in keys", arguments: seeds)
    func jsonFieldMapping(seed: UInt64) throws {
        var random = RoundTripRandom(seed: seed)
        for unit in [JSONLineParser.TimeUnit.s, .ms, .us, .ns, .iso] {
            let fields = RoundTripWrite.mappedFields
            let fixed = try RecordReader(.fixed(.json), maxLine: Self.maxLine, jsonFields: fields, timeUnit: unit)
            let auto = try RecordReader(.auto, maxLine: Self.maxLine, jsonFields: fields, timeUnit: unit)
            let mapping = "--json-field time=t:\(unit.rawValue) …"
            var check = RoundTripCheck(seed: seed, [("--format json \(mapping)", fixed), ("--format auto \(mapping)", auto)])
            var previous: RoundTripRecord?
            for index in 0..<Self.count {
                let r = random.record(.json, millis: true, after: previous)
                previous = r
                let written = RoundTripWrite.mappedJSON(r, unit: unit, &random)
                check.line(written.line, index: index, want: written.want, format: .json)
            }
            #expect(check.failures.isEmpty, "\(check.summary)")
        }
    }

    /// IIS W3C extended logs: `#Software:`, `#Version:`, `#Date:` and
    /// `#Fields:` directives, written again (a restart) with other columns —
    /// any subset and order after `date time` — so each line must be read by
    /// the last header before it; a space in a value written `+`, an empty
    /// value `-`; the query as the client sent it (a `%` kept); times in the
    /// server's zone, read in `--tz`.
    @Test("IIS W3C: #Fields in any order and subset, written again mid-file; + for a space, - for empty; times in --tz", arguments: seeds)
    func iisW3C(seed: UInt64) throws {
        var random = RoundTripRandom(seed: seed)
        let tz = random.pick(RoundTripClock.zones)
        let zone = RoundTripClock.localZone(tz)
        let fixed = try RecordReader(.fixed(.iis), maxLine: Self.maxLine, zone: zone)
        let auto = try RecordReader(.auto, maxLine: Self.maxLine, zone: zone)
        var check = RoundTripCheck(seed: seed, [("--format iis --tz \(tz) min", fixed), ("--format auto --tz \(tz) min", auto)])
        var layout: [String] = []
        var previous: RoundTripRecord?
        for index in 0..<Self.count {
            var r = random.record(.iis, millis: false, after: previous)
            r.zone = tz
            previous = r
            if layout.isEmpty || random.chance(60) {
                layout = random.iisLayout()
                for directive in RoundTripWrite.iisDirectives(layout, r) { check.directive(directive, index: index) }
            }
            let written = RoundTripWrite.iis(r, layout: layout)
            check.line(written.line, index: index, want: written.want, format: .iis)
        }
        #expect(check.failures.isEmpty, "\(check.summary)")
    }

    /// CloudFront standard logs (tab-separated, a `#Version:` and `#Fields:`
    /// header per file, the 33 fields of today or the 24 of older files):
    /// `cs-uri-query` percent-encoded once more than the client sent it
    /// (`%` written `%25`, as docs/formats.md and the fixture from AWS's
    /// example say), so the query must come back as sent; the User-Agent
    /// encoded (`%20`); times in UTC whatever `--tz` says (never UTC here).
    @Test("CloudFront standard logs: tabs, the query percent-encoded once more, UTC whatever --tz says", arguments: seeds)
    func cloudFrontW3C(seed: UInt64) throws {
        var random = RoundTripRandom(seed: seed)
        let tz = random.pick(RoundTripClock.zones.filter { $0 != 0 })
        let zone = RoundTripClock.fixedZone(tz)
        let fixed = try RecordReader(.fixed(.cloudfront), maxLine: Self.maxLine, zone: zone)
        let auto = try RecordReader(.auto, maxLine: Self.maxLine, zone: zone)
        var check = RoundTripCheck(seed: seed, [("--format cloudfront --tz \(tz) min", fixed), ("--format auto --tz \(tz) min", auto)])
        var fields: [String] = []
        var previous: RoundTripRecord?
        for index in 0..<Self.count {
            let r = random.record(.cloudFront, millis: false, after: previous)
            previous = r
            if fields.isEmpty || random.chance(60) {
                // A new file, maybe of the older 24 fields.
                fields = random.chance(3) ? Array(RoundTripWrite.cloudFrontFields.prefix(24)) : RoundTripWrite.cloudFrontFields
                for directive in RoundTripWrite.cloudFrontDirectives(fields) { check.directive(directive, index: index) }
            }
            let written = RoundTripWrite.cloudFront(r, fields: fields)
            check.line(written.line, index: index, want: written.want, format: .cloudfront)
        }
        #expect(check.failures.isEmpty, "\(check.summary)")
    }
}

// MARK: - Records

/// One request as its server saw it: the fields each format logs, before
/// any escaping.
struct RoundTripRecord {
    /// Milliseconds since the epoch, UTC.
    var time: Int64
    /// Microseconds past `time`'s millisecond (0–999), for the formats that
    /// log them.
    var micros: Int
    /// The writer's clock: minutes east of UTC.
    var zone: Int
    var client: [UInt8]
    var port: Int
    /// The authenticated user; empty: none.
    var user: [UInt8]
    var method: [UInt8]
    /// Starts with `/`; never holds a `?` or a space.
    var path: [UInt8]
    /// The query without its `?`; nil: the target has no `?`.
    var query: [UInt8]?
    var status: Int
    var bytes: Int
    /// Request headers; empty: not sent.
    var referer: [UInt8]
    var userAgent: [UInt8]
    /// X-Forwarded-For as sent, and its first address; empty: not sent.
    var forwardedFor: [UInt8]
    var forwardedClient: [UInt8]
    /// The response's Location; empty: none sent.
    var location: [UInt8]

    /// The request target: path, and `?` and the query when there is one.
    var target: [UInt8] {
        guard let query else { return path }
        var out = path
        out.append(UInt8(ascii: "?"))
        out += query
        return out
    }

    /// `METHOD TARGET HTTP/1.1`.
    var requestLine: [UInt8] {
        var out = method
        out.append(UInt8(ascii: " "))
        out += target
        out += " HTTP/1.1".utf8
        return out
    }
}

/// A line as a server writes it, and what flipaudit must read from it.
struct RoundTripWritten {
    var line: [UInt8]
    var want: RoundTripRead
}

/// A record's fields as bytes, as a test compares them: what a line must
/// read as, or what a reader read (copied out of its views).
struct RoundTripRead: Equatable {
    var time: Int64
    var client: [UInt8]
    var method: [UInt8]
    var target: [UInt8]
    var status: Int
    var location: RoundTripLocation
    /// `LogRecord.locationAmbiguous`: never, for the lines written here.
    var ambiguous = false
    var zoneFromHeader = false
}

extension RoundTripRead {
    /// What `record` holds, its views copied (they last until the next line).
    init(_ record: LogRecord) {
        let location: RoundTripLocation
        switch record.location {
        case .notLogged: location = .notLogged
        case .empty: location = .empty
        case .emptyByPlace: location = .emptyByPlace
        case .value(let value): location = .value(Array(value))
        }
        self.init(
            time: record.time, client: Array(record.clientIP), method: Array(record.method), target: Array(record.target),
            status: record.status, location: location, ambiguous: record.locationAmbiguous, zoneFromHeader: record.zoneFromHeader)
    }

    /// What a line that logs every field of `r` must read as.
    init(record r: RoundTripRecord, location: RoundTripLocation) {
        self.init(time: r.time, client: r.client, method: r.method, target: r.target, status: r.status, location: location)
    }

    /// Each field that differs from `want`, in words.
    func differences(from want: RoundTripRead) -> [String] {
        typealias T = RoundTripText
        var out: [String] = []
        if time != want.time { out.append("time \(time) (\(RoundTripClock.utc(time))), want \(want.time) (\(RoundTripClock.utc(want.time)))") }
        if client != want.client { out.append("client \(T.show(client)), want \(T.show(want.client))") }
        if method != want.method { out.append("method \(T.show(method)), want \(T.show(want.method))") }
        if target != want.target { out.append("target \(T.show(target)), want \(T.show(want.target))") }
        if status != want.status { out.append("status \(status), want \(want.status)") }
        if location != want.location { out.append("Location \(location), want \(want.location)") }
        if ambiguous != want.ambiguous { out.append("Location ambiguous \(ambiguous), want \(want.ambiguous)") }
        if zoneFromHeader != want.zoneFromHeader { out.append("zone from header \(zoneFromHeader), want \(want.zoneFromHeader)") }
        return out
    }
}

/// A record's Location, as `LogRecord.Location` says it.
enum RoundTripLocation: Equatable, CustomStringConvertible {
    case notLogged, empty, emptyByPlace
    case value([UInt8])

    var description: String {
        switch self {
        case .notLogged: return "not logged"
        case .empty: return "empty"
        case .emptyByPlace: return "empty (by its place)"
        case .value(let bytes): return RoundTripText.show(bytes)
        }
    }

    /// A field the format names as the Location: `-` (or `""`) is empty.
    static func named(_ r: RoundTripRecord) -> Self { r.location.isEmpty ? .empty : .value(r.location) }

    /// The one quoted field after a combined line's User-Agent: the
    /// Location, `-` empty by its place (docs/formats.md).
    static func afterUserAgent(_ r: RoundTripRecord) -> Self { r.location.isEmpty ? .emptyByPlace : .value(r.location) }

    /// One of several extra fields, or a capture: a redirect record's target
    /// (every Location drawn here is an absolute URL with a path), nothing
    /// on other records.
    static func redirectTarget(_ r: RoundTripRecord) -> Self {
        (300..<400).contains(r.status) && !r.location.isEmpty ? .value(r.location) : .notLogged
    }
}

/// How an HAProxy message is framed.
enum RoundTripFraming {
    /// `log stdout format raw`.
    case raw
    /// `<PRI>Mmm dd HH:MM:SS host haproxy[pid]: `.
    case rfc3164
    /// rsyslog's RFC 3339 time (`RSYSLOG_FileFormat`), with its zone.
    case rsyslog
    /// HAProxy's own `format rfc5424`: `<PRI>1 time+zone host haproxy pid - - `.
    case rfc5424
}

// MARK: - Reading back

/// Reads each line with every reader, and keeps a description of each read
/// that did not give the record back: the test's one expectation shows the
/// first few, each with the seed, the record's number and the line.
struct RoundTripCheck {
    let seed: UInt64
    private var labels: [String]
    private var readers: [RecordReader]
    private(set) var failures: [String] = []
    private var reads = 0

    init(seed: UInt64, _ readers: [(String, RecordReader)]) {
        self.seed = seed
        labels = readers.map { $0.0 }
        self.readers = readers.map { $0.1 }
    }

    /// Hands a W3C directive line to every reader; each must take it as one.
    mutating func directive(_ line: [UInt8], index: Int) {
        for k in readers.indices {
            let taken = line.withUnsafeBytes { readers[k].directive($0) }
            if !taken { failures.append("seed \(seed), before record \(index), \(labels[k]): not taken as a directive: \(RoundTripText.show(line))") }
        }
    }

    /// Reads `line` with every reader: each must give `want` back, read in
    /// `format`.
    mutating func line(_ line: [UInt8], index: Int, want: RoundTripRead, format: RecordFormat) {
        for k in readers.indices {
            reads += 1
            let (failure, got, readAs) = Self.read(line, &readers[k])
            var problems: [String]
            if let failure {
                problems = ["refused: \(failure.rawValue)"]
            } else {
                problems = got.differences(from: want)
                if readAs != format { problems.append("read as \(readAs.name), want \(format.name)") }
            }
            guard !problems.isEmpty else { continue }
            failures.append("seed \(seed), record \(index), \(labels[k]): \(problems.joined(separator: "; "))\n  line: \(RoundTripText.show(line))")
        }
    }

    /// One line through `reader`: why it was refused (nil: read), its fields,
    /// and the format it was read in. As the line scanner does, a line with no
    /// backslash is promised to need no unescaping.
    static func read(_ line: [UInt8], _ reader: inout RecordReader) -> (MalformedReason?, RoundTripRead, RecordFormat) {
        let (failure, got) = line.withUnsafeBytes { raw -> (MalformedReason?, RoundTripRead) in
            let reason = reader.read(raw, escapes: raw.contains(UInt8(ascii: "\\")))
            return (reason, RoundTripRead(reader.record))
        }
        return (failure, got, reader.format)
    }

    /// The expectation's message: how many reads failed, and the first few.
    var summary: String {
        let first = failures.prefix(4).joined(separator: "\n")
        return "seed \(seed): \(failures.count) of \(reads) reads did not give the record back (same seed, same lines)\n\(first)"
    }
}

/// Bytes shown in a message.
enum RoundTripText {
    /// Printable ASCII as it is; every other byte, and `"` and `\`, as `\xHH`.
    static func show(_ bytes: [UInt8]) -> String {
        var out = "\""
        for b in bytes {
            if b >= 0x20 && b < 0x7F && b != 0x22 && b != 0x5C {
                out.unicodeScalars.append(Unicode.Scalar(b))
            } else {
                out += "\\x" + (b < 0x10 ? "0" : "") + String(b, radix: 16, uppercase: true)
            }
        }
        return out + "\""
    }
}

// MARK: - Writing: each server's escaping

/// Each server's escaping of a value, as its own source writes it.
enum RoundTripEscape {
    static let upper = Array("0123456789ABCDEF".utf8)
    static let lower = Array("0123456789abcdef".utf8)

    /// nginx's default `log_format` escaping (ngx_http_log_escape): `"`,
    /// `\`, and bytes below 0x20 or above 0x7E as `\xHH`.
    static func nginxBytes(_ value: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        for b in value {
            if b == 0x22 || b == 0x5C || b < 0x20 || b > 0x7E {
                out += [0x5C, UInt8(ascii: "x"), upper[Int(b >> 4)], upper[Int(b & 0x0F)]]
            } else {
                out.append(b)
            }
        }
        return out
    }

    /// A variable as nginx logs it: escaped, `-` when not found.
    static func nginx(_ value: [UInt8]) -> [UInt8] { value.isEmpty ? [UInt8(ascii: "-")] : nginxBytes(value) }

    /// Apache's ap_escape_logitem: `"` and `\` after a backslash, `\b`, `\n`,
    /// `\r`, `\t`, `\v` by name, every other byte outside 0x20–0x7E as `\xhh`.
    static func apacheBytes(_ value: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        for b in value {
            switch b {
            case 0x08: out += [0x5C, UInt8(ascii: "b")]
            case 0x09: out += [0x5C, UInt8(ascii: "t")]
            case 0x0A: out += [0x5C, UInt8(ascii: "n")]
            case 0x0B: out += [0x5C, UInt8(ascii: "v")]
            case 0x0D: out += [0x5C, UInt8(ascii: "r")]
            case 0x22, 0x5C: out += [0x5C, b]
            case 0x20...0x7E: out.append(b)
            default: out += [0x5C, UInt8(ascii: "x"), lower[Int(b >> 4)], lower[Int(b & 0x0F)]]
            }
        }
        return out
    }

    /// A directive's value as mod_log_config logs it: escaped, `-` when absent.
    static func apache(_ value: [UInt8]) -> [UInt8] { value.isEmpty ? [UInt8(ascii: "-")] : apacheBytes(value) }

    /// HAProxy's `#XX` (lf_encode_string): `"`, `#` and bytes below 0x20 or
    /// from 0x7F in the request (url_encode_map); `{`, `|` and `}` too in a
    /// captured header (hdr_encode_map).
    static func haproxy(_ value: [UInt8], header: Bool) -> [UInt8] {
        var out: [UInt8] = []
        for b in value {
            let mark = b == 0x22 || b == 0x23 || (header && (b == 0x7B || b == 0x7C || b == 0x7D))
            if b < 0x20 || b >= 0x7F || mark {
                out += [UInt8(ascii: "#"), upper[Int(b >> 4)], upper[Int(b & 0x0F)]]
            } else {
                out.append(b)
            }
        }
        return out
    }

    /// nginx's `escape=json` (ngx_escape_json): `\"`, `\\`, `\n`, `\r`,
    /// `\t`, `\b`, `\f`, other bytes below 0x20 `\u00XX`, the rest raw; a
    /// value not found is empty.
    static func jsonNginx(_ value: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        for b in value {
            switch b {
            case 0x22, 0x5C: out += [0x5C, b]
            case 0x0A: out += [0x5C, UInt8(ascii: "n")]
            case 0x0D: out += [0x5C, UInt8(ascii: "r")]
            case 0x09: out += [0x5C, UInt8(ascii: "t")]
            case 0x08: out += [0x5C, UInt8(ascii: "b")]
            case 0x0C: out += [0x5C, UInt8(ascii: "f")]
            case 0x00..<0x20: out += Array("\\u00".utf8) + [upper[Int(b >> 4)], upper[Int(b & 0x0F)]]
            default: out.append(b)
            }
        }
        return out
    }

    /// zap's JSON encoder, Caddy's (tryAddRuneSelf): `\"`, `\\`, `\n`, `\r`,
    /// `\t`, other bytes below 0x20 `\u00xx`, the rest raw (valid UTF-8).
    static func zap(_ value: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        for b in value {
            switch b {
            case 0x22, 0x5C: out += [0x5C, b]
            case 0x0A: out += [0x5C, UInt8(ascii: "n")]
            case 0x0D: out += [0x5C, UInt8(ascii: "r")]
            case 0x09: out += [0x5C, UInt8(ascii: "t")]
            case 0x00..<0x20: out += Array("\\u00".utf8) + [lower[Int(b >> 4)], lower[Int(b & 0x0F)]]
            default: out.append(b)
            }
        }
        return out
    }

    /// A JSON string (quotes included) as any encoder may write `value`
    /// (UTF-8): each character raw where JSON allows it, or escaped — `\"`,
    /// `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`, or `\uXXXX` in either case,
    /// a surrogate pair beyond the BMP.
    static func jsonString(_ value: [UInt8], _ random: inout RoundTripRandom) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "\"")]
        for scalar in String(decoding: value, as: UTF8.self).unicodeScalars {
            let v = scalar.value
            let must = v < 0x20 || v == 0x22 || v == 0x5C
            if !must && !random.chance(6) {
                out += UTF8.encode(scalar)!
                continue
            }
            if let short = shortEscape(v), random.chance(2) {
                out += [0x5C, short]
                continue
            }
            let upperCase = random.chance(2)
            if v > 0xFFFF {
                let u = v - 0x10000
                out += unicodeEscape(0xD800 + (u >> 10), upper: upperCase)
                out += unicodeEscape(0xDC00 + (u & 0x3FF), upper: upperCase)
            } else {
                out += unicodeEscape(v, upper: upperCase)
            }
        }
        out.append(UInt8(ascii: "\""))
        return out
    }

    /// The letter of JSON's two-character escape for `v`, if it has one.
    static func shortEscape(_ v: UInt32) -> UInt8? {
        switch v {
        case 0x22: return UInt8(ascii: "\"")
        case 0x5C: return UInt8(ascii: "\\")
        case 0x2F: return UInt8(ascii: "/")
        case 0x08: return UInt8(ascii: "b")
        case 0x0C: return UInt8(ascii: "f")
        case 0x0A: return UInt8(ascii: "n")
        case 0x0D: return UInt8(ascii: "r")
        case 0x09: return UInt8(ascii: "t")
        default: return nil
        }
    }

    /// `\uXXXX` for a code unit.
    static func unicodeEscape(_ unit: UInt32, upper upperCase: Bool) -> [UInt8] {
        let digits = upperCase ? upper : lower
        var out: [UInt8] = [0x5C, UInt8(ascii: "u")]
        for shift: UInt32 in [12, 8, 4, 0] { out.append(digits[Int((unit >> shift) & 0x0F)]) }
        return out
    }

    /// A W3C (IIS) value: a space written `+`, an empty value `-`.
    static func w3c(_ value: [UInt8]) -> [UInt8] {
        value.isEmpty ? [UInt8(ascii: "-")] : value.map { $0 == 0x20 ? UInt8(ascii: "+") : $0 }
    }

    /// Bytes CloudFront percent-encodes besides controls, spaces and
    /// non-ASCII: its `%` (the second layer of encoding) among them.
    static let cloudFrontMarks = Array(#"%"<>\^`{|}"#.utf8)

    /// A CloudFront value: percent-encoded once more; empty `-`.
    static func cloudFront(_ value: [UInt8]) -> [UInt8] {
        if value.isEmpty { return [UInt8(ascii: "-")] }
        var out: [UInt8] = []
        for b in value {
            if b <= 0x20 || b >= 0x7F || cloudFrontMarks.contains(b) {
                out += [UInt8(ascii: "%"), upper[Int(b >> 4)], upper[Int(b & 0x0F)]]
            } else {
                out.append(b)
            }
        }
        return out
    }
}

// MARK: - Writing: each server's line

/// Each server's line for a record, and what flipaudit must read from it.
enum RoundTripWrite {
    typealias E = RoundTripEscape
    typealias C = RoundTripClock

    /// nginx's `combined` + `"$sent_http_location"`, or `main` (its
    /// `"$http_x_forwarded_for"` last) + it.
    static func nginxCombined(_ r: RoundTripRecord, main: Bool) -> RoundTripWritten {
        var out = r.client
        out += " - ".utf8
        out += E.nginx(r.user)
        out += " [\(C.commonLog(r.time, zone: r.zone))] \"".utf8
        out += E.nginx(r.requestLine)
        out += "\" \(r.status) \(r.bytes) \"".utf8
        out += E.nginx(r.referer)
        out += "\" \"".utf8
        out += E.nginx(r.userAgent)
        if main {
            out += "\" \"".utf8
            out += E.nginx(r.forwardedFor)
        }
        out += "\" \"".utf8
        out += E.nginx(r.location)
        out += "\"".utf8
        return RoundTripWritten(line: out, want: RoundTripRead(record: r, location: main ? .redirectTarget(r) : .afterUserAgent(r)))
    }

    /// Apache's `combined` + `"%{Location}o"`, or with `%D` before it.
    static func apacheCombined(_ r: RoundTripRecord, duration: Bool) -> RoundTripWritten {
        let sent = r.bytes == 0 ? "-" : String(r.bytes)
        var out = r.client
        out += " - ".utf8
        out += E.apache(r.user)
        out += " [\(C.commonLog(r.time, zone: r.zone))] \"".utf8
        out += E.apache(r.requestLine)
        out += "\" \(r.status) \(sent) \"".utf8
        out += E.apache(r.referer)
        out += "\" \"".utf8
        out += E.apache(r.userAgent)
        out += "\"".utf8
        if duration { out += " \(r.port * 7 % 100_000)".utf8 }
        out += " \"".utf8
        out += E.apache(r.location)
        out += "\"".utf8
        return RoundTripWritten(line: out, want: RoundTripRead(record: r, location: duration ? .redirectTarget(r) : .afterUserAgent(r)))
    }

    /// The pasted nginx formats `nginxPasted` writes, by number.
    static let nginxFormats = [
        """
        log_format flip '$remote_addr - $remote_user [$time_local] "$request" '
                        '$status $body_bytes_sent "$http_referer" "$http_user_agent" "$sent_http_location"';
        """,
        """
        log_format split escape=default '$remote_addr $msec "$request_method" "$request_uri" '
                                        '$status "$http_user_agent" "$upstream_http_location" $request_time';
        """,
        #"$http_x_forwarded_for [$time_iso8601] "$request" $status "$sent_http_location""#,
    ]

    /// A line of `nginxFormats[format]`.
    static func nginxPasted(_ r: RoundTripRecord, format: Int) -> RoundTripWritten {
        var out: [UInt8] = []
        var want = RoundTripRead(record: r, location: .named(r))
        switch format {
        case 0:
            out += r.client
            out += " - ".utf8
            out += E.nginx(r.user)
            out += " [\(C.commonLog(r.time, zone: r.zone))] \"".utf8
            out += E.nginx(r.requestLine)
            out += "\" \(r.status) \(r.bytes) \"".utf8
            out += E.nginx(r.referer)
            out += "\" \"".utf8
            out += E.nginx(r.userAgent)
            out += "\" \"".utf8
            out += E.nginx(r.location)
            out += "\"".utf8
        case 1:
            out += r.client
            out += " \(C.epoch(r.time)) \"".utf8
            out += E.nginx(r.method)
            out += "\" \"".utf8
            out += E.nginx(r.target)
            out += "\" \(r.status) \"".utf8
            out += E.nginx(r.userAgent)
            out += "\" \"".utf8
            out += E.nginx(r.location)
            out += "\" 0.004".utf8
        default:
            out += E.nginx(r.forwardedFor)
            out += " [\(C.iso(r.time, zone: r.zone))] \"".utf8
            out += E.nginx(r.requestLine)
            out += "\" \(r.status) \"".utf8
            out += E.nginx(r.location)
            out += "\"".utf8
            want.client = r.forwardedClient
        }
        return RoundTripWritten(line: out, want: want)
    }

    /// The pasted Apache formats `apachePasted` writes, by number.
    static let apacheFormats = [
        #"LogFormat "%h %l %u %t \"%r\" %>s %O \"%{Referer}i\" \"%{User-Agent}i\" %D \"%{Location}o\"" flip"#,
        #"LogFormat "%a %l %u [%{%Y-%m-%dT%H:%M:%S}t.%{usec_frac}t %{%z}t] \"%m %U%q %H\" %>s %b \"%{User-Agent}i\" \"%{Location}o\"" split"#,
    ]

    /// A line of `apacheFormats[format]`.
    static func apachePasted(_ r: RoundTripRecord, format: Int) -> RoundTripWritten {
        var out = r.client
        out += " - ".utf8
        out += E.apache(r.user)
        if format == 0 {
            out += " [\(C.commonLog(r.time, zone: r.zone))] \"".utf8
            out += E.apache(r.requestLine)
            out += "\" \(r.status) \(r.bytes + 180) \"".utf8
            out += E.apache(r.referer)
            out += "\" \"".utf8
            out += E.apache(r.userAgent)
            out += "\" \(r.port * 7 % 100_000) \"".utf8
        } else {
            let w = C.wall(r.time, zone: r.zone)
            let sent = r.bytes == 0 ? "-" : String(r.bytes)
            out += " [\(C.isoSeconds(w)).\(C.pad(w.millis * 1000 + r.micros, 6)) \(C.offset(r.zone, colon: false))] \"".utf8
            out += E.apache(r.method)
            out += " ".utf8
            // %U%q: the path, then `?` and the query when the request had one.
            out += E.apacheBytes(r.path)
            if let query = r.query {
                out += "?".utf8
                out += E.apacheBytes(query)
            }
            out += " HTTP/1.1\" \(r.status) \(sent) \"".utf8
            out += E.apache(r.userAgent)
            out += "\" \"".utf8
        }
        out += E.apache(r.location)
        out += "\"".utf8
        return RoundTripWritten(line: out, want: RoundTripRead(record: r, location: .named(r)))
    }

    /// An `option httplog` line behind `framing`, its accept date on `r`'s
    /// clock, with the captures asked for.
    static func haproxy(
        _ r: RoundTripRecord, framing: RoundTripFraming, requestCapture: Bool, responseCapture: Bool, zulu: Bool
    ) -> RoundTripWritten {
        let w = C.wall(r.time, zone: r.zone)
        let zone = zulu && r.zone == 0 ? "Z" : C.offset(r.zone, colon: true)
        let stamp = C.isoSeconds(w) + "." + C.pad(w.millis * 1000 + r.micros, 6) + zone
        var out: [UInt8] = []
        switch framing {
        case .raw: break
        case .rfc3164: out += "<134>\(C.syslog(w)) lb haproxy[812]: ".utf8
        case .rsyslog:
            if r.port % 2 == 0 { out += "<134>".utf8 }
            out += "\(stamp) lb haproxy[812]: ".utf8
        case .rfc5424:
            // Always `+hh:mm`; older HAProxy writes whole seconds.
            let fraction = r.port % 2 == 0 ? "." + C.pad(w.millis * 1000 + r.micros, 6) : ""
            out += "<134>1 \(C.isoSeconds(w))\(fraction)\(C.offset(r.zone, colon: true)) lb haproxy 812 - - ".utf8
        }
        out += r.client
        out += ":\(r.port) [\(C.haproxyDate(w))] www~ be/s1 0/0/1/2/3 \(r.status) \(r.bytes) - - ---- 1/1/0/0/0 0/0".utf8
        if requestCapture {
            out += " {partner.example:8443|".utf8
            out += E.haproxy(r.userAgent, header: true)
            out += "}".utf8
        }
        if responseCapture {
            out += " {".utf8
            out += E.haproxy(r.location, header: true)
            out += "}".utf8
        }
        out += " \"".utf8
        out += E.haproxy(r.requestLine, header: false)
        out += "\"".utf8
        var want = RoundTripRead(record: r, location: responseCapture ? .redirectTarget(r) : .notLogged)
        want.zoneFromHeader = framing == .rsyslog || framing == .rfc5424
        return RoundTripWritten(line: out, want: want)
    }

    /// nginx's `log_format … escape=json` with flat keys: the time as
    /// `"$time_iso8601"` or the number `$msec`.
    static func nginxJSON(_ r: RoundTripRecord, msec: Bool) -> RoundTripWritten {
        var out = Array(#"{"time":"#.utf8)
        out += (msec ? C.epoch(r.time) : "\"" + C.iso(r.time, zone: r.zone) + "\"").utf8
        out += #","remote_addr":""#.utf8
        out += E.jsonNginx(r.client)
        out += #"","request":""#.utf8
        out += E.jsonNginx(r.requestLine)
        out += #"","status":\#(r.status),"body_bytes_sent":\#(r.bytes),"http_referer":""#.utf8
        out += E.jsonNginx(r.referer)
        out += #"","http_user_agent":""#.utf8
        out += E.jsonNginx(r.userAgent)
        out += #"","sent_http_location":""#.utf8
        out += E.jsonNginx(r.location)
        out += #"","request_time":0.004}"#.utf8
        return RoundTripWritten(line: out, want: RoundTripRead(record: r, location: .named(r)))
    }

    /// Members of a JSON log that are no record field: objects and arrays
    /// that hold role names (skipped whole), and plain values.
    static let noise: [(key: String, value: String)] = [
        ("upstream", #"{"status":"502","uri":"/decoy","time":"2001-01-01T00:00:00Z","location":"https://decoy.example/x"}"#),
        ("tags", #"["a","\"b\"",{"x":[1,2,{"status":1}]},"\u005d"]"#),
        ("n", "-1.5e3"), ("ok", "true"), ("nothing", "null"), ("request_length", "612"),
    ]

    /// A flat JSON log line as any structured logger may write it (see
    /// `jsonLines`).
    static func anyJSON(_ r: RoundTripRecord, _ random: inout RoundTripRandom) -> RoundTripWritten {
        var want = RoundTripRead(record: r, location: .notLogged)
        var members: [[UInt8]] = []
        // The time, in one of the forms JSON logs write it.
        let w = C.wall(r.time, zone: r.zone)
        var timeKey = random.pick(["time", "timestamp", "@timestamp", "time_iso8601"])
        var time: [UInt8]
        switch random.below(6) {
        case 0, 1:
            let digits = random.pick([0, 3, 6, 9])
            var text = C.isoSeconds(w)
            if digits > 0 {
                text += random.chance(8) ? "," : "."
                text += String(C.fraction(w, micros: r.micros).prefix(digits))
            }
            text += C.isoZone(r.zone, &random)
            time = E.jsonString(Array(text.utf8), &random)
            if digits == 0 { want.time = r.time - r.time % 1000 }
        case 2:
            timeKey = "time_local"
            time = E.jsonString(Array(C.commonLog(r.time, zone: r.zone).utf8), &random)
            want.time = r.time - r.time % 1000
        case 3:
            timeKey = random.pick(["time", "timestamp", "ts"])
            time = Array(C.seconds(r.time).utf8)
            if random.chance(2) { time = E.jsonString(time, &random) }
        case 4 where r.time > 100_000_000_000:
            // Milliseconds: told by their size (above 10^11).
            timeKey = random.pick(["time", "timestamp", "ts"])
            time = Array(String(r.time).utf8)
        default:
            timeKey = random.pick(["time", "timestamp"])
            if r.time > 100_000_000_000 {
                // Nanoseconds (Cloudflare's unit): told by their size.
                time = Array(String(r.time * 1_000_000 + Int64(r.micros) * 1000 + 7).utf8)
            } else {
                time = Array(C.seconds(r.time).utf8)
            }
        }
        members.append(member(timeKey, time, &random))
        if (timeKey == "time" || timeKey == "timestamp") && random.chance(4) {
            // A key of the same role, ranked after the one above.
            let decoy = E.jsonString(Array("2001-02-03T04:05:06Z".utf8), &random)
            members.append(member("@timestamp", decoy, &random))
        }
        // The request: its line, or its method and target.
        if random.chance(3) {
            let line = E.jsonString(r.requestLine, &random)
            members.append(member("request", line, &random))
        } else {
            let method = E.jsonString(r.method, &random)
            members.append(member("method", method, &random))
            let key = random.pick(["request_uri", "uri", "url", "path"])
            var uri = r.target
            if key == "url" && random.chance(2) {
                // A full URL, read as its path and query.
                uri = Array("https://partner.example".utf8) + r.target
            } else if let query = r.query, !query.isEmpty, random.chance(2) {
                uri = r.path
                let queryKey = random.pick(["query", "args"])
                let value = E.jsonString(query, &random)
                members.append(member(queryKey, value, &random))
            }
            let value = E.jsonString(uri, &random)
            members.append(member(key, value, &random))
            if key != "path" && random.chance(4) {
                let decoy = E.jsonString(Array("/decoy".utf8), &random)
                members.append(member("path", decoy, &random))
            }
        }
        var status = Array(String(r.status).utf8)
        if random.chance(3) { status = E.jsonString(status, &random) }
        members.append(member("status", status, &random))
        if random.chance(5) {
            want.client = []
        } else {
            let key = random.pick(["remote_addr", "client_ip", "ip"])
            let value = E.jsonString(r.client, &random)
            members.append(member(key, value, &random))
            if key != "ip" && random.chance(4) {
                let decoy = E.jsonString(Array("192.0.2.250".utf8), &random)
                members.append(member("ip", decoy, &random))
            }
        }
        if !random.chance(4) {
            let key = random.pick(["location", "sent_http_location", "http_location"])
            var value: [UInt8]
            if r.location.isEmpty {
                value = Array(random.pick([#""""#, #""-""#, "null"]).utf8)
                want.location = .empty
            } else {
                value = E.jsonString(r.location, &random)
                if random.chance(4) { value = [UInt8(ascii: "[")] + value + [UInt8(ascii: "]")] }
                want.location = .value(r.location)
            }
            members.append(member(key, value, &random))
        }
        let agentKey = random.pick(["http_user_agent", "user_agent"])
        let agent = E.jsonString(r.userAgent, &random)
        members.append(member(agentKey, agent, &random))
        if !r.referer.isEmpty {
            let referer = E.jsonString(r.referer, &random)
            members.append(member("http_referer", referer, &random))
        }
        for (key, value) in noise where random.chance(3) { members.append(member(key, Array(value.utf8), &random)) }
        members = random.shuffled(members)
        var out: [UInt8] = random.chance(8) ? [UInt8(ascii: " ")] : []
        out += "{".utf8
        out += space(&random)
        for (k, m) in members.enumerated() {
            if k > 0 {
                out += space(&random)
                out += ",".utf8
                out += space(&random)
            }
            out += m
        }
        out += space(&random)
        out += "}".utf8
        return RoundTripWritten(line: out, want: want)
    }

    /// `"key":value`, with whatever space JSON allows around the colon.
    static func member(_ key: String, _ value: [UInt8], _ random: inout RoundTripRandom) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "\"")]
        out += key.utf8
        out += [UInt8(ascii: "\"")]
        out += space(&random)
        out += [UInt8(ascii: ":")]
        out += space(&random)
        out += value
        return out
    }

    /// Nothing, or spaces and tabs, between two JSON tokens.
    static func space(_ random: inout RoundTripRandom) -> [UInt8] {
        random.pick([[], [], [], [0x20], [0x09], [0x20, 0x20]])
    }

    /// Caddy's access log line: 2.7+ with `client_ip` (a proxy in
    /// `remote_ip`), 2.6 without; `tls` when served over TLS.
    static func caddy(_ r: RoundTripRecord, clientIP: Bool, tls: Bool) -> RoundTripWritten {
        var out = Array(#"{"level":"info","ts":"#.utf8)
        out += C.seconds(r.time).utf8
        out += #","logger":"http.log.access.log0","msg":"handled request","request":{"remote_ip":""#.utf8
        out += clientIP ? Array("10.0.0.1".utf8) : r.client
        out += #"","remote_port":"\#(r.port)","#.utf8
        if clientIP {
            out += #""client_ip":""#.utf8
            out += r.client
            out += #"","#.utf8
        }
        out += #""proto":"HTTP/1.1","method":""#.utf8
        out += E.zap(r.method)
        out += #"","host":"partner.example","uri":""#.utf8
        out += E.zap(r.target)
        out += #"","headers":{"User-Agent":[""#.utf8
        out += E.zap(r.userAgent)
        out += #""],"Accept":["*/*"]}"#.utf8
        if tls { out += #","tls":{"resumed":false,"version":772,"cipher_suite":4865,"proto":"h2","server_name":"partner.example"}"#.utf8 }
        out += #"},"bytes_read":0,"user_id":"","duration":0.000985359,"size":0,"status":\#(r.status),"resp_headers":{"Server":["Caddy"]"#.utf8
        if !r.location.isEmpty {
            out += #","Location":[""#.utf8
            out += E.zap(r.location)
            out += #""]"#.utf8
        }
        out += #","Content-Type":["text/html; charset=utf-8"]}}"#.utf8
        let location: RoundTripLocation = r.location.isEmpty ? .notLogged : .value(r.location)
        return RoundTripWritten(line: out, want: RoundTripRead(record: r, location: location))
    }

    /// The `--json-field` mapping `mappedJSON`'s lines are read with.
    static let mappedFields: [(role: JSONLineParser.Role, path: String)] = [
        (.time, "t"), (.method, "req.verb"), (.uri, "req.url"), (.status, "res.code"), (.location, "res.headers.Location"), (.client, "peer"),
    ]

    /// Built-in keys of the mapped roles, with other values: never read
    /// while the mapped paths are there.
    static let builtInDecoys: [(key: String, value: String)] = [
        ("time", #""2001-02-03T04:05:06Z""#), ("method", #""DECOY""#), ("uri", #""/decoy""#), ("status", "999"),
        ("remote_addr", #""192.0.2.250""#),
    ]

    /// An application's JSON line with the paths of `mappedFields`, its
    /// time in `unit`.
    static func mappedJSON(_ r: RoundTripRecord, unit: JSONLineParser.TimeUnit, _ random: inout RoundTripRandom) -> RoundTripWritten {
        var members: [[UInt8]] = []
        let time: [UInt8]
        switch unit {
        case .s: time = Array(C.seconds(r.time).utf8)
        case .ms: time = Array(String(r.time).utf8)
        case .us: time = Array(String(r.time * 1000 + Int64(r.micros)).utf8)
        case .ns: time = Array(String(r.time * 1_000_000 + Int64(r.micros) * 1000 + 7).utf8)
        case .iso:
            let w = C.wall(r.time, zone: r.zone)
            let zone = C.isoZone(r.zone, &random)
            time = E.jsonString(Array((C.isoSeconds(w) + "." + C.pad(w.millis, 3) + zone).utf8), &random)
        }
        members.append(member("t", time, &random))
        var request = Array(#"{"verb":"#.utf8)
        request += E.jsonString(r.method, &random)
        request += #","url":"#.utf8
        let url = random.chance(3) ? Array("https://partner.example:8443".utf8) + r.target : r.target
        request += E.jsonString(url, &random)
        request += "}".utf8
        members.append(member("req", request, &random))
        var response = Array(#"{"code":\#(r.status)"#.utf8)
        if !r.location.isEmpty {
            response += #","headers":{"Content-Type":["text/html"],"Location":["#.utf8
            response += E.jsonString(r.location, &random)
            response += "]}".utf8
        }
        response += "}".utf8
        members.append(member("res", response, &random))
        let peer = E.jsonString(r.client, &random)
        members.append(member("peer", peer, &random))
        if random.chance(2) {
            for (key, value) in builtInDecoys { members.append(member(key, Array(value.utf8), &random)) }
            // A built-in Location is read only where the mapped one is absent.
            if !r.location.isEmpty { members.append(member("location", Array(#""https://decoy.example/x""#.utf8), &random)) }
        }
        members = random.shuffled(members)
        var out = Array("{".utf8)
        for (k, m) in members.enumerated() {
            if k > 0 { out += ",".utf8 }
            out += m
        }
        out += "}".utf8
        let location: RoundTripLocation = r.location.isEmpty ? .notLogged : .value(r.location)
        return RoundTripWritten(line: out, want: RoundTripRead(record: r, location: location))
    }

    /// IIS's own fields that flipaudit does not read: columns to skip.
    static let iisOther = [
        "s-sitename", "s-ip", "s-port", "cs-username", "cs-version", "cs(User-Agent)", "cs(Referer)", "cs-host", "sc-substatus",
        "sc-win32-status", "sc-bytes", "cs-bytes", "time-taken",
    ]

    /// The directives IIS writes when it starts a log (or restarts).
    static func iisDirectives(_ layout: [String], _ r: RoundTripRecord) -> [[UInt8]] {
        let w = C.wall(r.time, zone: r.zone)
        return [
            "#Software: Microsoft Internet Information Services 10.0", "#Version: 1.0", "#Date: \(C.date(w)) \(C.clock(w))",
            "#Fields: " + layout.joined(separator: " "),
        ].map { Array($0.utf8) }
    }

    /// An IIS line with the columns of `layout`.
    static func iis(_ r: RoundTripRecord, layout: [String]) -> RoundTripWritten {
        let w = C.wall(r.time, zone: r.zone)
        var want = RoundTripRead(record: r, location: .notLogged)
        want.client = []
        want.method = []
        want.target = r.path
        var values: [[UInt8]] = []
        for name in layout {
            switch name {
            case "date": values.append(Array(C.date(w).utf8))
            case "time": values.append(Array(C.clock(w).utf8))
            case "c-ip":
                values.append(E.w3c(r.client))
                want.client = r.client
            case "cs-method":
                values.append(E.w3c(r.method))
                want.method = r.method
            case "cs-uri-stem": values.append(E.w3c(r.path))
            case "cs-uri-query":
                values.append(E.w3c(r.query ?? []))
                want.target = r.target
            case "sc-status": values.append(Array(String(r.status).utf8))
            case "Location", "sc(Location)":
                values.append(E.w3c(r.location))
                want.location = .named(r)
            case "cs(User-Agent)": values.append(E.w3c(r.userAgent))
            case "cs(Referer)": values.append(E.w3c(r.referer))
            case "cs-username": values.append(E.w3c(r.user))
            case "s-sitename": values.append(Array("W3SVC1".utf8))
            case "s-ip": values.append(Array("10.0.0.5".utf8))
            case "s-port": values.append(Array("443".utf8))
            case "cs-version": values.append(Array("HTTP/1.1".utf8))
            case "cs-host": values.append(Array("partner.example".utf8))
            case "sc-bytes": values.append(Array(String(r.bytes).utf8))
            default: values.append(Array("0".utf8))
            }
        }
        return RoundTripWritten(line: Array(values.joined(separator: [UInt8(ascii: " ")])), want: want)
    }

    /// CloudFront's fields, in its order (the first 24: its older files').
    static let cloudFrontFields = [
        "date", "time", "x-edge-location", "sc-bytes", "c-ip", "cs-method", "cs(Host)", "cs-uri-stem", "sc-status", "cs(Referer)",
        "cs(User-Agent)", "cs-uri-query", "cs(Cookie)", "x-edge-result-type", "x-edge-request-id", "x-host-header", "cs-protocol",
        "cs-bytes", "time-taken", "x-forwarded-for", "ssl-protocol", "ssl-cipher", "x-edge-response-result-type",
        "cs-protocol-version", "fle-status", "fle-encrypted-fields", "c-port", "time-to-first-byte", "x-edge-detailed-result-type",
        "sc-content-type", "sc-content-len", "sc-range-start", "sc-range-end",
    ]

    /// A CloudFront file's header.
    static func cloudFrontDirectives(_ fields: [String]) -> [[UInt8]] {
        ["#Version: 1.0", "#Fields: " + fields.joined(separator: " ")].map { Array($0.utf8) }
    }

    /// A CloudFront line with `fields`, its time in UTC.
    static func cloudFront(_ r: RoundTripRecord, fields: [String]) -> RoundTripWritten {
        let w = C.wall(r.time, zone: 0)
        var values: [[UInt8]] = []
        for name in fields {
            switch name {
            case "date": values.append(Array(C.date(w).utf8))
            case "time": values.append(Array(C.clock(w).utf8))
            case "x-edge-location": values.append(Array("FRA56-P1".utf8))
            case "sc-bytes": values.append(Array(String(r.bytes).utf8))
            case "c-ip": values.append(r.client)
            case "cs-method": values.append(r.method)
            case "cs(Host)": values.append(Array("d111111abcdef8.cloudfront.net".utf8))
            case "cs-uri-stem": values.append(r.path)
            case "sc-status": values.append(Array(String(r.status).utf8))
            case "cs(Referer)": values.append(E.cloudFront(r.referer))
            case "cs(User-Agent)": values.append(E.cloudFront(r.userAgent))
            case "cs-uri-query": values.append(E.cloudFront(r.query ?? []))
            case "x-edge-result-type", "x-edge-response-result-type", "x-edge-detailed-result-type": values.append(Array("Miss".utf8))
            case "x-edge-request-id": values.append(Array("SOX4xwn4XV6Q4rgb7XiVGOHms_BGlTAC4KyHmureZmBNrjGdRLiNIQ==".utf8))
            case "x-host-header": values.append(Array("partner.example".utf8))
            case "cs-protocol": values.append(Array("https".utf8))
            case "time-taken", "time-to-first-byte": values.append(Array("0.001".utf8))
            case "ssl-protocol": values.append(Array("TLSv1.3".utf8))
            case "ssl-cipher": values.append(Array("TLS_AES_128_GCM_SHA256".utf8))
            case "cs-protocol-version": values.append(Array("HTTP/2.0".utf8))
            case "c-port": values.append(Array(String(r.port).utf8))
            case "sc-content-type": values.append(Array("text/html".utf8))
            case "cs-bytes", "sc-content-len": values.append(Array("78".utf8))
            default: values.append(Array("-".utf8))
            }
        }
        return RoundTripWritten(
            line: Array(values.joined(separator: [UInt8(ascii: "\t")])), want: RoundTripRead(record: r, location: .notLogged))
    }
}

// MARK: - Clocks and calendars

/// A wall clock's reading.
struct RoundTripWall {
    var year, month, day, hour, minute, second, millis: Int
}

/// Times written as each server writes them. The calendar is counted day by
/// day (no formula shared with `Timestamp`), so the two cannot agree on a
/// wrong date.
enum RoundTripClock {
    static let day: Int64 = 86_400_000
    /// Writers' zones, minutes east of UTC: half and quarter hours, ±12 h
    /// and +14 h among them; UTC twice as often.
    static let zones = [0, 0, 60, -60, 120, -210, 330, 345, 525, 570, -570, 780, 840, -720, -300, -480, -150]
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    /// 1970-01-02 to 2199-12-30: every zone's wall clock stays within 1970–2199.
    static let earliest: Int64 = day
    static let latest: Int64 = Int64(days(year: 2199, month: 12, day: 30)) * day

    static func isLeap(_ year: Int) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }

    static func length(ofYear year: Int) -> Int { isLeap(year) ? 366 : 365 }

    static func length(ofMonth month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to a date of 1970 or later.
    static func days(year: Int, month: Int, day: Int) -> Int {
        var total = day - 1
        for y in 1970..<year { total += length(ofYear: y) }
        for m in 1..<month { total += length(ofMonth: m, year: year) }
        return total
    }

    /// The wall clock of a zone `minutes` east of UTC at `ms` (1970 or later there).
    static func wall(_ ms: Int64, zone minutes: Int) -> RoundTripWall {
        let local = ms + Int64(minutes) * 60_000
        var days = Int(local / day)
        let rest = Int(local % day)
        var year = 1970
        while days >= length(ofYear: year) {
            days -= length(ofYear: year)
            year += 1
        }
        var month = 1
        while days >= length(ofMonth: month, year: year) {
            days -= length(ofMonth: month, year: year)
            month += 1
        }
        return RoundTripWall(
            year: year, month: month, day: days + 1, hour: rest / 3_600_000, minute: rest / 60_000 % 60, second: rest / 1000 % 60,
            millis: rest % 1000)
    }

    static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }

    /// `+hhmm` or `+hh:mm`.
    static func offset(_ minutes: Int, colon: Bool) -> String {
        let sign = minutes < 0 ? "-" : "+"
        let separator = colon ? ":" : ""
        return sign + pad(abs(minutes) / 60, 2) + separator + pad(abs(minutes) % 60, 2)
    }

    /// `22/Nov/2026:10:00:01 +0000`: `$time_local`, `%t`.
    static func commonLog(_ ms: Int64, zone: Int) -> String {
        let w = wall(ms, zone: zone)
        return "\(pad(w.day, 2))/\(months[w.month - 1])/\(pad(w.year, 4)):\(clock(w)) \(offset(zone, colon: false))"
    }

    /// `2026-11-22T10:00:01`.
    static func isoSeconds(_ w: RoundTripWall) -> String { "\(date(w))T\(clock(w))" }

    /// `2026-11-22T10:00:01+00:00`: `$time_iso8601`.
    static func iso(_ ms: Int64, zone: Int) -> String { isoSeconds(wall(ms, zone: zone)) + offset(zone, colon: true) }

    /// `2026-11-22`.
    static func date(_ w: RoundTripWall) -> String { "\(pad(w.year, 4))-\(pad(w.month, 2))-\(pad(w.day, 2))" }

    /// `10:00:01`.
    static func clock(_ w: RoundTripWall) -> String { "\(pad(w.hour, 2)):\(pad(w.minute, 2)):\(pad(w.second, 2))" }

    /// `Nov  2 10:00:01`: an RFC 3164 header's time (`%s %2d %02d:%02d:%02d`).
    static func syslog(_ w: RoundTripWall) -> String {
        let day = w.day < 10 ? " \(w.day)" : String(w.day)
        return "\(months[w.month - 1]) \(day) \(clock(w))"
    }

    /// `22/Nov/2026:10:00:01.123`: HAProxy's accept date (`%tr`).
    static func haproxyDate(_ w: RoundTripWall) -> String {
        "\(pad(w.day, 2))/\(months[w.month - 1])/\(pad(w.year, 4)):\(clock(w)).\(pad(w.millis, 3))"
    }

    /// `1795341601.123`: nginx's `$msec`.
    static func epoch(_ ms: Int64) -> String { "\(ms / 1000).\(pad(Int(ms % 1000), 3))" }

    /// Epoch seconds as Go writes a float of whole milliseconds at its
    /// shortest (`1795341601.12`, `1795341601`): Caddy's `ts`.
    static func seconds(_ ms: Int64) -> String {
        var fraction = pad(Int(ms % 1000), 3)
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return fraction.isEmpty ? String(ms / 1000) : "\(ms / 1000).\(fraction)"
    }

    /// Nine fraction digits: the milliseconds, the microseconds, then filler.
    static func fraction(_ w: RoundTripWall, micros: Int) -> String {
        pad(w.millis, 3) + pad(micros, 3) + pad((w.millis * 7 + micros) % 1000, 3)
    }

    /// An RFC 3339 zone in one of its spellings; UTC may be `Z`, `z`,
    /// `+00:00`, `+0000`, `+00` or nothing.
    static func isoZone(_ minutes: Int, _ random: inout RoundTripRandom) -> String {
        if minutes == 0 { return random.pick(["Z", "z", "+00:00", "+0000", "+00", ""]) }
        return offset(minutes, colon: random.chance(2))
    }

    /// `ms` in UTC, for messages.
    static func utc(_ ms: Int64) -> String {
        guard ms >= 0 else { return "before 1970" }
        let w = wall(ms, zone: 0)
        return "\(isoSeconds(w)).\(pad(w.millis, 3))Z"
    }

    /// `--tz` as a fixed offset.
    static func fixedZone(_ minutes: Int) -> LocalZone {
        LocalZone(name: offset(minutes, colon: true), offsets: [(from: Int64.min, offset: Int64(minutes) * 60_000)])
    }

    /// `--tz` as a fixed offset, or none (UTC) for 0.
    static func localZone(_ minutes: Int) -> LocalZone? { minutes == 0 ? nil : fixedZone(minutes) }
}

// MARK: - Random records

/// Byte pieces values are drawn from, each kept whole (a UTF-8 character, an
/// escape-like run).
enum RoundTripPieces {
    static func of(_ texts: [String]) -> [[UInt8]] { texts.map { Array($0.utf8) } }
    /// Letters, digits and the unreserved marks.
    static let plain = of(["a", "b", "k", "z", "A", "Q", "Z", "0", "1", "7", "9", "-", ".", "_", "~"])
    static let path = plain + of(["/", "/", "oauth/authorize", "a/com.google.OPA"])
    /// Query text: separators, percent escapes (broken ones too), sub-delimiters.
    static let query = of([
        "=", "&", "+", "%20", "%2F", "%3A", "%25", "%2B", "%C3%A9", "%", "%2", "%zz", ";", ",", "!", "$", "'", "(", ")", "*", "@", ":",
        "/", "?", "state=", "&code=", "client_id=G123", "redirect_uri=https%3A%2F%2Foauth-redirect.googleusercontent.com%2Fa%2Fcom.google.OPA",
    ])
    /// Quotes, backslashes, each server's escape markers written literally,
    /// and the characters HAProxy encodes in captures.
    static let marks = of([
        "\"", "\\", "\\\"", "\\\\", "\\x41", "\\x", "\\u0041", "#", "#41", "#2", "{", "}", "|", "[", "]", "<", ">", "^", "`", "-",
    ])
    /// Non-ASCII: Latin, Greek, CJK, an emoji (4 bytes), separators, a
    /// combining mark, a bidi override, a BOM, U+FFFD.
    static let utf8 = of(["é", "ü", "ß", "Ω", "中", "文", "😀", "\u{2028}", "\u{00A0}", "\u{FEFF}", "e\u{0301}", "\u{202E}", "\u{FFFD}"])
    /// Control bytes: tab, LF, CR, the ones Apache writes by name, ESC, DEL.
    static let controls: [[UInt8]] = [[0x01], [0x07], [0x08], [0x09], [0x0A], [0x0B], [0x0C], [0x0D], [0x1B], [0x1F], [0x7F]]
    /// Bytes that are no UTF-8: a lone continuation byte, cut sequences, 0xFE, 0xFF.
    static let broken: [[UInt8]] = [[0x80], [0xC3], [0xE2, 0x82], [0xFE], [0xFF]]
    static let spaces = of([" ", " ", "  "])
}

/// What one kind of value is drawn from: mostly `plain` pieces, a fifth
/// `tricky` ones, and now and then a `tail` that ends it.
struct RoundTripAlphabet: Sendable {
    var plain: [[UInt8]]
    var tricky: [[UInt8]]
    var tails: [[UInt8]]
}

/// The alphabets of a server's values: what it can receive and log.
struct RoundTripProfile: Sendable {
    /// A path: never a space or a `?`.
    var path: RoundTripAlphabet
    /// A query: never a space where the server logs it raw.
    var query: RoundTripAlphabet
    /// A request header's value: spaces too.
    var header: RoundTripAlphabet
    /// Whether the log tells `/p?` from `/p`.
    var emptyQuery: Bool
}

extension RoundTripProfile {
    private typealias P = RoundTripPieces

    /// nginx, Apache and HAProxy escape what they log: any byte but a space
    /// in a target (a request line has none), any byte in a header.
    static let escaping = RoundTripProfile(
        path: RoundTripAlphabet(
            plain: P.path, tricky: P.marks + P.utf8 + P.controls + P.broken + P.of(["%2F", "%", ";", "=", "+", "@", ":", "!"]),
            tails: P.of(["\"", "\\", "\\\"", "%", "#", "\\x"])),
        query: RoundTripAlphabet(
            plain: P.plain + P.query, tricky: P.marks + P.utf8 + P.controls + P.broken, tails: P.of(["\"", "\\", "%", "%2", "#", "="])),
        header: RoundTripAlphabet(
            plain: P.plain + P.spaces + P.query, tricky: P.marks + P.utf8 + P.controls + P.broken,
            tails: P.of(["\"", "\" ", "\\", "\\\"", " ", " -", "\"\""])),
        emptyQuery: true)

    /// JSON logs hold UTF-8 text: control characters escaped, no broken bytes.
    static let json = RoundTripProfile(
        path: RoundTripAlphabet(
            plain: P.path, tricky: P.marks + P.utf8 + P.controls + P.of(["%2F", "%", ";", "=", "+"]), tails: P.of(["\"", "\\", "\\u", "/"])),
        query: RoundTripAlphabet(plain: P.plain + P.query, tricky: P.marks + P.utf8 + P.controls, tails: P.of(["\"", "\\", "%"])),
        header: RoundTripAlphabet(plain: P.plain + P.spaces + P.query, tricky: P.marks + P.utf8 + P.controls, tails: P.of(["\"", "\\", " "])),
        emptyQuery: true)

    /// IIS logs values raw, a space as `+`: no spaces in a stem, query or
    /// Location (a `+` there would be ambiguous), no control bytes, and an
    /// empty query is `-` as no query is.
    static let iis = RoundTripProfile(
        path: RoundTripAlphabet(
            plain: P.path, tricky: P.utf8 + P.of(["+", "%", "%2F", "'", "(", ")", "!", "\"", "\\", "{", "}", "|"]), tails: P.of(["/", "+", "\\"])),
        query: RoundTripAlphabet(
            plain: P.plain + P.query, tricky: P.utf8 + P.of(["\"", "\\", "{", "}", "|", "^", "`"]), tails: P.of(["+", "%", "="])),
        header: RoundTripAlphabet(
            plain: P.plain + P.spaces + P.query, tricky: P.utf8 + P.of(["\"", "\\", "(", ")", ";", "+", "#"]), tails: P.of([" ", "+", "\""])),
        emptyQuery: false)

    /// CloudFront encodes its query and headers: anything there; its stems
    /// here hold only unreserved characters (whether it encodes a stem
    /// again is not asked).
    static let cloudFront = RoundTripProfile(
        path: RoundTripAlphabet(plain: P.path, tricky: [], tails: []),
        query: RoundTripAlphabet(plain: P.plain + P.query, tricky: P.marks + P.utf8 + P.spaces, tails: P.of(["%", "%2", "%25", " ", "\""])),
        header: RoundTripAlphabet(plain: P.plain + P.spaces + P.query, tricky: P.marks + P.utf8, tails: P.of([" ", "\""])),
        emptyQuery: false)
}

/// `SplitMix` as the draws a record needs.
struct RoundTripRandom {
    private var mix: SplitMix

    init(seed: UInt64) { mix = SplitMix(seed: seed) }

    /// 0 ..< n.
    mutating func below(_ n: Int) -> Int { Int(mix.next() % UInt64(n)) }

    mutating func chance(_ oneIn: Int) -> Bool { below(oneIn) == 0 }

    mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }

    /// low ..< high.
    mutating func between(_ low: Int64, _ high: Int64) -> Int64 { low + Int64(mix.next() % UInt64(high - low)) }

    mutating func shuffled<T>(_ items: [T]) -> [T] {
        var items = items
        var i = items.count - 1
        while i > 0 {
            items.swapAt(i, below(i + 1))
            i -= 1
        }
        return items
    }
}

extension RoundTripRandom {
    static let methods = ["GET", "GET", "POST", "HEAD", "PUT", "DELETE", "OPTIONS", "PATCH", "PROPFIND", "M-SEARCH"]

    /// Up to `length` pieces of `alphabet`, maybe ended by one of its tails.
    mutating func text(_ alphabet: RoundTripAlphabet, upTo length: Int) -> [UInt8] {
        var out: [UInt8] = []
        for _ in 0..<below(length + 1) {
            out += !alphabet.tricky.isEmpty && chance(5) ? pick(alphabet.tricky) : pick(alphabet.plain)
        }
        if !alphabet.tails.isEmpty && chance(6) { out += pick(alphabet.tails) }
        return out
    }

    /// A time in 1970–2199: a quarter of them on a year's, a month's or a
    /// leap day's edge, at a day's first or last seconds.
    mutating func time(millis: Bool) -> Int64 {
        var at: Int64
        if chance(4) {
            let year = 1970 + below(230)
            var dates = [(1, 1), (1, 31), (2, 28), (3, 1), (6, 30), (12, 31)]
            if RoundTripClock.isLeap(year) { dates.append((2, 29)) }
            let (month, day) = pick(dates)
            let anySecond = below(86_400)
            let second = pick([0, 1, 59, 3_599, 86_340, 86_399, anySecond])
            at = Int64(RoundTripClock.days(year: year, month: month, day: day)) * RoundTripClock.day + Int64(second) * 1000
        } else {
            at = between(RoundTripClock.earliest, RoundTripClock.latest)
        }
        at = min(max(at, RoundTripClock.earliest), RoundTripClock.latest)
        at -= at % 1000
        return millis ? at + Int64(below(1000)) : at
    }

    /// An IPv4 or IPv6 address.
    mutating func address() -> [UInt8] {
        if chance(4) { return Array("\(1 + below(223)).\(below(256)).\(below(256)).\(1 + below(254))".utf8) }
        return Array(pick(["203.0.113.9", "198.51.100.7", "2001:db8::1", "2001:db8:85a3::8a2e:370:7334", "::ffff:203.0.113.9", "::1"]).utf8)
    }

    /// An absolute URL with a path (every Location here is a redirect
    /// target), or nothing (a third of them).
    mutating func location(_ profile: RoundTripProfile) -> [UInt8] {
        if chance(3) { return [] }
        var out = Array(pick(["https://", "http://", "HTTPS://", "com.googleusercontent.apps.123-abc://"]).utf8)
        out += pick(["oauth-redirect.googleusercontent.com", "partner.example:8443", "[2001:db8::7]", "xn--bcher-kva.example"]).utf8
        out += [UInt8(ascii: "/")]
        out += text(profile.path, upTo: 12)
        if !chance(4) {
            out += "?code=".utf8
            out += text(profile.query, upTo: 30)
            out += "&state=".utf8
            out += text(profile.query, upTo: 20)
        }
        return out
    }

    /// A record of `profile`'s values. After `previous`, a quarter of them
    /// in the same second or one either side, on its clock: the parsers
    /// keep the last time they read.
    mutating func record(_ profile: RoundTripProfile, millis: Bool, after previous: RoundTripRecord? = nil) -> RoundTripRecord {
        var at = time(millis: millis)
        var zone = pick(RoundTripClock.zones)
        if let previous, chance(4) {
            let second = previous.time - previous.time % 1000 + Int64(below(3) - 1) * 1000
            at = millis ? second + Int64(below(1000)) : second
            zone = previous.zone
        }
        let micros = below(1000)
        let client = address()
        let port = 1024 + below(64_000)
        let user = chance(4) ? Array(pick(["alice", "bob_1", "svc.flip"]).utf8) : []
        let method = Array(pick(Self.methods).utf8)
        let path = [UInt8(ascii: "/")] + text(profile.path, upTo: 24)
        var query: [UInt8]?
        if !chance(5) {
            // Now and then a very long one (a large `state`, a stuffed query).
            let long = chance(25)
            var q = text(profile.query, upTo: long ? 800 : 40)
            // A query of `-` alone reads as none in every format: not drawn.
            if q == [UInt8(ascii: "-")] { q.append(UInt8(ascii: "x")) }
            query = q.isEmpty && !profile.emptyQuery ? nil : q
        }
        let status = chance(2) ? pick([301, 302, 303, 307, 308]) : 100 + below(500)
        let bytes = below(100_000)
        let referer = chance(3) ? [] : text(profile.header, upTo: 40)
        let userAgent = Array(pick(["Mozilla/5.0 (", "GoogleApp/1.0 (", "curl/8.5.0 "]).utf8) + text(profile.header, upTo: 40)
        var forwarded: [[UInt8]] = []
        if !chance(3) {
            for _ in 0...below(3) { forwarded.append(address()) }
        }
        let separator = Array(pick([", ", ",", " , "]).utf8)
        let location = self.location(profile)
        return RoundTripRecord(
            time: at, micros: micros, zone: zone, client: client, port: port, user: user, method: method, path: path, query: query,
            status: status, bytes: bytes, referer: referer, userAgent: userAgent, forwardedFor: Array(forwarded.joined(separator: separator)),
            forwardedClient: forwarded.first ?? [], location: location)
    }

    /// An IIS `#Fields:` line's names: `date time`, then the stem and the
    /// status, most of the other fields flipaudit reads, and some it skips,
    /// in any order.
    mutating func iisLayout() -> [String] {
        var columns = ["cs-uri-stem", "sc-status"]
        for name in ["c-ip", "cs-method", "cs-uri-query"] where !chance(6) { columns.append(name) }
        if !chance(3) { columns.append(chance(4) ? "sc(Location)" : "Location") }
        for name in RoundTripWrite.iisOther where chance(2) { columns.append(name) }
        return ["date", "time"] + shuffled(columns)
    }
}
