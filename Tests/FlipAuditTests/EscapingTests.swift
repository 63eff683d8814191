import Foundation
import Testing

@testable import Audit
@testable import Parsing
@testable import Reading
@testable import Reports
@testable import Rules

@Suite("Escaping for CSV cells and terminals")
struct EscapingTests {
    @Test(
        "formula prefixes and RFC 4180 quoting",
        arguments: [
            ("plain", "plain"),
            ("=1+2", "'=1+2"),
            ("+cmd", "'+cmd"),
            ("-x", "'-x"),
            ("@SUM(A1)", "'@SUM(A1)"),
            ("\tx", "\\x09x"),
            ("a,b", "\"a,b\""),
            ("say \"hi\"", "\"say \"\"hi\"\"\""),
            ("=a,b", "\"'=a,b\""),
            ("line\nbreak", "line\\x0abreak"),
            ("\r\n", "\\x0d\\x0a"),
            ("a,\nb", "\"a,\\x0ab\""),
            ("", ""),
            ("état", "état"),
        ])
    func cells(value: String, expected: String) {
        #expect(CSV.cell(value) == expected)
    }

    @Test(
        "control characters from a log are written out in every cell: C0, DEL, C1, bidi overrides and isolates",
        arguments: [
            ("\u{1B}]8;;https://evil.example\u{07}x", "\\x1b]8;;https://evil.example\\x07x"),
            ("a\u{7F}b", "a\\x7fb"),
            ("a\u{85}b\u{9F}", "a\\x85b\\x9f"),
            ("gro\u{202E}txt.exe", "gro\\u{202E}txt.exe"),
            ("\u{2066}x\u{2069}", "\\u{2066}x\\u{2069}"),
            // Not controls: a no-break space, é, an em dash, U+202F.
            ("a\u{A0}é—\u{202F}", "a\u{A0}é—\u{202F}"),
            ("=\u{1B}", "'=\\x1b"),
        ])
    func controls(value: String, expected: String) {
        #expect(Array(CSV.cell(value).utf8) == Array(expected.utf8))
    }

    /// From a FuzzQuery run: a combining mark after `"` or `=` makes one
    /// Character of the two; the cell must still be judged by its bytes.
    @Test(
        "a combining mark after a quote or a formula sign changes nothing",
        arguments: [
            ("=\u{035C}cmd", "'=\u{035C}cmd"),
            ("\"\u{035C}a,b", "\"\"\"\u{035C}a,b\""),
            ("\u{035C}al\u{FFFD}'\"'!`A0", "\"\u{035C}al\u{FFFD}'\"\"'!`A0\""),
        ])
    func combiningMarks(value: String, expected: String) {
        #expect(Array(CSV.cell(value).utf8) == Array(expected.utf8))
    }

    /// Every length up to 80 (under, at and past the thirty-two- and
    /// sixteen-byte steps of the scan and its overlapping last step), each
    /// character that forces quoting at every position.
    @Test("a cell is quoted wherever its comma or quote stands; CR and LF are written out")
    func quotingAtEveryPosition() {
        for length in 1...80 {
            #expect(CSV.cell(String(repeating: "a", count: length)) == String(repeating: "a", count: length))
            for position in 0..<length {
                for special in [",", "\"", "\n", "\r"] where !(position == 0 && special == "\r") {
                    var chars = Array(repeating: "a", count: length)
                    chars[position] = special
                    let value = chars.joined()
                    let expected: String
                    switch special {
                    case "\"": expected = "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
                    case ",": expected = "\"" + value + "\""
                    default: expected = value.replacingOccurrences(of: special, with: special == "\n" ? "\\x0a" : "\\x0d")
                    }
                    #expect(CSV.cell(value) == expected, "length \(length), \(special.debugDescription) at \(position)")
                }
            }
        }
    }

    @Test("a row joins cells with commas and ends with \\n")
    func row() {
        #expect(CSV.row(["a", "b,c", "-1"]) == "a,\"b,c\",'-1\n")
    }

    @Test("source cells: a file name that needs quoting or a formula prefix gets it, the line number follows")
    func sourceCells() throws {
        #expect(CSVReport.sourcePrefix(displayName: "-x.log") == Array("'-x.log:".utf8))
        #expect(CSVReport.sourcePrefix(displayName: "a,b.log") == Array("\"a,b.log:".utf8))
        let path = writeLog(
            [combined(1, authorize(), 302, location: opa + "?code=c1&state=s1")],
            named: "web,\"1\".log", in: temporaryDirectory())
        let rows = try Audit.run([path]).csv[0].split(separator: "\n")
        #expect(rows.count == 2)
        #expect(rows[1].hasSuffix("," + CSV.cell(path + ":1")))
    }

    @Test("control, escape, bidi and zero-width characters are shown, not interpreted")
    func terminal() {
        #expect(TerminalText.escape("ok") == "ok")
        #expect(TerminalText.escape("a\u{1B}[31mb") == "a\\x1b[31mb")
        #expect(TerminalText.escape("x\u{202E}y\u{200B}z") == "x\\u{202E}y\\u{200B}z")
        #expect(TerminalText.escape("bell\u{07}\u{9B}") == "bell\\x07\\x9b")
        #expect(TerminalText.escape("état ✓") == "état ✓")
    }

    @Test("codes in URLs are replaced by their digest")
    func redaction() {
        let url = "https://x.example/cb?state=s&code=secret123&x=1#f"
        let redacted = CodeDigest.redact(url)
        #expect(!redacted.contains("secret123"))
        #expect(redacted.hasPrefix("https://x.example/cb?state=s&code=sha256:"))
        #expect(redacted.hasSuffix("&x=1#f"))
        #expect(CodeDigest.of(Array("secret123".utf8)).count == "sha256:".count + 12)
        #expect(CodeDigest.redact("https://x.example/cb?state=s") == "https://x.example/cb?state=s")
    }

    /// The digest is worked out only when shown, and is SHA-256's all the
    /// same (`printf secret123 | sha256sum`); codes compare by their key.
    @Test("a code shows as the first 12 hex digits of its SHA-256 and compares by value")
    func codeHash() {
        func hash(_ text: String) -> CodeHash { Array(text.utf8).withUnsafeBytes { CodeHash($0) } }
        #expect(hash("secret123").description == "sha256:fcf730b6d952")
        #expect(hash("4/0AeaYSHx-code").description == "sha256:c8f3a8387135")
        #expect(CodeDigest.of(Array("secret123".utf8)) == "sha256:fcf730b6d952")
        #expect(hash("4/0AeaYSHx-code") == hash("4/0AeaYSHx-code"))
        #expect(hash("4/0AeaYSHx-code").key == hash("4/0AeaYSHx-code").key)
        #expect(hash("4/0AeaYSHx-code") != hash("4/0AeaYSHx-codf"))
        #expect(hash("4/0AeaYSHx-code").key != hash("4/0AeaYSHx-codf").key)
        var dumped = ""
        dump(hash("secret123"), to: &dumped)
        #expect(dumped.contains("sha256:fcf730b6d952") && !dumped.contains("secret123"))
    }
}

/// `sessions.csv` and `findings.csv` copy flipaudit's own words without
/// escaping them:
/// every one of them is a cell that needs none, and the row's room counts
/// each as under 32 bytes.
@Test func sessionWordsNeedNoEscaping() {
    let words =
        Flow.allCases.map(\.rawValue) + GoogleApp.allCases.map(\.rawValue) + GoogleEnvironment.allCases.map(\.rawValue)
        + Variant.allCases.map(\.rawValue) + Outcome.allCases.map(\.rawValue) + FindingKind.allCases.map(\.rawValue)
        + Severity.allCases.map(\.rawValue)
    #expect(words.count >= 17 + FindingKind.allCases.count)
    for word in words {
        #expect(CSV.cell(word) == word, "\(word)")
        #expect(word.utf8.count < 32, "\(word)")
    }
}

/// The escaping rules written out plainly (docs/contract.md §7): control
/// characters written `\xHH` (below U+0100) or `\u{HHHH}`, then `'`
/// before a formula start, quotes around a cell with `,` or `"`, quotes
/// inside doubled.
func referenceCell(_ text: String) -> String {
    var plain = ""
    for s in text.unicodeScalars {
        switch s.value {
        case 0x00...0x1F, 0x7F...0x9F: plain += "\\x" + (s.value < 0x10 ? "0" : "") + String(s.value, radix: 16)
        case 0x202A...0x202E, 0x2066...0x2069: plain += "\\u{" + String(s.value, radix: 16, uppercase: true) + "}"
        default: plain.unicodeScalars.append(s)
        }
    }
    let scalars = plain.unicodeScalars
    guard let first = scalars.first else { return "" }
    let body = "=+-@".unicodeScalars.contains(first) ? "'" + plain : plain
    guard scalars.contains(where: { ",\"".unicodeScalars.contains($0) }) else { return body }
    return "\"" + body.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}

/// A row written in place escapes each cell by the rules written out
/// plainly, for cells that need every kind of escaping, and the most bytes
/// a cell can grow to (all quotes, a formula start) fits the room worked
/// out for it.
@Test func rowBytesEscapeAsCellsDo() {
    let cells = [
        "", "plain", "a,b", "say \"hi\"", "line\nbreak", "=1+1", "-x", "@at", "\ttab", "\"\"\"", "=\",\"", "é, ü", "\r",
        "\u{1B}[2J", "x\u{202E}y", "\u{85},",
    ]
    for text in cells {
        var written: [UInt8] = []
        RowBytes.write(atMost: RowBytes.escapedBound(text.utf8.count), to: &written) { row in row.cell(text) }
        #expect(String(decoding: written, as: UTF8.self) == referenceCell(text), "\(text)")
        #expect(CSV.cell(text) == referenceCell(text), "\(text)")
    }
    // The most bytes a cell can grow to (every byte a control, four
    // bytes each, and a quote to make it quoted) fits the room.
    let worst = "," + String(repeating: "\u{1B}", count: 99)
    var written: [UInt8] = []
    RowBytes.write(atMost: RowBytes.escapedBound(worst.utf8.count), to: &written) { row in row.cell(worst) }
    #expect(written.count == 2 + 1 + 4 * 99)
    #expect(written.count <= RowBytes.escapedBound(worst.utf8.count))
    for value: Int64 in [0, 7, 10, 99, 1_000, -1, -10, .max, .min] {
        var digits: [UInt8] = []
        RowBytes.write(atMost: RowBytes.decimalBound, to: &digits) { row in row.put(decimal: value) }
        #expect(String(decoding: digits, as: UTF8.self) == String(value))
    }
    // One writer over times as rows give them: the same day, the next,
    // back again, a day's last and first milliseconds, and years it does
    // not keep (before 0, after 9999) between kept ones.
    let day: Int64 = 86_400_000
    let night: Int64 = 1_763_769_600_000  // 2025-11-22T00:00:00Z
    let times: [Int64] = [
        0, 1_763_800_000_123, 1_763_800_000_124, night - 1, night, night + day - 1, night + day, night - 1, -1, .max,
        1_763_800_000_123, .min, .min, 253_402_300_800_000, 253_402_300_799_999, 253_402_300_800_000, -62_167_219_200_001,
        -62_167_219_200_000, 7,
    ]
    var writer = Timestamp.ISO8601Writer()
    for ms in times {
        var time: [UInt8] = []
        RowBytes.write(atMost: Timestamp.iso8601Bound, to: &time) { row in row.put(time: ms, by: &writer) }
        #expect(String(decoding: time, as: UTF8.self) == Timestamp.iso8601(ms), "\(ms)")
    }
    // A random walk over a few days, then anywhere.
    var random = SystemRandomNumberGenerator()
    var ms = night
    var wrong: [Int64] = []
    for step in 0..<4_000 {
        ms = step < 2_000 ? ms + Int64.random(in: -3_600_000...7_200_000, using: &random) : Int64.random(in: .min ... .max, using: &random)
        var time: [UInt8] = []
        RowBytes.write(atMost: Timestamp.iso8601Bound, to: &time) { row in row.put(time: ms, by: &writer) }
        if String(decoding: time, as: UTF8.self) != Timestamp.iso8601(ms) && wrong.count < 10 { wrong.append(ms) }
    }
    #expect(wrong.isEmpty, "\(wrong)")
}

/// Whole rows at their largest fit the room worked out for them (a row
/// that did not would stop the program): every text all quotes after a
/// formula start, times whose years need ten bytes, the longest numbers,
/// every finding kind, a quoted source name. Each cell is escaped as the
/// rules say.
@Test func largestRowsFitTheirRoom() {
    let worst = "=" + String(repeating: "\"", count: 40)
    let escaped = referenceCell(worst)
    #expect(escaped == "\"'=" + String(repeating: "\"", count: 80) + "\"")
    let session = SessionRecord(
        state: worst, firstSeen: .min, lastSeen: .max,
        target: RedirectTarget(flow: .other, app: .unknown, environment: .unknown, variant: .none),
        clientID: worst, redirectURI: worst, outcome: .closedEarly, error: worst, errorDescription: worst,
        latencyMs: .min, latencyAcrossRecords: true, findings: FindingKind.allCases, clientIP: worst,
        source: SourceRef(file: 0, line: .max))
    let prefix = CSVReport.sourcePrefix(displayName: "a \"quoted\", name")
    #expect(prefix.first == .quote)
    var out: [UInt8] = []
    var times = Timestamp.ISO8601Writer()
    CSVReport.append(session: session, source: prefix, times: &times, to: &out)
    let row = String(decoding: out, as: UTF8.self)
    #expect(row.hasPrefix(escaped + "," + Timestamp.iso8601(.min) + "," + Timestamp.iso8601(.max) + ","))
    #expect(row.hasSuffix(",\"a \"\"quoted\"\", name:\(Int64.max)\"\n"))
    #expect(row.components(separatedBy: escaped).count == 7)
    #expect(row.contains(",\(Int64.min),"))
    let finding = Finding(
        kind: .codeToUnlistedRedirect, time: .min, state: worst, clientID: worst, redirectURI: worst, detail: worst,
        source: SourceRef(file: 0, line: .max))
    out.removeAll()
    CSVReport.append(finding: finding, source: prefix, times: &times, to: &out)
    let findingRow = String(decoding: out, as: UTF8.self)
    #expect(findingRow.hasPrefix(Timestamp.iso8601(.min) + ",critical,code-to-unlisted-redirect," + escaped + ","))
    #expect(findingRow.components(separatedBy: escaped).count == 5)
}

/// Every target and every outcome is written in its own columns of
/// `sessions.csv`, under the header's names (the writer copies them from
/// tables indexed by target and outcome).
@Test func sessionRowsPutEachWordUnderItsColumn() {
    let header = CSVReport.sessionsHeader
    for (i, target) in RedirectTarget.all.enumerated() {
        let outcome = Outcome.allCases[i % Outcome.allCases.count]
        let session = SessionRecord(
            state: "s\(i)", firstSeen: 0, lastSeen: 1000, target: target, clientID: "c", redirectURI: "r", outcome: outcome,
            error: "e", errorDescription: "d", latencyMs: 5, latencyAcrossRecords: false, findings: [.noReturn], clientIP: "ip",
            source: SourceRef(file: 0, line: 7))
        var out: [UInt8] = []
        var times = Timestamp.ISO8601Writer()
        CSVReport.append(session: session, source: CSVReport.sourcePrefix(displayName: "f"), times: &times, to: &out)
        let cells = String(decoding: out.dropLast(), as: UTF8.self).split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        #expect(cells.count == header.count)
        let row = Dictionary(uniqueKeysWithValues: zip(header, cells))
        #expect(row["flow"] == target.flow.rawValue && row["app"] == target.app.rawValue)
        #expect(row["environment"] == target.environment.rawValue && row["variant"] == target.variant.rawValue)
        #expect(row["outcome"] == outcome.rawValue && row["client_id"] == "c" && row["redirect_uri"] == "r")
        #expect(row["state"] == "s\(i)" && row["findings"] == "no-return" && row["source"] == "f:7")
        #expect(row["error"] == "e" && row["error_description"] == "d" && row["latency_ms"] == "5" && row["client_ip"] == "ip")
        #expect(row["first_seen"] == "1970-01-01T00:00:00.000Z" && row["last_seen"] == "1970-01-01T00:00:01.000Z")
    }
}

/// `findings.csv` rows: each value under its header's name (the writer
/// puts the cells in the header's order by hand).
@Test func findingRowsPutEachValueUnderItsColumn() {
    let finding = Finding(
        kind: .stateMismatch, time: 1000, state: "s", clientID: "c", redirectURI: "r", detail: "d", source: SourceRef(file: 0, line: 7))
    var out: [UInt8] = []
    var times = Timestamp.ISO8601Writer()
    CSVReport.append(finding: finding, source: CSVReport.sourcePrefix(displayName: "f"), times: &times, to: &out)
    let cells = String(decoding: out.dropLast(), as: UTF8.self).split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    let header = CSVReport.findingsHeader
    #expect(cells.count == header.count)
    let row = Dictionary(uniqueKeysWithValues: zip(header, cells))
    #expect(row["time"] == "1970-01-01T00:00:01.000Z" && row["severity"] == FindingKind.stateMismatch.severity.rawValue)
    #expect(row["kind"] == "state-mismatch" && row["state"] == "s" && row["client_id"] == "c" && row["redirect_uri"] == "r")
    #expect(row["detail"] == "d" && row["source"] == "f:7")
}
