import Reading

/// Parses lines written by a pasted nginx `log_format`, Apache
/// `LogFormat` or HAProxy `log-format`: the format is split into literal
/// text and fields (`$name`, `%x`, `%{Name}i`, `%ci`), and each field's
/// value runs up to the next literal. Values of `-` are empty; `\xHH`
/// escapes are decoded (Apache's `\"` and C escapes, HAProxy's `#XX`).
///
/// ```
/// log_format flip '$remote_addr - $remote_user [$time_local] "$request" '
///                 '$status $body_bytes_sent "$http_referer" "$http_user_agent" "$sent_http_location"';
/// LogFormat "%h %l %u %t \"%r\" %>s %O \"%{Referer}i\" \"%{User-Agent}i\" %D \"%{Location}o\"" flip
/// ```
/// A string with HAProxy's variables (`%ci`, `%tr`, `%ST`, …) is
/// HAProxy's, one with other `%` directives Apache's, one with `$`
/// variables nginx's (`HAProxyLogFormat` and `ApacheLogFormat` translate
/// the first two into the third's pieces); a mix is refused.
package struct LogFormatParser: RecordParser {
    /// A piece of the format.
    enum Piece: Equatable {
        case literal([UInt8])
        case variable(String)
    }

    /// What a variable's value is used for.
    enum Field {
        case timeLocal, timeISO, msec, timeAny, timeMicros, request, method, uri, args, status, location, client, ignored
        /// A time's fraction logged apart (`%{msec_frac}t`, `%{usec_frac}t`).
        case fractionMilli, fractionMicro
        /// X-Forwarded-For in the client's place: its first address.
        case forwardedFor
        /// HAProxy's `%t`/`%tr` (no zone: a syslog header's, else `--tz`)
        /// or `%T`/`%Tl`/`%trg`/`%trl` (with one).
        case timeHAProxy
        /// HAProxy's captured headers (`%hs`, `{a|b}`, or one
        /// `%[capture.res.hdr(N)]`): the Location is the one that holds a
        /// redirect target, on a 3xx record.
        case captures
    }

    let pieces: [Piece]
    /// `.nginx`, `.apache` or `.haproxy`: the syntax the string was
    /// written in.
    package let syntax: RecordFormat
    /// The zone of times written without one (HAProxy's `%tr`): `--tz`.
    private let zone: LocalZone?
    private let fields: [Field]
    private let scratch: ScratchBuffer
    private var values: [UnsafeRawBufferPointer]

    /// Builds the parser from the text of a `log_format` directive, or from
    /// its format string alone.
    package init(logFormat text: String, maxLine: Int, zone: LocalZone? = nil) throws(ConfigurationError) {
        let pieces: [Piece]
        self.zone = zone
        if HAProxyLogFormat.isHAProxy(text) {
            syntax = .haproxy
            pieces = try HAProxyLogFormat.pieces(text)
        } else if ApacheLogFormat.isApache(text) {
            syntax = .apache
            pieces = try ApacheLogFormat.pieces(text)
        } else {
            syntax = .nginx
            pieces = try Self.nginxPieces(text)
        }
        self.pieces = pieces
        let names = pieces.compactMap { piece -> String? in if case .variable(let n) = piece { return n } else { return nil } }
        fields = names.map(Self.field)
        let say = syntax == .apache ? ApacheLogFormat.missing : syntax == .haproxy ? HAProxyLogFormat.missing : Self.missing
        guard fields.contains(where: { [.timeLocal, .timeISO, .msec, .timeAny, .timeMicros, .timeHAProxy].contains($0) }) else {
            throw .logFormat("the format has no \(say.time)")
        }
        guard fields.contains(.status) else { throw .logFormat("the format has no \(say.status)") }
        guard fields.contains(.request) || fields.contains(.uri) else {
            throw .logFormat("the format has no \(say.request)")
        }
        scratch = ScratchBuffer(capacity: maxLine + 16)
        values = Array(repeating: UnsafeRawBufferPointer(start: nil, count: 0), count: fields.count)
    }

    /// How a missing field is named, per syntax.
    static let missing = (time: "$time_local, $time_iso8601 or $msec", status: "$status", request: "$request or $request_uri")

    /// The pieces of an nginx `log_format`.
    static func nginxPieces(_ text: String) throws(ConfigurationError) -> [Piece] {
        let format = Self.formatString(text)
        var pieces: [Piece] = []
        var literal: [UInt8] = []
        let bytes = Array(format.utf8)
        var i = 0
        while i < bytes.count {
            if bytes[i] == .dollar, i + 1 < bytes.count {
                var name: [UInt8] = []
                var j = i + 1
                if bytes[j] == .openBrace {
                    j += 1
                    while j < bytes.count && bytes[j] != .closeBrace { name.append(bytes[j]); j += 1 }
                    j += 1
                } else {
                    while j < bytes.count, Self.isNameByte(bytes[j]) { name.append(bytes[j]); j += 1 }
                }
                if !name.isEmpty {
                    if !literal.isEmpty { pieces.append(.literal(literal)); literal = [] }
                    if case .variable = pieces.last {
                        throw .logFormat("two variables with no text between them ($\(String(decoding: name, as: UTF8.self))) cannot be told apart")
                    }
                    pieces.append(.variable(String(decoding: name, as: UTF8.self)))
                    i = j
                    continue
                }
            }
            literal.append(bytes[i])
            i += 1
        }
        if !literal.isEmpty { pieces.append(.literal(literal)) }
        return pieces
    }

    /// Whether the format logs the response Location.
    package var logsLocation: Bool { fields.contains(.location) || fields.contains(.captures) }

    /// The format string inside a pasted directive: `log_format NAME
    /// [escape=...] 'part' 'part';` → the parts joined.
    static func formatString(_ text: String) -> String {
        var t = text.trimmingCharacters(in: " \t\n;")
        if t.hasPrefix("log_format") {
            t = String(t.dropFirst("log_format".count)).trimmingCharacters(in: " \t\n")
            // Drop the name and an escape= parameter.
            while let first = t.first, first != "'" && first != "\"" {
                let word = t.prefix { $0 != " " && $0 != "\t" && $0 != "\n" }
                t = String(t.dropFirst(word.count)).trimmingCharacters(in: " \t\n")
                if word.isEmpty { break }
            }
        }
        guard let q = t.first, q == "'" || q == "\"" else { return t }
        var result = ""
        var inside: Character?
        for c in t {
            if let open = inside {
                if c == open { inside = nil } else { result.append(c) }
            } else if c == "'" || c == "\"" {
                inside = c
            }
        }
        return result
    }

    private static func isNameByte(_ b: UInt8) -> Bool {
        (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z")) || (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z"))
            || (b >= .zero && b <= .nine) || b == UInt8(ascii: "_")
    }

    private static func field(_ name: String) -> Field {
        switch name {
        case "time_local": return .timeLocal
        case "time_iso8601": return .timeISO
        case "msec": return .msec
        case "request": return .request
        case "request_method": return .method
        case "request_uri", "uri": return .uri
        case "args", "query_string": return .args
        case "status": return .status
        case "sent_http_location", "upstream_http_location": return .location
        case "remote_addr", "realip_remote_addr", "binary_remote_addr": return .client
        case ApacheLogFormat.anyTime: return .timeAny
        case ApacheLogFormat.microseconds: return .timeMicros
        case ApacheLogFormat.fractionMilli: return .fractionMilli
        case ApacheLogFormat.fractionMicro: return .fractionMicro
        case ApacheLogFormat.forwardedFor, "http_x_forwarded_for": return .forwardedFor
        case HAProxyLogFormat.time: return .timeHAProxy
        case HAProxyLogFormat.captures: return .captures
        default: return .ignored
        }
    }

    package mutating func parse(_ line: UnsafeRawBufferPointer, into record: inout LogRecord) -> MalformedReason? {
        scratch.reset()
        record = LogRecord()
        guard syntax == .haproxy else { return parse(line, from: 0, into: &record) }
        // What HAProxy wrote, after a syslog header if the line has one.
        let body = Self.afterSyslogHeader(line)
        guard let failure = parse(line, from: body, into: &record) else { return nil }
        guard body > 0 else { return failure }
        return parse(line, from: 0, into: &record) == nil ? nil : failure
    }

    /// Where the message of a syslog line starts: after `TAG[PID]: `
    /// (RFC 3164, rsyslog's RFC 3339) or RFC 5424's seven header words;
    /// 0 when the line has no header.
    static func afterSyslogHeader(_ line: UnsafeRawBufferPointer) -> Int {
        let head = Bytes.slice(line, 0, min(line.count, 160))
        if head.count > 6, head[0] == UInt8(ascii: "<"), let close = Bytes.find(UInt8(ascii: ">"), in: Bytes.slice(head, 0, 6)),
            close + 2 < head.count, head[close + 1] == UInt8(ascii: "1"), head[close + 2] == .space
        {
            var at = close + 3
            for _ in 0..<6 {
                guard let space = Bytes.find(.space, in: head, from: at) else { return 0 }
                at = space + 1
            }
            return at
        }
        var from = 0
        while let bracket = Bytes.find(.closeBracket, in: head, from: from) {
            if bracket + 2 < head.count, head[bracket + 1] == .colon, head[bracket + 2] == .space { return bracket + 3 }
            from = bracket + 1
        }
        return 0
    }

    private mutating func parse(_ line: UnsafeRawBufferPointer, from: Int, into record: inout LogRecord) -> MalformedReason? {
        scratch.reset()
        record = LogRecord()
        var at = from
        var v = 0
        var k = 0
        while k < pieces.count {
            switch pieces[k] {
            case .literal(let text):
                let ok = text.withUnsafeBytes { lit in
                    at + lit.count <= line.count && Bytes.equal(Bytes.slice(line, at, at + lit.count), lit)
                }
                guard ok else { return .unparsable }
                at += text.count
            case .variable:
                var end = line.count
                if k + 1 < pieces.count, case .literal(let next) = pieces[k + 1] {
                    guard let found = next.withUnsafeBytes({ Self.search($0, in: line, from: at, escaped: syntax == .apache) }) else {
                        return .unparsable
                    }
                    end = found
                }
                values[v] = Bytes.slice(line, at, end)
                v += 1
                at = end
            }
            k += 1
        }
        guard at == line.count else { return .unparsable }
        return build(&record, line: line)
    }

    /// Where `needle` next starts in `hay` from `from`. `escaped`: a quote
    /// after an odd number of backslashes is Apache's `\"`, part of the
    /// field, not the literal that ends it.
    private static func search(_ needle: UnsafeRawBufferPointer, in hay: UnsafeRawBufferPointer, from: Int, escaped: Bool) -> Int? {
        guard let first = needle.first else { return from }
        var i = from
        while let hit = Bytes.find(first, in: hay, from: i) {
            if hit + needle.count > hay.count { return nil }
            i = hit + 1
            if escaped && first == .quote {
                var slashes = 0
                while hit - slashes - 1 >= from && hay[hit - slashes - 1] == .backslash { slashes += 1 }
                if slashes % 2 == 1 { continue }
            }
            if Bytes.equal(Bytes.slice(hay, hit, hit + needle.count), needle) { return hit }
        }
        return nil
    }

    private func value(_ raw: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        if raw.isEmpty || Bytes.equals(raw, "-") { return nil }
        guard Bytes.find(syntax == .haproxy ? .hash : .backslash, in: raw) != nil else { return raw }
        let mark = scratch.mark
        var i = 0
        while i < raw.count {
            if syntax == .haproxy, raw[i] == .hash, i + 2 < raw.count, let hi = Hex.value(raw[i + 1]), let lo = Hex.value(raw[i + 2]) {
                scratch.append(hi << 4 | lo)
                i += 3
            } else if syntax == .haproxy {
                scratch.append(raw[i])
                i += 1
            } else if raw[i] == .backslash, i + 3 < raw.count, raw[i + 1] == UInt8(ascii: "x"),
                let hi = Hex.value(raw[i + 2]), let lo = Hex.value(raw[i + 3])
            {
                scratch.append(hi << 4 | lo)
                i += 4
            } else if syntax == .apache, raw[i] == .backslash, i + 1 < raw.count, raw[i + 1] == .quote || raw[i + 1] == .backslash {
                scratch.append(raw[i + 1])
                i += 2
            } else if syntax == .apache, raw[i] == .backslash, i + 1 < raw.count, let c = CombinedLogParser.cEscape(raw[i + 1]) {
                scratch.append(c)
                i += 2
            } else {
                scratch.append(raw[i])
                i += 1
            }
        }
        return scratch.view(from: mark)
    }

    private func build(_ record: inout LogRecord, line: UnsafeRawBufferPointer) -> MalformedReason? {
        var time: Int64?
        // Apache's time in pieces (`%{%Y-%m-%dT%H:%M:%S}t.%{usec_frac}t
        // %{%z}t`): the first piece is the time, a later one that is a zone
        // gives its zone, a fraction piece its milliseconds.
        var zoneMinutes: Int?
        var fractionMs: Int64?
        var forwarded: UnsafeRawBufferPointer?
        var uri: UnsafeRawBufferPointer?
        var args: UnsafeRawBufferPointer?
        var hasStatus = false
        var captured: UnsafeRawBufferPointer?
        for (i, field) in fields.enumerated() {
            let raw = values[i]
            switch field {
            case .timeLocal: if time == nil { guard let t = Timestamp.parseCommonLog(raw) else { return .badTime }; time = t }
            case .timeISO: if time == nil { guard let t = Timestamp.parseISO8601(raw) else { return .badTime }; time = t }
            case .msec: if time == nil { guard let t = Timestamp.parseEpoch(raw) else { return .badTime }; time = t }
            case .timeAny:
                if time == nil {
                    guard let t = Timestamp.parseAny(raw) else { return .badTime }
                    time = t
                } else if let z = Timestamp.zoneMinutes(raw) {
                    zoneMinutes = z
                }
            case .fractionMilli, .fractionMicro:
                guard let f = Bytes.parseInt(raw), raw.count == (field == .fractionMilli ? 3 : 6) else { return .badTime }
                fractionMs = Int64(field == .fractionMilli ? f : f / 1000)
            case .forwardedFor: forwarded = value(raw)
            case .timeMicros: if time == nil { guard let t = Timestamp.parseEpoch(raw, unit: -1_000) else { return .badTime }; time = t }
            case .request: if let r = value(raw) { RequestLine.split(r, into: &record) }
            case .method: if let m = value(raw) { record.method = m }
            case .uri: uri = value(raw)
            case .args: args = value(raw)
            case .status:
                guard let s = Bytes.parseInt(raw), s < 1000 else { return .unparsable }
                record.status = s
                hasStatus = true
            case .location: record.location = value(raw).map { .value($0) } ?? .empty
            case .client: if let c = value(raw) { record.clientIP = c }
            case .timeHAProxy:
                if time == nil {
                    guard let t = Timestamp.parseCommonLog(raw) else { return .badTime }
                    if raw.count > 24 {
                        time = t
                        record.zoneFromHeader = true
                    } else if let minutes = HAProxyLogParser.headerZone(line) {
                        time = t - Int64(minutes) * 60_000
                        record.zoneFromHeader = true
                    } else {
                        time = zone.map { $0.utc(fromLocal: t) } ?? t
                    }
                }
            case .captures:
                var part = raw
                if part.count >= 2, part[0] == .openBrace, part[part.count - 1] == .closeBrace { part = Bytes.slice(part, 1, part.count - 1) }
                var from = 0
                while from <= part.count {
                    let stop = Bytes.find(UInt8(ascii: "|"), in: part, from: from) ?? part.count
                    if let v = value(Bytes.slice(part, from, stop)), URLParts.isRedirectTarget(v) {
                        if let c = captured, !Bytes.equal(c, v) { record.locationAmbiguous = true } else { captured = v }
                    }
                    from = stop + 1
                }
            case .ignored: break
            }
        }
        guard var time, hasStatus else { return .missingField }
        if fields.contains(.captures) {
            // As `option httplog` is read: a captured redirect target is the
            // Location of a 3xx record only.
            let redirect = record.status >= 300 && record.status < 400
            if redirect, let captured, !record.locationAmbiguous, case .notLogged = record.location { record.location = .value(captured) }
            if !redirect { record.locationAmbiguous = false }
        }
        if let zoneMinutes { time -= Int64(zoneMinutes) * 60_000 }
        if let fractionMs, time % 1000 == 0 { time += fractionMs }
        // X-Forwarded-For where the format logs it in the peer's place (no
        // other client field): its first address is the client.
        if record.clientIP.isEmpty, let forwarded {
            let end = Bytes.find(UInt8(ascii: ","), in: forwarded) ?? forwarded.count
            var first = Bytes.slice(forwarded, 0, end)
            while let f = first.first, f == .space { first = Bytes.slice(first, 1, first.count) }
            while let l = first.last, l == .space { first = Bytes.slice(first, 0, first.count - 1) }
            record.clientIP = first
        }
        record.time = time
        if record.target.isEmpty, let uri {
            // Apache's `%q` keeps its `?`.
            let query = args.map { !$0.isEmpty && $0[0] == .question ? Bytes.slice($0, 1, $0.count) : $0 }
            record.target = RequestLine.target(uri: uri, query: query, scratch: scratch)
        }
        return nil
    }
}

extension String {
    /// The string without leading and trailing characters from `set`.
    func trimmingCharacters(in set: String) -> String {
        let chars = Set(set)
        let start = firstIndex { !chars.contains($0) } ?? endIndex
        let end = lastIndex { !chars.contains($0) }.map { index(after: $0) } ?? start
        return start < end ? String(self[start..<end]) : ""
    }
}
