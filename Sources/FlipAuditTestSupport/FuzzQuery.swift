import Foundation
import Parsing
import Reports
import Rules

/// Treats the input as a URL or query value and runs it through percent
/// decoding, URL splitting, the allowlist and look-alike checks, timestamp
/// parsing, code redaction and both escapers, checking what must hold.
public func fuzzQuery(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let raw = UnsafeRawBufferPointer(start: start, count: count)
    let text = String(decoding: raw, as: UTF8.self)

    for plus in [true, false] {
        let (decoded, malformed) = PercentDecoding.decode(raw, plusIsSpace: plus)
        // Without `%` (and `+` when it means a space) decoding is the identity.
        if !raw.contains(0x25) && !(plus && raw.contains(0x2B)) {
            invariant(decoded == text, "decoding changed plain text \(text.debugDescription)")
            // Only a `%` without two hex digits is malformed (docs/contract.md §4).
            invariant(!malformed, "no `%`, yet flagged malformed: \(text.debugDescription)")
        }
        // (Invalid UTF-8 is repaired when the String is made, so only valid input compares.)
        invariant(
            !Array(text.utf8).elementsEqual(raw) || PercentDecoding.decode(text, plusIsSpace: plus).text == decoded,
            "String and byte decoding disagree on \(text.debugDescription)")
    }

    let allowlist = Allowlist(projectIDs: ["my-project"])
    if allowlist.contains(text) {
        // Exact match only: an allowlisted URI is one of Google's two hosts.
        let parts = URLParts(text)
        invariant(
            parts?.scheme == "https" && [GoogleHosts.production, GoogleHosts.sandbox].contains(parts?.host ?? ""),
            "allowlisted URI off Google's hosts: \(text.debugDescription)")
    }
    _ = allowlist.lookAlike(text)
    _ = allowlist.unpinnedProjectID(text)
    // Any time taken from a log lies in years 1-9999 UTC, so every output
    // writes it with a four-digit year.
    for parse in [Timestamp.parseAny, Timestamp.parseCommonLog, Timestamp.parseISO8601, Timestamp.parseEpoch] {
        if let t = parse(raw) {
            invariant(t >= Timestamp.earliest && t <= Timestamp.latest, "time \(t) out of years 1-9999 from \(text.debugDescription)")
            invariant(Timestamp.iso8601(t).utf8.count == 24, "time \(t) from \(text.debugDescription) prints as \(Timestamp.iso8601(t))")
        }
    }

    let redacted = CodeDigest.redact(text)
    // Every plain `code=VALUE` (12+ letters and digits) must be gone.
    if let q = text.firstIndex(of: "?") {
        for pair in text[text.index(after: q)...].split(separator: "&") where pair.hasPrefix("code=") {
            let value = pair.dropFirst(5)
            if value.count >= 12, value.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }), text.components(separatedBy: String(value)).count == 2 {
                invariant(!redacted.contains(String(value)), "redaction kept code \(value) of \(text.debugDescription)")
            }
        }
    }

    let shown = TerminalText.escape(text)
    invariant(
        !shown.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || (0x2066...0x2069).contains($0.value) },
        "terminal text keeps a control character: \(shown.debugDescription)")
    // Bytes, not Characters: a combining mark after `"` or `=` makes one
    // Character of the two, and a spreadsheet looks at the first byte.
    let cell = Array(CSV.cell(text).utf8)
    if let first = cell.first { invariant(!Array("=+-@\t\r".utf8).contains(first), "CSV cell starts a formula: \(cell)") }
    let quote = UInt8(ascii: "\"")
    if cell.first == quote {
        invariant(cell.count >= 2 && cell.last == quote, "quoted CSV cell not closed: \(cell)")
        // Inside, every quote is doubled.
        var inner = cell.dropFirst().dropLast()[...]
        while let i = inner.firstIndex(of: quote) {
            invariant(inner.index(after: i) < inner.endIndex && inner[inner.index(after: i)] == quote, "lone quote inside a CSV cell: \(cell)")
            inner = inner[(i + 2)...]
        }
    } else {
        invariant(
            !cell.contains(UInt8(ascii: ",")) && !cell.contains(quote) && !cell.contains(0x0A) && !cell.contains(0x0D),
            "CSV cell needed quotes: \(cell)")
    }
    return 0
}
