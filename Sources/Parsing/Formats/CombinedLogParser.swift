import Reading

/// The Apache/nginx combined family: combined and common, `vhost_combined`
/// (`host:port` first), lighttpd's default (the Host second), nginx's
/// `main`, Traefik's CLF, and any of them with extra fields, quoted or
/// not, after the User-Agent.
///
/// ```
/// 203.0.113.9 - - [22/Nov/2026:10:00:01 +0000] "GET /a?b HTTP/1.1" 302 0 "-" "UA" "https://..."
/// 203.0.113.9 - - [22/Nov/2026:10:00:01 +0000] "GET /a?b HTTP/1.1" 302 0 "-" "UA" "-" "https://..."
/// partner.example:443 203.0.113.9 - - [22/Nov/2026:10:00:01 +0000] "GET /a?b HTTP/1.1" 302 0 "-" "UA"
/// ```
/// The Location: one quoted field after the User-Agent that is `-` or an
/// absolute URL is it (`combined` + `"$sent_http_location"`). With more
/// extra fields, it is the one that holds a redirect target (an absolute
/// URL with a path) on a 3xx record; where two fields hold different ones,
/// neither is taken and the record says so (`locationAmbiguous`).
package struct CombinedLogParser: RecordParser {
    private let scratch: ScratchBuffer
    /// The last timestamp's text (8 to 32 bytes, as `timeWords` loads it),
    /// length and value: consecutive lines usually share it.
    private var lastTimeWords = SIMD4<UInt64>()
    private var lastTimeCount = -1
    private var lastTime: Int64 = 0

    package init(maxLine: Int) {
        scratch = ScratchBuffer(capacity: maxLine + 16)
    }

    package mutating func parse(_ line: UnsafeRawBufferPointer, into record: inout LogRecord) -> MalformedReason? {
        parse(line, into: &record, escapes: true)
    }

    /// Parses `line`; `escapes` false promises that the line has no
    /// backslash (see `LineCheck`), so quoted fields need no unescaping.
    package mutating func parse(_ line: UnsafeRawBufferPointer, into record: inout LogRecord, escapes: Bool) -> MalformedReason? {
        parseInline(line, into: &record, escapes: escapes)
    }

    /// `parse`, inlined where the common line is read (`RecordReader.read`:
    /// one call less a line). Indices stay within the line or a few bytes
    /// past it, so their arithmetic is written wrapping (`&+`): no
    /// overflow checks.
    @inline(__always)
    mutating func parseInline(_ line: UnsafeRawBufferPointer, into record: inout LogRecord, escapes: Bool) -> MalformedReason? {
        if escapes { scratch.reset() }
        record = LogRecord()
        // The line's length, read once: in this long function the
        // compiler called `count`'s getter where it was read late.
        let count = line.count
        // client address
        guard let sp = Bytes.find(.space, in: line), sp > 0 else { return .unparsable }
        record.clientIP = Bytes.slice(line, 0, sp)
        // ident and user up to the bracketed time
        guard let open = Bytes.find(.openBracket, in: line, from: sp &+ 1) else { return .unparsable }
        if open &- sp > 6, let client = Self.vhostClient(line, firstSpace: sp, open: open) { record.clientIP = client }
        let close: Int
        if open &+ 27 < count, line[open &+ 27] == .closeBracket,
            let time = cachedTime(Bytes.slice(line, open &+ 1, open &+ 27))
        {
            // The usual `dd/Mon/yyyy:HH:MM:SS +zzzz`: a time that parses
            // holds no `]`, so this is the first one, found without a search.
            close = open &+ 27
            record.time = time
        } else {
            guard let found = Bytes.find(.closeBracket, in: line, from: open &+ 1) else { return .unparsable }
            guard let time = cachedTime(Bytes.slice(line, open &+ 1, found)) else { return .badTime }
            close = found
            record.time = time
        }
        // "request"
        var i = close &+ 1
        guard i &+ 1 < count, line[i] == .space, line[i &+ 1] == .quote else { return .unparsable }
        guard let (request, afterRequest) = quoted(line, from: i &+ 1, escapes: escapes) else { return .unparsable }
        RequestLine.split(request, into: &record)
        i = afterRequest
        // status
        guard i < count, line[i] == .space else { return .unparsable }
        let statusStart = i &+ 1
        let statusEnd = Bytes.find(.space, in: line, from: statusStart) ?? count
        guard let status = Bytes.parseInt(Bytes.slice(line, statusStart, statusEnd)), status < 1000 else { return .unparsable }
        record.status = status
        // bytes
        i = statusEnd
        guard i < count else { return nil }
        i = Bytes.find(.space, in: line, from: i &+ 1) ?? count
        // "referer" "user agent", then any extra fields, quoted or not
        // (nginx `main`'s "$http_x_forwarded_for", `%D`, a Location).
        // The usual line first, as fast as before extra fields were read:
        // "referer" "user agent" "location" and nothing after.
        let mark = scratch.mark
        usual: do {
            // Written here, not called: this runs on nearly every line.
            var j = i
            var field = 0
            while j &+ 1 < count, line[j] == .space, line[j &+ 1] == .quote {
                guard let (value, after) = quoted(line, from: j &+ 1, escapes: escapes) else {
                    if field < 2 { return .unparsable }
                    break usual
                }
                field &+= 1
                j = after
                if field == 3 {
                    guard j == count else { break usual }
                    if Bytes.equals(value, "-") || value.count == 0 {
                        record.location = .emptyByPlace
                    } else if URLParts.isAbsoluteURL(value) {
                        record.location = .value(value)
                    }
                    return nil
                }
            }
            if field == 2 && j == count { return nil }
        }
        scratch.rewind(to: mark)
        let combined = i &+ 1 < count && line[i &+ 1] == .quote
        // Only a redirect record's extra fields are looked at for its
        // Location (most records are not redirects: no URL checks).
        let redirect = record.status >= 300 && record.status < 400
        var field = 0
        var extras = 0
        var firstExtra = UnsafeRawBufferPointer(start: nil, count: 0)
        var firstQuoted = false
        var target: UnsafeRawBufferPointer?
        var ambiguous = false
        while i &+ 1 < count, line[i] == .space {
            let value: UnsafeRawBufferPointer
            let after: Int
            let isQuoted = line[i &+ 1] == .quote
            if isQuoted {
                guard let (v, a) = quoted(line, from: i &+ 1, escapes: escapes) else {
                    // An unterminated referer or User-Agent is a broken line;
                    // past them, the fields read so far stand.
                    if combined && field < 2 { return .unparsable }
                    break
                }
                value = v
                after = a
            } else {
                let end = Bytes.find(.space, in: line, from: i &+ 1) ?? count
                value = Bytes.slice(line, i &+ 1, end)
                after = end
            }
            field &+= 1
            i = after
            if combined && field <= 2 { continue }
            extras &+= 1
            if extras == 1 {
                firstExtra = value
                firstQuoted = isQuoted
                continue
            }
            guard redirect else { continue }
            if extras == 2 { (target, ambiguous) = Self.consider(firstExtra, target, ambiguous) }
            (target, ambiguous) = Self.consider(value, target, ambiguous)
        }
        if extras == 1 {
            if firstQuoted {
                // One quoted field after the User-Agent: the Location, as
                // `combined` + `"$sent_http_location"` writes it.
                if Bytes.equals(firstExtra, "-") || firstExtra.count == 0 {
                    record.location = .emptyByPlace
                } else if URLParts.isAbsoluteURL(firstExtra) {
                    record.location = .value(firstExtra)
                }
            } else if redirect && URLParts.isRedirectTarget(firstExtra) {
                record.location = .value(firstExtra)
            }
        } else if let target {
            // Several: the one that holds a redirect record's target.
            if ambiguous { record.locationAmbiguous = true } else { record.location = .value(target) }
        }
        return nil
    }

    /// `target` and `ambiguous` once `value` is looked at: a redirect
    /// target becomes the target, or makes it ambiguous when it differs.
    private static func consider(
        _ value: UnsafeRawBufferPointer, _ target: UnsafeRawBufferPointer?, _ ambiguous: Bool
    ) -> (UnsafeRawBufferPointer?, Bool) {
        guard URLParts.isRedirectTarget(value) else { return (target, ambiguous) }
        guard let t = target else { return (value, ambiguous) }
        return (t, ambiguous || !Bytes.equal(t, value))
    }

    /// Apache's `vhost_combined` (`%v:%p %h %l %u %t …`): when three fields
    /// stand between the first one and the time, and the first ends in
    /// `:PORT`, the client is the second.
    private static func vhostClient(_ line: UnsafeRawBufferPointer, firstSpace sp: Int, open: Int) -> UnsafeRawBufferPointer? {
        var spaces = 0
        var second = 0
        for k in (sp + 1)..<open where line[k] == .space {
            spaces += 1
            if spaces == 1 { second = k }
        }
        guard spaces == 3 else { return nil }
        var k = sp - 1
        while k > 0, line[k] >= .zero, line[k] <= .nine { k -= 1 }
        guard k < sp - 1, line[k] == .colon else { return nil }
        return Bytes.slice(line, sp + 1, second)
    }

    /// Parses the timestamp, reusing the previous line's value when the text
    /// is the same.
    @inline(__always)
    private mutating func cachedTime(_ text: UnsafeRawBufferPointer) -> Int64? {
        let count = text.count
        guard count >= 8 && count <= 32 else { return Timestamp.parseCommonLog(text) }
        let words = Self.timeWords(text)
        if count == lastTimeCount && words == lastTimeWords { return lastTime }
        guard let t = Timestamp.parseCommonLog(text) else { return nil }
        lastTimeWords = words
        lastTimeCount = count
        lastTime = t
        return t
    }

    /// All of a text of 8 to 32 bytes, as four 8-byte words (at 0, 8, 16
    /// and the last eight bytes; shorter texts overlap): equal words and
    /// lengths mean equal texts, without a call to `memcmp`.
    @inline(__always)
    private static func timeWords(_ text: UnsafeRawBufferPointer) -> SIMD4<UInt64> {
        let base = text.baseAddress!
        let last = text.count - 8
        func word(_ at: Int) -> UInt64 { base.loadUnaligned(fromByteOffset: at, as: UInt64.self) }
        return SIMD4(word(0), word(min(8, last)), word(min(16, last)), word(last))
    }

    /// A quoted field starting at the quote `at`; returns its content (with
    /// `\"`, `\\` and `\xHH` unescaped when present) and the index after the
    /// closing quote. Without `escapes` (no backslash in the line) the
    /// content is the bytes up to the next quote.
    @inline(__always)
    private mutating func quoted(_ line: UnsafeRawBufferPointer, from at: Int, escapes: Bool) -> (UnsafeRawBufferPointer, Int)? {
        let start = at &+ 1
        if !escapes {
            guard let q = Bytes.find(.quote, in: line, from: start) else { return nil }
            return (Bytes.slice(line, start, q), q &+ 1)
        }
        return escapedQuoted(line, from: start)
    }

    /// `quoted` for a line with backslashes (about one in a thousand): kept
    /// out of line, so the usual case stays small enough to inline.
    @inline(never)
    private mutating func escapedQuoted(_ line: UnsafeRawBufferPointer, from start: Int) -> (UnsafeRawBufferPointer, Int)? {
        var i = start
        var escaped = false
        while true {
            guard let q = Bytes.find(.quote, in: line, from: i) else { return nil }
            // Count the backslashes right before the quote.
            var k = q - 1
            var slashes = 0
            while k >= start && line[k] == .backslash { slashes += 1; k -= 1 }
            if slashes > 0 { escaped = true }
            if slashes % 2 == 0 {
                let raw = Bytes.slice(line, start, q)
                if !escaped && Bytes.find(.backslash, in: raw) == nil { return (raw, q + 1) }
                return (unescape(raw), q + 1)
            }
            i = q + 1
        }
    }

    private mutating func unescape(_ raw: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        let mark = scratch.mark
        var i = 0
        while i < raw.count {
            let b = raw[i]
            if b == .backslash && i + 1 < raw.count {
                let n = raw[i + 1]
                if n == UInt8(ascii: "x"), i + 3 < raw.count, let hi = Hex.value(raw[i + 2]), let lo = Hex.value(raw[i + 3]) {
                    scratch.append(hi << 4 | lo)
                    i += 4
                    continue
                }
                if n == .quote || n == .backslash {
                    scratch.append(n)
                    i += 2
                    continue
                }
                // Apache writes whitespace in C's notation (`\t`, `\n`, …;
                // `ap_escape_logitem`); nginx writes a backslash as `\x5C`,
                // so these never stand in its lines for themselves.
                if let c = Self.cEscape(n) {
                    scratch.append(c)
                    i += 2
                    continue
                }
            }
            scratch.append(b)
            i += 1
        }
        return scratch.view(from: mark)
    }
}

extension CombinedLogParser {
    /// The byte a C-style escape letter stands for (`b`, `n`, `r`, `t`, `v`).
    @inline(__always)
    static func cEscape(_ letter: UInt8) -> UInt8? {
        switch letter {
        case UInt8(ascii: "b"): return 0x08
        case UInt8(ascii: "n"): return 0x0A
        case UInt8(ascii: "r"): return 0x0D
        case UInt8(ascii: "t"): return 0x09
        case UInt8(ascii: "v"): return 0x0B
        default: return nil
        }
    }
}

/// Hexadecimal digits.
package enum Hex {
    @inline(__always)
    package static func value(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
