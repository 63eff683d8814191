import Parsing
import Reading

/// One CSV row written in place, then appended to its file's buffer with
/// one copy. Appending each cell to the buffer instead costs a capacity
/// and uniqueness check and a generic copy per piece, and a row has a
/// dozen pieces or more.
///
/// ```
///  start                 next               end
///    │ "state",2026-11-…,  │   (not written)   │
///    └──── count ─────────┘
/// ```
/// The row's room, `end - start`, is worked out from its cells before
/// any is written (`escapedBound` for a cell, `decimalBound`,
/// `Timestamp.iso8601Bound`); every put checks it, so a wrong bound stops
/// the program rather than writing past the room.
///
/// Not `Sendable`, not copyable: it points into memory that lives only
/// while `write` runs.
struct RowBytes: ~Copyable {
    private let start: UnsafeMutablePointer<UInt8>
    private var next: UnsafeMutablePointer<UInt8>
    private let end: UnsafeMutablePointer<UInt8>

    /// Bytes a cell of `count` bytes takes at most: every byte a control
    /// character written `\xHH` (a doubled quote takes 2, C1 and bidi
    /// controls fewer than 4 a byte), quoted, and the formula prefix.
    static func escapedBound(_ count: Int) -> Int { 4 * count + 3 }
    /// Bytes of a 64-bit decimal at most (`-9223372036854775808`).
    static let decimalBound = 20

    /// Writes a row of at most `bound` bytes with `body` and appends it to
    /// `out`.
    static func write(atMost bound: Int, to out: inout [UInt8], _ body: (inout RowBytes) -> Void) {
        write(atMost: bound, to: &out, ()) { row, _ in body(&row) }
    }

    /// `write` of a row made from `value`, which `body` is lent: captured
    /// by the closure instead, a row record (a dozen Strings) is copied
    /// into its context, and each String retained and released.
    static func write<Value>(atMost bound: Int, to out: inout [UInt8], _ value: Value, _ body: (inout RowBytes, Value) -> Void) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bound) { room in
            var row = RowBytes(start: room.baseAddress!, end: room.baseAddress! + bound)
            body(&row, value)
            out.append(contentsOf: UnsafeBufferPointer(start: row.start, count: row.next - row.start))
        }
    }

    private init(start: UnsafeMutablePointer<UInt8>, end: UnsafeMutablePointer<UInt8>) {
        self.start = start
        self.next = start
        self.end = end
    }

    @inline(__always)
    private func room(_ n: Int) -> UnsafeMutablePointer<UInt8> {
        precondition(end - next >= n, "a CSV row outgrew the room worked out for it")
        return next
    }

    @inline(__always)
    mutating func put(_ byte: UInt8) {
        room(1).pointee = byte
        next += 1
    }

    @inline(__always)
    mutating func put(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        room(bytes.count).update(from: base.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        next += bytes.count
    }

    mutating func put(_ bytes: [UInt8]) { bytes.withUnsafeBytes { put($0) } }

    /// A String's UTF-8 as it is (flipaudit's own words, never escaped).
    mutating func put(_ text: String) {
        if text.utf8.withContiguousStorageIfAvailable({ put(UnsafeRawBufferPointer($0)) }) != nil { return }
        var copy = text
        copy.withUTF8 { put(UnsafeRawBufferPointer($0)) }
    }

    /// An escaped cell (`cell(bytes:)`).
    mutating func cell(_ text: String) {
        if text.utf8.withContiguousStorageIfAvailable({ cell(bytes: UnsafeRawBufferPointer($0)) }) != nil { return }
        var copy = text
        copy.withUTF8 { cell(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// An escaped cell given as UTF-8 bytes: its control characters
    /// written `\xHH` or `\u{HHHH}` (C0, DEL, C1, the bidi overrides and
    /// isolates: `cat` of the file cannot drive a terminal), prefixed with
    /// `'` when it starts like a formula, quoted (quotes doubled) when it
    /// holds `,` or `"`.
    mutating func cell(bytes u: UnsafeRawBufferPointer) {
        guard let first = u.first else { return }
        // The usual cell: one pass finds nothing to escape or quote.
        if !Bytes.mayNeedEscaping(u) {
            if CSV.startsFormula(first) { put(UInt8(ascii: "'")) }
            put(u)
            return
        }
        if Bytes.mayHoldControl(u), let escaped = Self.controlsEscaped(u) {
            escaped.withUnsafeBytes { cell(bytes: $0) }
            return
        }
        let formula = CSV.startsFormula(first)
        let quote = Bytes.containsAny(.comma, .quote, .newline, .carriageReturn, in: u)
        if quote { put(.quote) }
        if formula { put(UInt8(ascii: "'")) }
        if quote {
            for b in u {
                put(b)
                if b == .quote { put(.quote) }
            }
            put(.quote)
        } else {
            put(u)
        }
    }

    /// `u` with its control characters written out, or nil when it holds
    /// none (a `C2` or `E2` that leads another character).
    static func controlsEscaped(_ u: UnsafeRawBufferPointer) -> [UInt8]? {
        var out: [UInt8] = []
        var changed = false
        var i = 0
        func hex(_ v: UInt32, digits: Int) -> [UInt8] {
            let text = String(v, radix: 16, uppercase: digits == 4)
            return Array((String(repeating: "0", count: max(0, digits - text.count)) + text).utf8)
        }
        while i < u.count {
            let b = u[i]
            if b < 0x20 || b == 0x7F {
                out += Array("\\x".utf8) + hex(UInt32(b), digits: 2)
                changed = true
                i += 1
            } else if b == 0xC2, i + 1 < u.count, (0x80...0x9F).contains(u[i + 1]) {
                out += Array("\\x".utf8) + hex(UInt32(u[i + 1]), digits: 2)
                changed = true
                i += 2
            } else if b == 0xE2, i + 2 < u.count,
                (u[i + 1] == 0x80 && (0xAA...0xAE).contains(u[i + 2])) || (u[i + 1] == 0x81 && (0xA6...0xA9).contains(u[i + 2]))
            {
                let scalar = 0x2000 | (UInt32(u[i + 1] & 0x3F) << 6) | UInt32(u[i + 2] & 0x3F)
                out += Array("\\u{".utf8) + hex(scalar, digits: 4) + [.closeBrace]
                changed = true
                i += 3
            } else {
                out.append(b)
                i += 1
            }
        }
        return changed ? out : nil
    }

    /// A decimal number.
    mutating func put(decimal value: Int64) {
        let p = room(Self.decimalBound)
        var magnitude = value.magnitude
        var digits = 0
        repeat {
            digits += 1
            magnitude /= 10
        } while magnitude > 0
        if value < 0 { p[0] = .minus }
        let count = digits + (value < 0 ? 1 : 0)
        var at = count - 1
        magnitude = value.magnitude
        repeat {
            p[at] = .zero &+ UInt8(truncatingIfNeeded: magnitude % 10)
            magnitude /= 10
            at -= 1
        } while magnitude > 0
        next += count
    }

    /// A time as ISO 8601 (`Timestamp.writeISO8601`), by the file's
    /// `writer`, which remembers the last date.
    mutating func put(time ms: Int64, by writer: inout Timestamp.ISO8601Writer) {
        next += writer.write(ms, at: room(Timestamp.iso8601Bound))
    }
}
