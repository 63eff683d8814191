import Foundation
import Testing

@testable import Audit
@testable import Parsing
@testable import Reading
@testable import Rules

/// Parses one line with a parser and returns the fields as Strings.
struct Parsed {
    var time: Int64, ip: String, method: String, target: String, status: Int
    var location: String?  // nil: not logged; "": empty

    /// A record's fields as Strings (valid while the record's views are).
    init(_ record: LogRecord) {
        let s = { (b: UnsafeRawBufferPointer) in String(decoding: b, as: UTF8.self) }
        switch record.location {
        case .notLogged: location = nil
        case .empty, .emptyByPlace: location = ""
        case .value(let v): location = s(v)
        }
        (time, ip, method, target, status) = (record.time, s(record.clientIP), s(record.method), s(record.target), record.status)
    }
}

func parse<P: RecordParser>(_ parser: inout P, _ line: String) -> Result<Parsed, ParseFailure> {
    var bytes = Array(line.utf8)
    return bytes.withUnsafeMutableBytes { raw in
        var record = LogRecord()
        if let failure = parser.parse(UnsafeRawBufferPointer(raw), into: &record) { return .failure(ParseFailure(reason: failure)) }
        return .success(Parsed(record))
    }
}

struct ParseFailure: Error, Equatable { var reason: MalformedReason }

/// 2026-11-22T10:00:01Z in ms.
let t0: Int64 = 1_795_341_601_000

@Suite("Combined log format")
struct CombinedParserTests {
    var parser = CombinedLogParser(maxLine: 4096)

    @Test("the the example line of docs/contract.md §2, with its 10th Location field")
    mutating func specExample() throws {
        let line =
            #"203.0.113.9 - - [22/Nov/2026:10:00:01 +0000] "GET /oauth/authorize?response_type=code&client_id=G123&state=s1 HTTP/1.1" 302 0 "-" "GoogleApp/1.0" "https://oauth-redirect.googleusercontent.com/a/com.google.OPA?code=c1&state=s1""#
        let p = try parse(&parser, line).get()
        #expect(p.time == t0)
        #expect(p.ip == "203.0.113.9")
        #expect(p.method == "GET")
        #expect(p.target == "/oauth/authorize?response_type=code&client_id=G123&state=s1")
        #expect(p.status == 302)
        #expect(p.location == "https://oauth-redirect.googleusercontent.com/a/com.google.OPA?code=c1&state=s1")
    }

    @Test("time zones are converted to UTC")
    mutating func timeZone() throws {
        let line = #"203.0.113.9 - - [22/Nov/2026:11:00:01 +0100] "GET / HTTP/1.1" 200 5 "-" "x" "-""#
        let p = try parse(&parser, line).get()
        #expect(p.time == t0)
        #expect(p.location == "")
    }

    /// The parser reuses the previous line's time when the text is the
    /// same: a change at any one place must be seen.
    @Test("a time differing from the line before at any one place is parsed again")
    mutating func timeCache() throws {
        let base = "22/Nov/2026:10:00:01 +0000"
        let changed = [
            "12/Nov/2026:10:00:01 +0000", "23/Nov/2026:10:00:01 +0000", "22/Oct/2026:10:00:01 +0000",
            "22/Nov/2016:10:00:01 +0000", "22/Nov/2026:11:00:01 +0000", "22/Nov/2026:10:10:01 +0000",
            "22/Nov/2026:10:00:11 +0000", "22/Nov/2026:10:00:02 +0000", "22/Nov/2026:10:00:01 +0100",
            "22/Nov/2026:10:00:01 +0001", "22/Nov/2026:10:00:01 -0100",
        ]
        func line(_ time: String) -> String { "1.2.3.4 - - [\(time)] \"GET / HTTP/1.1\" 200 5 \"-\" \"x\" \"-\"" }
        for time in changed {
            let first = try parse(&parser, line(base)).get().time
            #expect(first == t0)
            let second = try parse(&parser, line(time)).get().time
            var alone = CombinedLogParser(maxLine: 4096)
            let expected = try parse(&alone, line(time)).get().time
            #expect(second == expected, "\(time)")
            #expect(second != first, "\(time)")
        }
    }

    @Test("nine fields: Location not logged; a 10th field that is not a URL is not a Location")
    mutating func noLocation() throws {
        #expect(try parse(&parser, #"1.2.3.4 - - [22/Nov/2026:10:00:01 +0000] "GET / HTTP/1.1" 200 5 "-" "x""#).get().location == nil)
        #expect(try parse(&parser, #"1.2.3.4 - - [22/Nov/2026:10:00:01 +0000] "GET / HTTP/1.1" 200 5 "-" "x" "0.003""#).get().location == nil)
    }

    @Test("the common format (no referer, no user agent) parses")
    mutating func common() throws {
        let p = try parse(&parser, #"1.2.3.4 - frank [22/Nov/2026:10:00:01 +0000] "GET /a?b=1 HTTP/1.0" 404 -"#).get()
        #expect(p.status == 404)
        #expect(p.target == "/a?b=1")
    }

    @Test("escaped quotes inside quoted fields: Apache \\\" and nginx \\x22")
    mutating func escapedQuotes() throws {
        let apache = #"1.2.3.4 - - [22/Nov/2026:10:00:01 +0000] "GET /x HTTP/1.1" 200 5 "-" "Agent \"quoted\" \\ end" "https://a.example/cb?code=1""#
        let p = try parse(&parser, apache).get()
        #expect(p.location == "https://a.example/cb?code=1")
        let nginx = #"1.2.3.4 - - [22/Nov/2026:10:00:01 +0000] "GET /x?q=\x22a\x22 HTTP/1.1" 200 5 "-" "x" "-""#
        #expect(try parse(&parser, nginx).get().target == #"/x?q="a""#)
    }

    @Test("a malformed request line (TLS handshake on a plain port) is still a record, without target")
    mutating func tlsGarbage() throws {
        let line = #"45.1.2.3 - - [22/Nov/2026:10:00:01 +0000] "\x16\x03\x01\x00\xA5\x01\x00" 400 157 "-" "-" "-""#
        let p = try parse(&parser, line).get()
        #expect(p.status == 400)
        #expect(p.target.isEmpty)
        #expect(p.method.isEmpty)
    }

    @Test("lines that are not combined are malformed, with a reason")
    mutating func malformed() {
        #expect(throws: ParseFailure(reason: .badTime)) { try parse(&parser, #"1.2.3.4 - - [22/Nov/2026:25:00:01 +0000] "GET / HTTP/1.1" 200 5"#).get() }
        #expect(throws: ParseFailure(reason: .unparsable)) { try parse(&parser, "just some text").get() }
        #expect(throws: ParseFailure(reason: .unparsable)) { try parse(&parser, #"1.2.3.4 - - [22/Nov/2026:10:00:01 +0000] "GET / HTTP/1.1 200 5"#).get() }
        #expect(throws: ParseFailure(reason: .unparsable)) { try parse(&parser, #"1.2.3.4 - - [22/Nov/2026:10:00:01 +0000] "GET / HTTP/1.1" OK 5"#).get() }
    }
}

@Suite("JSON lines")
struct JSONParserTests {
    var parser = JSONLineParser(maxLine: 4096)

    @Test("an nginx escape=json line")
    mutating func nginxJSON() throws {
        let line =
            #"{"time_iso8601":"2026-11-22T11:00:01+01:00","remote_addr":"203.0.113.9","request":"GET /cb?a=1 HTTP/2.0","status":"302","sent_http_location":"https:\/\/oauth-redirect.googleusercontent.com\/a\/com.google.OPA?code=c\u0026state=s1"}"#
        let p = try parse(&parser, line).get()
        #expect(p.time == t0)
        #expect(p.ip == "203.0.113.9")
        #expect(p.target == "/cb?a=1")
        #expect(p.status == 302)
        #expect(p.location == "https://oauth-redirect.googleusercontent.com/a/com.google.OPA?code=c&state=s1")
    }

    @Test("for each role the first key of its list wins, wherever it stands in the object")
    mutating func keyPriority() throws {
        let line =
            #"{"ts":1,"timestamp":"2026-11-22T09:00:00Z","time":"2026-11-22T10:00:01Z","method":"POST","url":"/u","path":"/p","status":200,"ip":"9.9.9.9","client_ip":"8.8.8.8"}"#
        let p = try parse(&parser, line).get()
        #expect(p.time == t0)
        #expect(p.method == "POST")
        #expect(p.target == "/u")
        #expect(p.ip == "8.8.8.8")
        #expect(p.location == nil)
    }

    @Test("method + uri + args are joined into a target; nested values are skipped")
    mutating func methodURIArgs() throws {
        let line =
            #"{"meta":{"a":[1,{"b":"}"}]},"ts":1795341601.5,"method":"GET","uri":"/oauth/authorize","args":"state=s1&client_id=G","status":302,"location":"-"}"#
        let p = try parse(&parser, line).get()
        #expect(p.time == t0 + 500)
        #expect(p.target == "/oauth/authorize?state=s1&client_id=G")
        #expect(p.location == "")
    }

    @Test("a location of \"\" counts as logged but empty")
    mutating func emptyLocation() throws {
        let p = try parse(&parser, #"{"time":"2026-11-22T10:00:01Z","request":"GET / HTTP/1.1","status":200,"location":""}"#).get()
        #expect(p.location == "")
    }

    @Test("not an object, broken JSON, missing fields")
    mutating func malformed() {
        #expect(throws: ParseFailure(reason: .notJSONObject)) { try parse(&parser, #"["not","an","object"]"#).get() }
        #expect(throws: ParseFailure(reason: .unparsable)) { try parse(&parser, #"{"time":"2026-11-22T10:00:01Z","status":200"#).get() }
        #expect(throws: ParseFailure(reason: .missingField)) { try parse(&parser, #"{"time":"2026-11-22T10:00:01Z","status":200}"#).get() }
        #expect(throws: ParseFailure(reason: .badTime)) { try parse(&parser, #"{"time":"yesterday","request":"GET / HTTP/1.1","status":200}"#).get() }
    }
}

@Suite("nginx log_format")
struct NginxFormatTests {
    @Test("a pasted log_format directive parses its own lines")
    func pasted() throws {
        let directive = #"""
            log_format flip '$remote_addr [$time_iso8601] "$request_method $request_uri" $status '
                            '"$sent_http_location" rt=$request_time';
            """#
        var parser = try LogFormatParser(logFormat: directive, maxLine: 4096)
        #expect(parser.logsLocation)
        let p = try parse(&parser, #"203.0.113.9 [2026-11-22T10:00:01+00:00] "GET /oauth/authorize?state=s1" 302 "https://x.example/cb?code=1" rt=0.004"#).get()
        #expect(p.time == t0)
        #expect(p.method == "GET")
        #expect(p.target == "/oauth/authorize?state=s1")
        #expect(p.status == 302)
        #expect(p.location == "https://x.example/cb?code=1")
        #expect(throws: ParseFailure(reason: .unparsable)) { try parse(&parser, "203.0.113.9 something else").get() }
    }

    @Test("the analyzer refuses an unusable log_format before reading")
    func analyzerRefuses() {
        var config = AuditConfiguration()
        config.format = .logFormat("$remote_addr $request")
        #expect(throws: ConfigurationError.self) { try Audit.run([fixture("plain.log")], config) }
    }

    @Test("a format without time or status is refused")
    func refused() {
        #expect(throws: ConfigurationError.self) { try LogFormatParser(logFormat: "$remote_addr $request $status", maxLine: 100) }
        #expect(throws: ConfigurationError.self) { try LogFormatParser(logFormat: "[$time_local] $request", maxLine: 100) }
    }
}

@Suite("Timestamps")
struct TimestampTests {
    func ts(_ s: String, _ f: (UnsafeRawBufferPointer) -> Int64?) -> Int64? {
        Array(s.utf8).withUnsafeBytes { f($0) }
    }

    @Test("common log, ISO 8601 and epoch formats agree on one instant")
    func formats() {
        #expect(ts("22/Nov/2026:10:00:01 +0000", Timestamp.parseCommonLog) == t0)
        #expect(ts("22/Nov/2026:05:00:01 -0500", Timestamp.parseCommonLog) == t0)
        #expect(ts("2026-11-22T10:00:01Z", Timestamp.parseISO8601) == t0)
        #expect(ts("2026-11-22T10:00:01.250+00:00", Timestamp.parseISO8601) == t0 + 250)
        #expect(ts("2026-11-22 15:30:01+0530", Timestamp.parseISO8601) == t0)
        #expect(ts("1795341601", Timestamp.parseEpoch) == t0)
        #expect(ts("1795341601000", Timestamp.parseEpoch) == t0)
        #expect(ts("22/Foo/2026:10:00:01 +0000", Timestamp.parseCommonLog) == nil)
    }

    @Test("impossible calendar dates and times outside years 1-9999 (UTC) are not times")
    func calendar() {
        #expect(ts("30/Feb/2026:10:00:00 +0000", Timestamp.parseCommonLog) == nil)
        #expect(ts("29/Feb/2026:10:00:00 +0000", Timestamp.parseCommonLog) == nil)
        #expect(ts("29/Feb/2024:10:00:00 +0000", Timestamp.parseCommonLog) != nil)
        #expect(ts("29/Feb/2000:10:00:00 +0000", Timestamp.parseCommonLog) != nil)
        #expect(ts("29/Feb/2100:10:00:00 +0000", Timestamp.parseCommonLog) == nil)
        #expect(ts("31/Apr/2026:10:00:00 +0000", Timestamp.parseCommonLog) == nil)
        #expect(ts("31/Dec/2026:10:00:00 +0000", Timestamp.parseCommonLog) != nil)
        #expect(ts("00/Dec/2026:10:00:00 +0000", Timestamp.parseCommonLog) == nil)
        #expect(ts("2026-02-30T10:00:00Z", Timestamp.parseISO8601) == nil)
        #expect(ts("2026-06-31T10:00:00Z", Timestamp.parseISO8601) == nil)
        // Year 10000 once the offset is applied, and year 0.
        #expect(ts("31/Dec/9999:23:59:59 -2359", Timestamp.parseCommonLog) == nil)
        #expect(ts("9999-12-31T23:59:59-00:01", Timestamp.parseISO8601) == nil)
        #expect(ts("9999-12-31T23:59:59.999Z", Timestamp.parseISO8601) == Timestamp.latest)
        #expect(ts("0001-01-01T00:00:00+00:01", Timestamp.parseISO8601) == nil)
        #expect(ts("0001-01-01T00:00:00Z", Timestamp.parseISO8601) == Timestamp.earliest)
        #expect(ts("0000-06-01T00:00:00Z", Timestamp.parseISO8601) == nil)
        // Sixteen digits are microseconds (year 2286); twenty are nothing.
        #expect(ts("9999999999999999", Timestamp.parseEpoch) == 9_999_999_999_999)
        #expect(ts("99999999999999999999", Timestamp.parseEpoch) == nil)
        #expect(ts("1795341601000000000", Timestamp.parseEpoch) == 1_795_341_601_000)
        #expect(Timestamp.iso8601(Timestamp.latest) == "9999-12-31T23:59:59.999Z")
        #expect(Timestamp.iso8601(Timestamp.earliest) == "0001-01-01T00:00:00.000Z")
    }

    @Test("formatting back to ISO 8601 with milliseconds, and periods")
    func formatting() {
        #expect(Timestamp.iso8601(t0 + 7) == "2026-11-22T10:00:01.007Z")
        #expect(Timestamp.period(t0, hourly: false) == "2026-11-22")
        #expect(Timestamp.period(t0, hourly: true) == "2026-11-22T10:00:00Z")
        #expect(Timestamp.iso8601(0) == "1970-01-01T00:00:00.000Z")
        // An epoch a log got wrong: a five-digit year keeps its month and day.
        let year10000 = Int64(Timestamp.daysFromCivil(year: 10000, month: 3, day: 4)) * 86_400_000 + 5_000
        #expect(Timestamp.iso8601(year10000) == "10000-03-04T00:00:05.000Z")
        #expect(Timestamp.period(year10000, hourly: true) == "10000-03-04T00:00:00Z")
    }

    @Test("times and periods as Foundation's ISO 8601 formatter writes them, over years 1583 to 9999")
    func formattingAgreesWithFoundation() {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        formatter.timeZone = TimeZone(identifier: "UTC")
        var random = SystemRandomNumberGenerator()
        // Foundation's calendar is proleptic Gregorian only from 1582:
        // earlier years are left out.
        let from = Int64(Timestamp.daysFromCivil(year: 1583, month: 1, day: 1)) * 86_400
        for _ in 0..<2_000 {
            // Whole seconds to Foundation (a Double holds them exactly), the
            // milliseconds written here.
            let seconds = Int64.random(in: from...(Timestamp.latest / 1000), using: &random)
            let millis = Int64.random(in: 0...999, using: &random)
            let ms = seconds * 1000 + millis
            let whole = formatter.string(from: Date(timeIntervalSince1970: Double(seconds)))
            let expected = String(whole.prefix(19)) + "." + String(String(millis + 1000).dropFirst()) + "Z"
            #expect(Timestamp.iso8601(ms) == expected, "ms \(ms)")
            #expect(Timestamp.period(ms, hourly: false) == String(expected.prefix(10)))
            #expect(Timestamp.period(ms, hourly: true) == String(expected.prefix(13)) + ":00:00Z")
        }
    }
}

@Suite("Query strings")
struct QueryTests {
    @Test("percent-decoding: + is a space, malformed escapes are flagged and kept")
    func decoding() {
        func d(_ s: String) -> (String, Bool) {
            Array(s.utf8).withUnsafeBytes {
                let r = PercentDecoding.decode($0); return (r.text, r.malformed)
            }
        }
        #expect(d("a+b%20c") == ("a b c", false))
        #expect(d("https%3A%2F%2Fx") == ("https://x", false))
        #expect(d("abc%zz") == ("abc%zz", true))
        #expect(d("abc%4") == ("abc%4", true))
        // Well-formed escapes, though not UTF-8 once decoded: not malformed
        // (docs/contract.md §4: only a `%` without two hex digits is).
        #expect(d("%FF%FE").1 == false)
        #expect(d("a%00b%0D%0A") == ("a\u{0}b\r\n", false))
    }

    @Test("flip parameters are found by name, counted, and percent-encoded names are decoded")
    func scan() {
        var q = FlipQuery()
        Array("response_type=code&st%61te=x&client_id=a&client_id=b&redirect_uri=&foo=state".utf8).withUnsafeBytes { q.scan($0) }
        #expect(q.counts[FlipParam.state.rawValue] == 1)
        #expect(q.counts[FlipParam.clientID.rawValue] == 2)
        #expect(q.has(.redirectURI))
        #expect(!q.has(.code))
        #expect(q.requestParamCount == 3)
        #expect(q[.clientID].map { String(decoding: $0, as: UTF8.self) } == "a")
    }
}

@Suite("Query slots")
struct QuerySlotTests {
    @Test("a FlipQuery has one slot per flip parameter")
    func slotPerParameter() {
        #expect(FlipQuery().values.count == FlipParam.allCases.count)
        #expect(FlipQuery().counts.count == FlipParam.allCases.count)
    }
}

@Suite("Line check")
struct LineCheckTests {
    /// Every length up to 150 (under, at and past the sixty-four- and
    /// sixteen-byte steps and the overlapping last step), the byte at every
    /// position or absent.
    @Test("the line check finds NUL, bytes ≥ 0x80 and backslashes wherever they are")
    func lineCheckFindsEveryKind() {
        for length in 0...150 {
            for position in -1..<length {
                for special: UInt8 in [0, 0x80, 0xFF, .backslash] {
                    var bytes = [UInt8](repeating: UInt8(ascii: "]"), count: length)  // 0x5D, next to 0x5C
                    if position >= 0 { bytes[position] = special }
                    let check = bytes.withUnsafeBytes { Bytes.LineCheck($0) }
                    let present = position >= 0
                    #expect(check.highOrNUL == (present && special != .backslash), "length \(length), \(special) at \(position)")
                    #expect(check.backslash == (present && special == .backslash), "length \(length), \(special) at \(position)")
                }
            }
        }
    }

    /// The sixty-four-byte step folds its bytes (`min(v, v ^ 0x5C) - 1`,
    /// then the maximum of four blocks): every byte value, alone in a
    /// block of plain bytes and filling all of it, is a mark exactly when
    /// it is NUL, ≥ 0x80 or a backslash.
    @Test("firstMark's sixty-four-byte step tells every byte value right")
    func firstMarkEveryByte() {
        for value in 0...255 {
            let byte = UInt8(value)
            let mark = byte == 0 || byte >= 0x80 || byte == .backslash
            for position in [0, 17, 37, 63] {
                var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 200)
                bytes[position] = byte
                let found = bytes.withUnsafeBytes { Bytes.LineCheck.firstMark(in: $0, from: 0) }
                #expect(found == (mark ? position : nil), "byte \(value) at \(position)")
            }
            let filled = [UInt8](repeating: byte, count: 128)
            let found = filled.withUnsafeBytes { Bytes.LineCheck.firstMark(in: $0, from: 0) }
            #expect(found == (mark ? 0 : nil), "128 bytes of \(value)")
        }
    }

    @Test("firstMark finds the first NUL, byte ≥ 0x80 or backslash at or after an offset")
    func firstMark() {
        for length in 0...150 {
            for from in 0...min(length, 20) {
                for position in -1..<length {
                    for special: UInt8 in [0, 0x80, 0xFF, .backslash] {
                        var bytes = [UInt8](repeating: UInt8(ascii: "]"), count: length)
                        if position >= 0 { bytes[position] = special }
                        // A second mark further on must not be the answer.
                        if position >= 0 && position + 3 < length { bytes[position + 3] = .backslash }
                        let found = bytes.withUnsafeBytes { Bytes.LineCheck.firstMark(in: $0, from: from) }
                        let expected: Int? =
                            position >= from
                            ? position
                            : (position >= 0 && position + 3 < length && position + 3 >= from ? position + 3 : nil)
                        #expect(found == expected, "length \(length), from \(from), \(special) at \(position)")
                    }
                }
            }
        }
    }
}

@Suite("Finding a byte")
struct FindByteTests {
    @Test("find returns the first occurrence at or after an offset, near or far", arguments: [0, 1, 15, 16, 17, 31, 32, 100])
    func find(position: Int) {
        for length in [position + 1, position + 16, position + 40] {
            for from in [0, 1, 15, 16, 17] where from <= length {
                var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                bytes[position] = UInt8(ascii: "\"")
                if position + 2 < length { bytes[position + 2] = UInt8(ascii: "\"") }
                let found = bytes.withUnsafeBytes { Bytes.find(UInt8(ascii: "\""), in: $0, from: from) }
                let expected: Int? = position >= from ? position : (position + 2 < length && position + 2 >= from ? position + 2 : nil)
                #expect(found == expected, "length \(length), from \(from), quote at \(position)")
            }
        }
    }
}

/// The block search of `containsCaseInsensitive` against a byte-by-byte
/// reference: the needle in either case at every place in buffers of every
/// length around the 16-position blocks, and near misses (bytes that equal
/// the needle's ends with bit 5 set, a needle cut short by the end).
@Test func caseInsensitiveSearchAgreesWithByteByByte() {
    func reference(_ hay: [UInt8], _ needle: [UInt8]) -> Bool {
        guard hay.count >= needle.count else { return false }
        return (0...(hay.count - needle.count)).contains { i in
            (0..<needle.count).allSatisfy { j in Bytes.asciiLower(hay[i + j]) == needle[j] }
        }
    }
    let needle = Array("oauth-redirect".utf8)
    var checked = 0
    for length in [0, 1, 13, 14, 15, 16, 29, 30, 31, 32, 33, 47, 64, 100] {
        for position in stride(from: 0, through: max(0, length - 1), by: 1) {
            for variant in 0..<4 {
                // Filler: the needle's ends in either case, candidates to check in full.
                let filler = Array("OoTx".utf8)
                var hay = (0..<length).map { k in filler[k % 4] }
                var piece = needle
                if variant == 1 { piece = Array("OAuth-Redirect".utf8) }
                if variant == 2 { piece[5] = UInt8(ascii: "_") }  // a near miss
                if variant == 3 { piece.removeLast() }  // cut short
                for (j, b) in piece.enumerated() where position + j < length { hay[position + j] = b }
                let found = hay.withUnsafeBytes { Bytes.containsCaseInsensitive($0, "oauth-redirect") }
                #expect(found == reference(hay, needle), "length \(length), at \(position), variant \(variant)")
                checked += 1
            }
        }
    }
    #expect(checked > 1_000)
    let hit = Array("https://oauth-redirect.googleusercontent.com/r/x".utf8).withUnsafeBytes {
        Bytes.containsCaseInsensitive($0, "googleusercontent.com")
    }
    #expect(hit)
}

/// `hasValueMark` finds `%`, `+`, a backslash, NUL and bytes ≥ 0x80, and
/// nothing else, wherever the byte stands: in a short value (one padded
/// vector), in a long one (blocks of 32 and 16, the last overlapping), at
/// every length from 1 to 70 and every position.
@Test func valueMarksAreEscapesAndBytesThatAreNotPlainText() {
    let wrong = byteClassMismatches(lengths: 1...70, filler: UInt8(ascii: "Q")) { value in
        value.withUnsafeBytes { Bytes.hasValueMark($0) }
    } expected: { byte in
        byte == UInt8(ascii: "%") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "\\") || byte == 0 || byte >= 0x80
    }
    #expect(wrong.checked == 256 * 2485)
    #expect(wrong.found.isEmpty, "\(wrong.found)")
    #expect(![UInt8]().withUnsafeBytes { Bytes.hasValueMark($0) })
}

/// `mayHoldControl` (every CSV cell is asked) finds C0, DEL, `C2` and
/// `E2`, and nothing else, at every length from 1 to 70 and every position.
@Test func controlLeadsAreFoundWhereverTheyStand() {
    let wrong = byteClassMismatches(lengths: 1...70, filler: UInt8(ascii: "Q")) { value in
        value.withUnsafeBytes { Bytes.mayHoldControl($0) }
    } expected: { byte in
        byte < 0x20 || byte == 0x7F || byte == 0xC2 || byte == 0xE2
    }
    #expect(wrong.checked == 256 * 2485)
    #expect(wrong.found.isEmpty, "\(wrong.found)")
    #expect(![UInt8]().withUnsafeBytes { Bytes.mayHoldControl($0) })
}

/// `mayNeedEscaping` (the one pass over a usual CSV cell) finds what
/// `mayHoldControl` finds, and a comma or a quote, and nothing else.
@Test func cellMarksAreFoundWhereverTheyStand() {
    let wrong = byteClassMismatches(lengths: 1...70, filler: UInt8(ascii: "Q")) { value in
        value.withUnsafeBytes { Bytes.mayNeedEscaping($0) }
    } expected: { byte in
        byte < 0x20 || byte == 0x7F || byte == 0xC2 || byte == 0xE2 || byte == UInt8(ascii: ",") || byte == UInt8(ascii: "\"")
    }
    #expect(wrong.checked == 256 * 2485)
    #expect(wrong.found.isEmpty, "\(wrong.found)")
    #expect(![UInt8]().withUnsafeBytes { Bytes.mayNeedEscaping($0) })
}

/// Where `check` of a buffer of `filler` bytes with one byte replaced
/// disagrees with `expected` of that byte: every byte value, at every
/// position of every length in `lengths` (the first ten disagreements,
/// and how many buffers were checked).
func byteClassMismatches(
    lengths: ClosedRange<Int>, filler: UInt8, check: ([UInt8]) -> Bool, expected: (UInt8) -> Bool
) -> (found: [String], checked: Int) {
    var checked = 0
    var found: [String] = []
    for b in 0...255 {
        let byte = UInt8(b)
        let named = expected(byte)
        for length in lengths {
            for position in 0..<length {
                var buffer = [UInt8](repeating: filler, count: length)
                buffer[position] = byte
                if check(buffer) != named && found.count < 10 { found.append("byte \(b) at \(position) of \(length)") }
                checked += 1
            }
        }
    }
    return (found, checked)
}

/// The client address's byte set is the one its doc names, wherever the
/// byte stands: alone, in a short address (one padded vector), in a long
/// one (full vectors and the overlapping last one), at every length from
/// 1 to 40 and every position.
@Test func clientAddressBytesAreLettersDigitsAndFewMarks() {
    let wrong = byteClassMismatches(lengths: 1...40, filler: UInt8(ascii: "7")) { address in
        address.withUnsafeBytes { FlipEventExtractor.keepsAddress($0) }
    } expected: { byte in
        (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) || Array(".:-_[]%".utf8).contains(byte)
    }
    #expect(wrong.checked == 256 * 820)
    #expect(wrong.found.isEmpty, "\(wrong.found)")
    let kept = Array("[2001:db8::1%eth0]".utf8).withUnsafeBytes { FlipEventExtractor.keepsAddress($0) }
    let hidden = Array("\"https://x/?code=abc\"".utf8).withUnsafeBytes { FlipEventExtractor.keepsAddress($0) }
    let longest = [UInt8](repeating: UInt8(ascii: "a"), count: 255).withUnsafeBytes { FlipEventExtractor.keepsAddress($0) }
    let long = [UInt8](repeating: UInt8(ascii: "a"), count: 256).withUnsafeBytes { FlipEventExtractor.keepsAddress($0) }
    let empty = [UInt8]().withUnsafeBytes { FlipEventExtractor.keepsAddress($0) }
    #expect(kept && !hidden && longest && !long && empty)
}

/// `isAbsoluteURL`'s 8-byte shortcut for `http://` and `https://` agrees
/// with RFC 3986's scheme rule, checked byte by byte: both schemes in mixed
/// case, each byte of them replaced by every byte value (so a byte that
/// only matches with bit 5 set, say `\u{1a}` for `:`, is refused), and
/// texts cut at every length.
@Test func absoluteURLShortcutAgreesWithTheSchemeRule() {
    func reference(_ b: [UInt8]) -> Bool {
        guard let colon = b.firstIndex(of: .colon), colon > 0, colon + 2 < b.count, b[colon + 1] == .slash, b[colon + 2] == .slash
        else { return false }
        return b[..<colon].enumerated().allSatisfy { i, c in
            let isLetter = (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
            let isDigit = c >= .zero && c <= .nine
            return isLetter || (i > 0 && (isDigit || c == .plus || c == .minus || c == .dot))
        }
    }
    var checked = 0
    for base in ["https://h/p?code=1", "http://h/p", "HtTpS://x", "HTTP://x", "http:/", "https:/x", "app+x.y-z://r"] {
        let bytes = Array(base.utf8)
        for cut in 0...bytes.count {
            for place in 0..<min(cut, 9) {
                for value in [0, 0x08, 0x0f, 0x1a, 0x1f, 0x20, 0x2f, 0x3a, 0x48, 0x54, 0x68, 0x74, 0x7f, 0xff] {
                    var text = Array(bytes[..<cut])
                    text[place] = UInt8(value)
                    let found = text.withUnsafeBytes { URLParts.isAbsoluteURL($0) }
                    #expect(found == reference(text), "\(text)")
                    checked += 1
                }
            }
            let whole = Array(bytes[..<cut])
            #expect(whole.withUnsafeBytes { URLParts.isAbsoluteURL($0) } == reference(whole), "\(whole)")
        }
    }
    #expect(checked > 500)
    #expect(Array("https://oauth-redirect.googleusercontent.com/r/x".utf8).withUnsafeBytes { URLParts.isAbsoluteURL($0) })
}
