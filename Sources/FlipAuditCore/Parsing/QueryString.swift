/// The query parameters flipaudit reads, by their (decoded) names.
public enum FlipParam: Int, CaseIterable, Sendable {
    case clientID, state, redirectURI, scope, code, error, errorDescription

    /// The name as it appears in a URL.
    public var name: String {
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
    var duplicateMatters: Bool {
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
    var values: [7 of UnsafeRawBufferPointer?] = .init(repeating: nil)
    /// How many times each parameter occurs.
    var counts: [7 of UInt8] = .init(repeating: 0)
    /// Whether any slot is set (most queries have no flip parameter).
    private var dirty = false

    /// Clears the slots for the next query.
    mutating func reset() {
        guard dirty else { return }
        values = .init(repeating: nil)
        counts = .init(repeating: 0)
        dirty = false
    }

    subscript(_ p: FlipParam) -> UnsafeRawBufferPointer? { values[p.rawValue] }

    func has(_ p: FlipParam) -> Bool { counts[p.rawValue] > 0 }

    /// Splits `query` on `&` and records the flip parameters. A name written
    /// with percent escapes (`st%61te`) is decoded before it is matched.
    mutating func scan(_ query: UnsafeRawBufferPointer) {
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
    func decoded(_ p: FlipParam, duplicates: inout [FlipParam], bad: inout [FlipParam]) -> String? {
        guard let raw = values[p.rawValue] else { return nil }
        if counts[p.rawValue] > 1 && p.duplicateMatters { duplicates.append(p) }
        let (text, malformed) = PercentDecoding.decode(raw)
        if malformed { bad.append(p) }
        return text
    }

    /// The digest of the decoded `code` (see `decoded`); the code itself
    /// never becomes a String.
    func codeDigest(duplicates: inout [FlipParam], bad: inout [FlipParam]) -> CodeHash? {
        guard let raw = values[FlipParam.code.rawValue] else { return nil }
        if Bytes.find(.percent, in: raw) != nil || Bytes.find(.plus, in: raw) != nil {
            return decoded(.code, duplicates: &duplicates, bad: &bad).map { Array($0.utf8).withUnsafeBytes { CodeHash($0) } }
        }
        if counts[FlipParam.code.rawValue] > 1 { duplicates.append(.code) }
        // Lines are valid UTF-8 before they get here; checked all the same.
        if !Bytes.isValidText(raw) { bad.append(.code) }
        return CodeHash(raw)
    }

    /// How many of `client_id`, `state`, `redirect_uri` are present.
    var requestParamCount: Int {
        (has(.clientID) ? 1 : 0) + (has(.state) ? 1 : 0) + (has(.redirectURI) ? 1 : 0)
    }
}

/// Percent-decoding of query components (`+` is a space).
public enum PercentDecoding {
    /// The decoded text and whether the encoding was malformed: a `%` not
    /// followed by two hex digits (kept literally), or bytes that are not
    /// UTF-8 once decoded (replaced by U+FFFD).
    public static func decode(_ raw: UnsafeRawBufferPointer, plusIsSpace: Bool = true) -> (text: String, malformed: Bool) {
        if Bytes.find(.percent, in: raw) == nil && (!plusIsSpace || Bytes.find(.plus, in: raw) == nil) {
            let valid = Bytes.isValidText(raw)
            return (Bytes.string(raw), !valid)
        }
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
        let valid = out.withUnsafeBytes { Bytes.isValidText($0) }
        return (String(decoding: out, as: UTF8.self), malformed || !valid)
    }

    /// Decodes a `String` (used for the look-alike check on double encoding).
    public static func decode(_ text: String, plusIsSpace: Bool = false) -> (text: String, malformed: Bool) {
        var copy = text
        return copy.withUTF8 { decode(UnsafeRawBufferPointer($0), plusIsSpace: plusIsSpace) }
    }
}
