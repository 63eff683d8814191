import Reading

/// HAProxy's `option httplog` lines, with a syslog header or without one
/// (`log stdout format raw`):
///
/// ```
/// Nov 22 10:00:01 lb haproxy[812]: 203.0.113.9:41234 [22/Nov/2026:10:00:01.123] www be/s1 0/0/1/2/3 302 171 - - --NI 1/1/0/0/0 0/0 {partner.example} {https://oauth-redirect.googleusercontent.com/a/com.google.OPA?code=c1&state=s1} "GET /oauth/authorize?state=s1&… HTTP/1.1"
/// ```
/// The time has no zone: read in `zone` (`--tz`), UTC without one. Captured headers stand in `{…|…}`
/// blocks, escaped as `#XX`; the Location is the captured value that holds
/// a redirect target on a 3xx record (`capture response header Location
/// len 2048`). HAProxy cuts a line at 1024 bytes by default: a request
/// with no closing quote is `truncated`, not a record.
package struct HAProxyLogParser: RecordParser {
    private let scratch: ScratchBuffer
    private let zone: LocalZone?

    package init(maxLine: Int, zone: LocalZone? = nil) {
        scratch = ScratchBuffer(capacity: maxLine + 16)
        self.zone = zone
    }

    /// The zone of an RFC 3339 syslog header at the line's start (after a
    /// `<PRI>`), in minutes east of UTC; nil without one.
    static func headerZone(_ line: UnsafeRawBufferPointer) -> Int? {
        var i = 0
        if line.count > 5, line[0] == UInt8(ascii: "<"), let close = Bytes.find(UInt8(ascii: ">"), in: Bytes.slice(line, 0, min(6, line.count))) {
            i = close + 1
            // RFC 5424 (HAProxy's `format rfc5424`): a version, `1`, then a space.
            if i + 1 < line.count, line[i] == UInt8(ascii: "1"), line[i + 1] == .space { i += 2 }
        }
        // YYYY-MM-DDTHH:MM:SS, a fraction, then Z or ±HH:MM, then a space.
        guard i + 20 < line.count, line[i + 4] == .minus, line[i + 10] == UInt8(ascii: "T"), line[i + 13] == .colon else { return nil }
        guard let space = Bytes.find(.space, in: line, from: i + 19), space - i <= 40 else { return nil }
        var z = space - 1
        if line[z] == UInt8(ascii: "Z") { return 0 }
        // ±HH:MM
        z = space - 6
        guard z > i + 18, line[z] == .plus || line[z] == .minus else { return nil }
        return Timestamp.zoneMinutes(Bytes.slice(line, z, space))
    }

    package mutating func parse(_ line: UnsafeRawBufferPointer, into record: inout LogRecord) -> MalformedReason? {
        scratch.reset()
        record = LogRecord()
        // `CLIENT:PORT [dd/Mon/yyyy:HH:MM:SS.mmm] `: the first such bracket.
        var from = 0
        var close = 0
        var open = -1
        while let o = Bytes.find(.openBracket, in: line, from: from) {
            from = o + 1
            guard o > 0, line[o - 1] == .space, o + 25 < line.count, line[o + 25] == .closeBracket,
                let time = Timestamp.parseCommonLog(Bytes.slice(line, o + 1, o + 25))
            else { continue }
            // A syslog header with a zone (rsyslog's RFC 3339,
            // `2026-11-22T10:00:01.123456+01:00 host haproxy[1]: `) gives it;
            // else --tz, else UTC.
            if let minutes = Self.headerZone(line) {
                record.time = time - Int64(minutes) * 60_000
                record.zoneFromHeader = true
            } else {
                record.time = zone.map { $0.utc(fromLocal: time) } ?? time
            }
            open = o
            close = o + 25
            break
        }
        guard open > 0 else { return .unparsable }
        // The client: the word before the bracket, less its port.
        var start = open - 1
        while start > 0 && line[start - 1] != .space { start -= 1 }
        let client = Bytes.slice(line, start, open - 1)
        guard let colon = Self.lastColon(client) else { return .unparsable }
        record.clientIP = Bytes.slice(client, 0, colon)
        // frontend, backend/server, timers, status, bytes, two cookies,
        // termination state, connection counts, queues: ten words.
        var i = close + 1
        var word = 0
        while word < 10 {
            guard i < line.count, line[i] == .space else { return .unparsable }
            let end = Bytes.find(.space, in: line, from: i + 1) ?? line.count
            if word == 3 {
                guard let status = Bytes.parseInt(Bytes.slice(line, i + 1, end)), status < 1000 else { return .unparsable }
                record.status = status
            }
            i = end
            word += 1
        }
        // Captured headers, then the quoted request.
        var target: UnsafeRawBufferPointer?
        while i + 1 < line.count, line[i] == .space, line[i + 1] == .openBrace {
            guard let end = Bytes.find(.closeBrace, in: line, from: i + 2) else { return .truncated }
            var part = i + 2
            while part <= end {
                let stop = min(Bytes.find(UInt8(ascii: "|"), in: line, from: part) ?? end, end)
                let value = decoded(Bytes.slice(line, part, stop))
                if URLParts.isRedirectTarget(value) {
                    if let t = target, !Bytes.equal(t, value) { record.locationAmbiguous = true } else { target = value }
                }
                part = stop + 1
            }
            i = end + 1
        }
        guard i + 1 < line.count, line[i] == .space, line[i + 1] == .quote else {
            return i >= line.count ? .truncated : .unparsable
        }
        guard let q = Bytes.find(.quote, in: line, from: i + 2) else { return .truncated }
        let request = Bytes.slice(line, i + 2, q)
        // A request line cut before its protocol was cut by the writer.
        guard Bytes.find(.space, in: request).map({ Bytes.find(.space, in: request, from: $0 + 1) != nil }) ?? false else {
            return .truncated
        }
        RequestLine.split(decoded(request), into: &record)
        if record.status >= 300 && record.status < 400, let target, !record.locationAmbiguous {
            record.location = .value(target)
        } else if !(record.status >= 300 && record.status < 400) {
            record.locationAmbiguous = false
        }
        return nil
    }

    /// The index of the last `:` (the port's), or nil.
    private static func lastColon(_ b: UnsafeRawBufferPointer) -> Int? {
        var k = b.count - 1
        while k > 0 {
            if b[k] == .colon { return k }
            k -= 1
        }
        return nil
    }

    /// `#XX` escapes decoded (into the scratch buffer, when there is one).
    private func decoded(_ raw: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        guard Bytes.find(.hash, in: raw) != nil else { return raw }
        return scratch.unescaping(raw, marker: .hash)
    }
}
