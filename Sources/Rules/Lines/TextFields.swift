import Reading

/// The field syntax of the lines flipaudit writes to its temporary files
/// and reads back: tab-separated fields, `\`, tab, newline and carriage
/// return escaped inside them (`\\`, `\t`, `\n`, `\r`: no reader that
/// splits lines at a CR, as Hadoop's does, can cut one); an optional text
/// is an empty field when absent and `=` + the text when present. What is read back is bad input
/// like any other: every reader throws `Malformed`, never traps.
package enum TextFields {
    /// Why a line could not be read back.
    package struct Malformed: Error, CustomStringConvertible {
        var reason: String
        package var description: String { reason }

        package init(reason: String) {
            self.reason = reason
        }
    }

    // MARK: Writing

    package static func tab(_ out: inout [UInt8]) { out.append(.tab) }
    static func flag(_ b: Bool, _ out: inout [UInt8]) { out.append(b ? UInt8(ascii: "1") : UInt8(ascii: "0")) }
    /// `n` in decimal, as `String(n)` writes it, without making a String
    /// (a checkpoint of a day's states writes millions).
    package static func number(_ n: Int64, _ out: inout [UInt8]) {
        if n < 0 { out.append(UInt8(ascii: "-")) }
        var m = n.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // room for UInt64's 20 digits
        var count = 0
        withUnsafeMutableBytes(of: &digits) { room in
            repeat {
                room[23 - count] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: m % 10)
                m /= 10
                count += 1
            } while m != 0
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: room[(24 - count)...]))
        }
    }

    /// `n` as 16 lowercase hex digits (`Checkpoint.hex`'s form).
    package static func hex16(_ n: UInt64, _ out: inout [UInt8]) {
        let digits: StaticString = "0123456789abcdef"
        for shift in stride(from: 60, through: 0, by: -4) {
            out.append(digits.utf8Start[Int((n >> UInt64(shift)) & 0xF)])
        }
    }

    /// `s` with `\`, tab, newline, carriage return and NUL escaped (a NUL
    /// makes `grep` take a stage's lines for binary). Most texts have none
    /// of them: those are appended whole.
    package static func text(_ s: String, _ out: inout [UInt8]) {
        var s = s
        s.withUTF8 { bytes in
            guard bytes.contains(where: { $0 == .backslash || $0 == .tab || $0 == .newline || $0 == .carriageReturn || $0 == 0 }) else {
                out.append(contentsOf: bytes)
                return
            }
            for b in bytes {
                switch b {
                case .backslash: out.append(.backslash); out.append(.backslash)
                case .tab: out.append(.backslash); out.append(UInt8(ascii: "t"))
                case .newline: out.append(.backslash); out.append(UInt8(ascii: "n"))
                case .carriageReturn: out.append(.backslash); out.append(UInt8(ascii: "r"))
                case 0: out.append(.backslash); out.append(UInt8(ascii: "0"))
                default: out.append(b)
                }
            }
        }
    }

    static func optional(_ s: String?, _ out: inout [UInt8]) {
        guard let s else { return }
        out.append(.equals)
        text(s, &out)
    }

    // MARK: Reading

    /// The parts of `bytes` between `separator`s, empty ones kept: what
    /// `split(separator:omittingEmptySubsequences: false)` gives, found by
    /// `Bytes.find` instead of a closure called on every byte (a
    /// checkpoint's lines and fields are read by the million).
    /// `expected`: how many parts there usually are, room made at once.
    package static func parts(_ bytes: ArraySlice<UInt8>, separator: UInt8, expected: Int = 16) -> [ArraySlice<UInt8>] {
        var parts: [ArraySlice<UInt8>] = []
        parts.reserveCapacity(expected)
        let start = bytes.startIndex
        bytes.withUnsafeBytes { raw in
            var from = 0
            while let end = Bytes.find(separator, in: raw, from: from) {
                parts.append(bytes[(start + from)..<(start + end)])
                from = end + 1
            }
            parts.append(bytes[(start + from)...])
        }
        return parts
    }

    /// A hex number only as flipaudit writes one: lowercase digits, and
    /// `width` of them or no leading zero. Anything else would read as the
    /// same number and be written back as another line.
    package static func hex(_ field: ArraySlice<UInt8>, width: Int? = nil) -> UInt64? {
        guard (1...16).contains(field.count), field.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            return nil
        }
        if let width {
            guard field.count == width else { return nil }
        } else if field.count > 1 && field.first == 0x30 {
            return nil
        }
        return UInt64(String(decoding: field, as: UTF8.self), radix: 16)
    }

    /// The fields of a line; `count` of them, or it is malformed.
    package static func split(_ line: ArraySlice<UInt8>, count: Int) throws(Malformed) -> [ArraySlice<UInt8>] {
        let fields = parts(line, separator: .tab)
        guard fields.count == count else { throw Malformed(reason: "\(fields.count) fields, expected \(count)") }
        return fields
    }

    /// A decimal number only as `number(_:_:)` writes one: no sign but a
    /// minus, no leading zero, no `-0`. `023` would read as 23 and be
    /// written back as another line.
    package static func number(_ field: ArraySlice<UInt8>, _ name: String) throws(Malformed) -> Int64 {
        let digits = field.first == UInt8(ascii: "-") ? field.dropFirst() : field
        guard field.count <= 20, let first = digits.first, digits.allSatisfy({ (0x30...0x39).contains($0) }),
            first != 0x30 || digits.count == 1, !(digits.count < field.count && first == 0x30),
            let n = Int64(String(decoding: field, as: UTF8.self))
        else {
            throw Malformed(reason: "bad \(name)")
        }
        return n
    }

    /// Times read back lie within this many milliseconds of 1970 (some
    /// 36 million years): far beyond any log time, and near enough that
    /// the audit's sums and differences of times (timeouts, windows)
    /// cannot overflow, whatever a damaged or forged line says.
    package static let timeBound: Int64 = 1 << 60

    /// A millisecond time.
    static func time(_ field: ArraySlice<UInt8>, _ name: String) throws(Malformed) -> Int64 {
        let t = try number(field, name)
        guard t.magnitude <= timeBound else { throw Malformed(reason: "\(name) out of range") }
        return t
    }

    static func flag(_ field: ArraySlice<UInt8>) throws(Malformed) -> Bool {
        switch Array(field) {
        case [UInt8(ascii: "0")]: return false
        case [UInt8(ascii: "1")]: return true
        default: throw Malformed(reason: "bad flag")
        }
    }

    package static func text(_ field: ArraySlice<UInt8>) throws(Malformed) -> String {
        guard field.contains(.backslash) else {
            guard !field.contains(.carriageReturn) else { throw Malformed(reason: "raw carriage return") }
            guard let s = String(validating: field, as: UTF8.self) else { throw Malformed(reason: "text is not UTF-8") }
            return s
        }
        var out: [UInt8] = []
        out.reserveCapacity(field.count)
        var i = field.startIndex
        while i < field.endIndex {
            let b = field[i]
            if b == .backslash {
                i += 1
                guard i < field.endIndex else { throw Malformed(reason: "escape at end of field") }
                switch field[i] {
                case .backslash: out.append(.backslash)
                case UInt8(ascii: "t"): out.append(.tab)
                case UInt8(ascii: "n"): out.append(.newline)
                case UInt8(ascii: "r"): out.append(.carriageReturn)
                case UInt8(ascii: "0"): out.append(0)
                default: throw Malformed(reason: "unknown escape")
                }
            } else {
                guard b != .carriageReturn else { throw Malformed(reason: "raw carriage return") }
                out.append(b)
            }
            i += 1
        }
        guard let s = String(validating: out, as: UTF8.self) else { throw Malformed(reason: "text is not UTF-8") }
        return s
    }

    static func optional(_ field: ArraySlice<UInt8>) throws(Malformed) -> String? {
        guard let first = field.first else { return nil }
        guard first == .equals else { throw Malformed(reason: "optional text without '='") }
        return try text(field.dropFirst())
    }

    /// A value of a String-backed enum.
    static func value<T: RawRepresentable>(_ field: ArraySlice<UInt8>, _ type: T.Type) throws(Malformed) -> T where T.RawValue == String {
        guard let v = T(rawValue: try text(field)) else { throw Malformed(reason: "bad \(T.self)") }
        return v
    }

    static func source(_ file: ArraySlice<UInt8>, _ line: ArraySlice<UInt8>) throws(Malformed) -> SourceRef {
        let f = try number(file, "file"), l = try number(line, "line")
        guard let rank = Int32(exactly: f), rank >= 0, l >= 0 else { throw Malformed(reason: "bad source") }
        return SourceRef(file: rank, line: l)
    }
}
