import Reading

/// Envoy's default access log format:
///
/// ```
/// [2026-11-22T10:00:01.310Z] "GET /oauth/authorize?state=s1&… HTTP/1.1" 302 - 0 0 3 2 "203.0.113.9" "GoogleApp/1.0" "cc21d9b0-cf5c-432b-8c7e-98aeb7988cd2" "partner.example" "10.0.2.1:80"
/// ```
/// It logs no downstream address: the client is the first address of
/// `X-Forwarded-For`. With `%RESP(LOCATION)%` added, the Location is the
/// field that holds a redirect target on a 3xx record.
package struct EnvoyLogParser: RecordParser {
    private let fields: FieldRun

    package init(maxLine: Int) {
        fields = FieldRun(maxLine: maxLine)
    }

    package mutating func parse(_ line: UnsafeRawBufferPointer, into record: inout LogRecord) -> MalformedReason? {
        fields.reset()
        record = LogRecord()
        guard line.count > 2, line[0] == .openBracket, let close = Bytes.find(.closeBracket, in: line) else { return .unparsable }
        let text = Bytes.slice(line, 1, close)
        guard let time = Timestamp.parseISO8601(text) else {
            // A bracket that holds no date at all is no Envoy line.
            return text.count >= 19 && text[4] == .minus ? .badTime : .unparsable
        }
        record.time = time
        guard close + 2 < line.count, line[close + 1] == .space, line[close + 2] == .quote,
            let (request, after) = fields.quoted(line, from: close + 2)
        else { return .unparsable }
        RequestLine.split(request, into: &record)
        guard after < line.count, line[after] == .space else { return .unparsable }
        let statusEnd = Bytes.find(.space, in: line, from: after + 1) ?? line.count
        guard let status = Bytes.parseInt(Bytes.slice(line, after + 1, statusEnd)), status < 1000 else { return .unparsable }
        record.status = status
        var quotedFields = 0
        fields.scan(line, from: statusEnd, into: &record) { value, isQuoted, record in
            guard isQuoted else { return }
            quotedFields += 1
            if quotedFields == 1, !Bytes.equals(value, "-") {
                // X-Forwarded-For: its first address.
                let comma = Bytes.find(.comma, in: value) ?? value.count
                record.clientIP = Bytes.slice(value, 0, comma)
            }
        }
        return nil
    }
}

/// The fields after a record's status, quoted (`\"` escapes) or not,
/// separated by spaces: the Location is the one that holds a redirect
/// target on a 3xx record; where two hold different ones, neither.
/// A class: its scratch buffer's views outlive each call.
final class FieldRun {
    private let scratch: ScratchBuffer

    init(maxLine: Int) {
        scratch = ScratchBuffer(capacity: maxLine + 16)
    }

    func reset() { scratch.reset() }

    /// A quoted field at the quote `at`: its content, unescaped, and the
    /// index after its closing quote.
    func quoted(_ line: UnsafeRawBufferPointer, from at: Int) -> (UnsafeRawBufferPointer, Int)? {
        var i = at + 1
        var escaped = false
        while i < line.count {
            if line[i] == .backslash {
                escaped = true
                i += 2
                continue
            }
            if line[i] == .quote { break }
            i += 1
        }
        guard i < line.count else { return nil }
        let raw = Bytes.slice(line, at + 1, i)
        guard escaped else { return (raw, i + 1) }
        let mark = scratch.mark
        var k = 0
        while k < raw.count {
            if raw[k] == .backslash, k + 1 < raw.count {
                scratch.append(raw[k + 1])
                k += 2
            } else {
                scratch.append(raw[k])
                k += 1
            }
        }
        return (scratch.view(from: mark), i + 1)
    }

    /// Reads the fields from `from` (a space before each) to the line's
    /// end, telling `each` about every one; sets the record's Location.
    func scan(
        _ line: UnsafeRawBufferPointer, from: Int, into record: inout LogRecord,
        _ each: (UnsafeRawBufferPointer, Bool, inout LogRecord) -> Void
    ) {
        var i = from
        var target: UnsafeRawBufferPointer?
        while i + 1 < line.count, line[i] == .space {
            let value: UnsafeRawBufferPointer
            let isQuoted = line[i + 1] == .quote
            if isQuoted {
                guard let (v, after) = quoted(line, from: i + 1) else { break }
                value = v
                i = after
            } else {
                let end = Bytes.find(.space, in: line, from: i + 1) ?? line.count
                value = Bytes.slice(line, i + 1, end)
                i = end
            }
            each(value, isQuoted, &record)
            if URLParts.isRedirectTarget(value) {
                if let t = target, !Bytes.equal(t, value) { record.locationAmbiguous = true } else { target = value }
            }
        }
        if record.status >= 300 && record.status < 400 {
            if let target, !record.locationAmbiguous { record.location = .value(target) }
        } else {
            record.locationAmbiguous = false
        }
    }
}
