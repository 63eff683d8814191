import Reading

/// The query parameters flipaudit reads, by their (decoded) names.
public enum FlipParam: Int, CaseIterable, Sendable {
    case clientID, state, redirectURI, scope, code, error, errorDescription

    /// The name as it appears in a URL.
    package var name: String {
        switch self {
        case .clientID: return "client_id"
        case .state: return "state"
        case .redirectURI: return "redirect_uri"
        case .scope: return "scope"
        case .code: return "code"
        case .error: return "error"
        case .errorDescription: return "error_description"
        }
    }

    /// Whether a second occurrence raises `duplicate-param`.
    package var duplicateMatters: Bool {
        switch self {
        case .clientID, .state, .redirectURI, .code, .error: return true
        case .scope, .errorDescription: return false
        }
    }

    /// Recognises a raw (undecoded) parameter name without allocating.
    @inline(__always)
    static func match(_ key: UnsafeRawBufferPointer) -> FlipParam? {
        switch key.count {
        case 4: return Bytes.equals(key, "code") ? .code : nil
        case 5:
            if Bytes.equals(key, "state") { return .state }
            if Bytes.equals(key, "error") { return .error }
            if Bytes.equals(key, "scope") { return .scope }
            return nil
        case 9: return Bytes.equals(key, "client_id") ? .clientID : nil
        case 12: return Bytes.equals(key, "redirect_uri") ? .redirectURI : nil
        case 17: return Bytes.equals(key, "error_description") ? .errorDescription : nil
        default: return nil
        }
    }
}

/// The flip parameters of one query string: where each first occurs, how
/// often, all as byte views into the line. Other parameters are skipped.
public struct FlipQuery {
    /// The raw (still encoded) value of each parameter's first occurrence,
    /// by `FlipParam` raw value (one slot per case; a test pins the count).
    @usableFromInline package var values: [7 of UnsafeRawBufferPointer?] = .init(repeating: nil)
    /// How many times each parameter occurs.
    @usableFromInline package var counts: [7 of UInt8] = .init(repeating: 0)
    /// Whether any slot is set (most queries have no flip parameter).
    @usableFromInline var dirty = false

    package init() {}

    /// Clears the slots for the next query.
    @inlinable public mutating func reset() {
        guard dirty else { return }
        values = .init(repeating: nil)
        counts = .init(repeating: 0)
        dirty = false
    }

    @inlinable public subscript(_ p: FlipParam) -> UnsafeRawBufferPointer? { values[p.rawValue] }

    @inlinable public func has(_ p: FlipParam) -> Bool { counts[p.rawValue] > 0 }

    /// Splits `query` on `&` and records the flip parameters. A name written
    /// with percent escapes (`st%61te`) is decoded before it is matched.
    package mutating func scan(_ query: UnsafeRawBufferPointer) {
        reset()
        var start = 0
        while start <= query.count {
            let end = Bytes.find(.ampersand, in: query, from: start) ?? query.count
            if end > start {
                let pair = Bytes.slice(query, start, end)
                let eq = Bytes.find(.equals, in: pair) ?? pair.count
                let key = Bytes.slice(pair, 0, eq)
                let value = eq < pair.count ? Bytes.slice(pair, eq + 1, pair.count) : Bytes.slice(pair, pair.count, pair.count)
                var param = FlipParam.match(key)
                if param == nil, Bytes.find(.percent, in: key) != nil {
                    let decoded = PercentDecoding.decode(key)
                    param = decoded.text.utf8.withContiguousStorageIfAvailable { FlipParam.match(UnsafeRawBufferPointer($0)) } ?? nil
                }
                if let p = param {
                    dirty = true
                    if counts[p.rawValue] == 0 { values[p.rawValue] = value }
                    counts[p.rawValue] &+= counts[p.rawValue] == UInt8.max ? 0 : 1
                }
            }
            start = end + 1
        }
    }

    /// The decoded value of `p`'s first occurrence; notes in `duplicates`
    /// when it repeats (for the parameters where that matters) and in `bad`
    /// when its encoding is malformed.
    /// States are decoded without loss (`PercentDecoding.exact`): two
    /// states that differ in bytes that are not UTF-8 stay different.
    package func decoded(_ p: FlipParam, duplicates: inout [FlipParam], bad: inout [FlipParam]) -> String? {
        guard let raw = values[p.rawValue] else { return nil }
        if counts[p.rawValue] > 1 && p.duplicateMatters { duplicates.append(p) }
        let (text, malformed) = p == .state ? PercentDecoding.exact(raw) : PercentDecoding.decode(raw)
        if malformed { bad.append(p) }
        return text
    }

    /// How many of `client_id`, `state`, `redirect_uri` are present.
    package var requestParamCount: Int {
        (has(.clientID) ? 1 : 0) + (has(.state) ? 1 : 0) + (has(.redirectURI) ? 1 : 0)
    }
}

/// Percent-decoding of query components (`+` is a space).
///
/// Malformed percent-encoding (`bad-encoding`, docs/contract.md §4) is
/// exactly a `%` not followed by two hex digits. A well-formed escape is
/// never malformed, whatever byte it makes (`%00`, `%0A`, `%FF`).
package enum PercentDecoding {
    /// The decoded text and whether the encoding was malformed (the bad
    /// `%` is kept literally). Bytes that are not UTF-8 once decoded are
    /// replaced by U+FFFD in the text.
    package static func decode(_ raw: UnsafeRawBufferPointer, plusIsSpace: Bool = true) -> (text: String, malformed: Bool) {
        if Bytes.find(.percent, in: raw) == nil && (!plusIsSpace || Bytes.find(.plus, in: raw) == nil) {
            return (Bytes.string(raw), false)
        }
        let (out, malformed) = bytes(raw, plusIsSpace: plusIsSpace)
        return (String(decoding: out, as: UTF8.self), malformed)
    }

    /// Whether a `%` in `raw` is not followed by two hex digits, without
    /// decoding anything.
    package static func isMalformed(_ raw: UnsafeRawBufferPointer) -> Bool {
        var from = 0
        while let i = Bytes.find(.percent, in: raw, from: from) {
            guard i + 2 < raw.count, Hex.value(raw[i + 1]) != nil, Hex.value(raw[i + 2]) != nil else { return true }
            from = i + 3
        }
        return false
    }

    /// The decoded value as text that keeps every byte (docs/contract.md
    /// §7): a byte that is not part of valid UTF-8 is written `\xHH`, a
    /// backslash `\\`, so two different byte strings never give the same
    /// text. Malformed as in `decode`.
    package static func exact(_ raw: UnsafeRawBufferPointer) -> (text: String, malformed: Bool) {
        if Bytes.find(.percent, in: raw) == nil && Bytes.find(.plus, in: raw) == nil && Bytes.find(.backslash, in: raw) == nil
            && Bytes.isValidText(raw)
        {
            return (Bytes.string(raw), false)
        }
        let (out, malformed) = bytes(raw)
        var text = [UInt8]()
        text.reserveCapacity(out.count + 8)
        var i = 0
        while i < out.count {
            let b = out[i]
            if b == .backslash {
                text += [.backslash, .backslash]
                i += 1
                continue
            }
            let length = UTF8Sequence.length(out, at: i)
            if length == 0 {
                text += Array("\\x".utf8) + Array(String(b, radix: 16, uppercase: true).utf8).leftPadded(to: 2)
                i += 1
            } else {
                text += out[i..<(i + length)]
                i += length
            }
        }
        return (String(decoding: text, as: UTF8.self), malformed)
    }

    /// The decoded bytes and whether a `%` was not followed by two hex
    /// digits (it is kept literally).
    package static func bytes(_ raw: UnsafeRawBufferPointer, plusIsSpace: Bool = true) -> (bytes: [UInt8], malformed: Bool) {
        var out = [UInt8]()
        out.reserveCapacity(raw.count)
        var malformed = false
        var i = 0
        while i < raw.count {
            let b = raw[i]
            if b == .percent {
                if i + 2 < raw.count, let hi = Hex.value(raw[i + 1]), let lo = Hex.value(raw[i + 2]) {
                    out.append(hi << 4 | lo)
                    i += 3
                    continue
                }
                malformed = true
                out.append(b)
            } else if b == .plus && plusIsSpace {
                out.append(.space)
            } else {
                out.append(b)
            }
            i += 1
        }
        return (out, malformed)
    }

    /// Decodes a `String` (used for the look-alike check on double encoding).
    package static func decode(_ text: String, plusIsSpace: Bool = false) -> (text: String, malformed: Bool) {
        var copy = text
        return copy.withUTF8 { decode(UnsafeRawBufferPointer($0), plusIsSpace: plusIsSpace) }
    }
}

/// The length of the well-formed UTF-8 sequence at a place in a byte
/// string (Unicode's table 3-7: no overlong forms, no surrogates, nothing
/// past U+10FFFF), or 0 when none starts there.
enum UTF8Sequence {
    static func length(_ b: [UInt8], at i: Int) -> Int {
        let c = b[i]
        func continuation(_ k: Int, _ low: UInt8 = 0x80, _ high: UInt8 = 0xBF) -> Bool {
            i + k < b.count && b[i + k] >= low && b[i + k] <= high
        }
        switch c {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: return continuation(1) ? 2 : 0
        case 0xE0: return continuation(1, 0xA0) && continuation(2) ? 3 : 0
        case 0xE1...0xEC, 0xEE...0xEF: return continuation(1) && continuation(2) ? 3 : 0
        case 0xED: return continuation(1, 0x80, 0x9F) && continuation(2) ? 3 : 0
        case 0xF0: return continuation(1, 0x90) && continuation(2) && continuation(3) ? 4 : 0
        case 0xF1...0xF3: return continuation(1) && continuation(2) && continuation(3) ? 4 : 0
        case 0xF4: return continuation(1, 0x80, 0x8F) && continuation(2) && continuation(3) ? 4 : 0
        default: return 0
        }
    }
}

extension Array where Element == UInt8 {
    /// Two hex digits: a leading zero added to one.
    fileprivate func leftPadded(to n: Int) -> [UInt8] { count >= n ? self : [UInt8](repeating: .zero, count: n - count) + self }
}
