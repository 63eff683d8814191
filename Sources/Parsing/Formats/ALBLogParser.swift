import Reading

/// AWS Application Load Balancer access logs:
///
/// ```
/// https 2026-11-22T10:00:01.186641Z app/my-lb/50dc6c495c0c9188 203.0.113.9:2817 10.0.0.1:80 0.000 0.001 0.000 302 302 34 366 "GET https://partner.example:443/oauth/authorize?state=s1&… HTTP/1.1" "GoogleApp/1.0" ECDHE-RSA-AES128-GCM-SHA256 TLSv1.2 arn:… "Root=1-…" "partner.example" "arn:…" 0 2026-11-22T10:00:01.180000Z "forward" "-" "-" "10.0.0.1:80" "302" "-" "-"
/// ```
/// The request names a full URL (its path and query are the target); the
/// status is the load balancer's. An ALB cannot log the backend's
/// Location header (its `redirect_url` is for its own redirect rules), so
/// returns are not observable in it.
package struct ALBLogParser: RecordParser {
    private let fields: FieldRun

    package init(maxLine: Int) {
        fields = FieldRun(maxLine: maxLine)
    }

    /// Whether the line starts with an ALB request type and a time: what
    /// `--format auto` tries it on.
    static func looksLike(_ line: UnsafeRawBufferPointer) -> Bool {
        guard let sp = Bytes.find(.space, in: line), sp >= 2, sp <= 5, sp + 11 < line.count,
            line[sp + 5] == .minus
        else { return false }
        let word = Bytes.slice(line, 0, sp)
        return Bytes.equals(word, "http") || Bytes.equals(word, "https") || Bytes.equals(word, "h2")
            || Bytes.equals(word, "grpcs") || Bytes.equals(word, "ws") || Bytes.equals(word, "wss")
    }

    package mutating func parse(_ line: UnsafeRawBufferPointer, into record: inout LogRecord) -> MalformedReason? {
        fields.reset()
        record = LogRecord()
        guard Self.looksLike(line) else { return .unparsable }
        // type time elb client:port target:port three times, two statuses,
        // two byte counts: twelve words before the request; the time (1),
        // the client (3) and the load balancer's status (8) are read.
        var i = 0
        var time = UnsafeRawBufferPointer(start: nil, count: 0)
        var client = time
        var status = time
        for word in 0..<12 {
            let end = Bytes.find(.space, in: line, from: i) ?? line.count
            guard end > i, end < line.count else { return .unparsable }
            switch word {
            case 1: time = Bytes.slice(line, i, end)
            case 3: client = Bytes.slice(line, i, end)
            case 8: status = Bytes.slice(line, i, end)
            default: break
            }
            i = end + 1
        }
        guard let ms = Timestamp.parseISO8601(time) else { return .badTime }
        record.time = ms
        var k = client.count - 1
        while k > 0 && client[k] != .colon { k -= 1 }
        record.clientIP = k > 0 ? Bytes.slice(client, 0, k) : client
        guard let code = Bytes.parseInt(status), code < 1000 else { return .unparsable }
        record.status = code
        guard i < line.count, line[i] == .quote, let (request, _) = fields.quoted(line, from: i) else { return .unparsable }
        RequestLine.split(request, into: &record)
        record.target = URLParts.pathAndQuery(record.target)
        return nil
    }
}
