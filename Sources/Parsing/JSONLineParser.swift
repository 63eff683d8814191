import Reading

/// One JSON object per line (nginx `escape=json`, structured app logs).
/// A single forward scan notes the value of every recognised key; for each
/// role the first key of its list that the object has wins (docs/contract.md §2).
/// Nested objects and arrays are skipped; only chosen strings are unescaped.
package struct JSONLineParser: RecordParser {
    /// What a recognised key is used for, and its rank in the role's list.
    enum Role: Int, CaseIterable {
        case time, request, method, uri, query, status, location, client
    }

    /// Key bytes → (role, rank). Lower rank wins.
    private static let keys: [([UInt8], Role, Int)] = names.map { (Array($0.0.utf8), $0.1, $0.2) }

    private static let names: [(String, Role, Int)] = [
        ("time", .time, 0), ("timestamp", .time, 1), ("@timestamp", .time, 2),
        ("time_iso8601", .time, 3), ("time_local", .time, 4), ("ts", .time, 5),
        ("request", .request, 0), ("method", .method, 0),
        ("request_uri", .uri, 0), ("uri", .uri, 1), ("url", .uri, 2), ("path", .uri, 3),
        ("query", .query, 0), ("args", .query, 1),
        ("status", .status, 0),
        ("location", .location, 0), ("sent_http_location", .location, 1), ("http_location", .location, 2),
        ("remote_addr", .client, 0), ("client_ip", .client, 1), ("ip", .client, 2),
    ]

    /// A value found in the scan: its raw bytes (inside the quotes for a
    /// string) and whether it needs unescaping.
    private struct Found {
        var rank = Int.max
        var raw = UnsafeRawBufferPointer(start: nil, count: 0)
        var isString = false
        var hasEscapes = false
    }

    private let scratch: ScratchBuffer
    private var found = [Found](repeating: Found(), count: Role.allCases.count)

    package init(maxLine: Int) {
        scratch = ScratchBuffer(capacity: 2 * maxLine + 16)
    }

    package mutating func parse(_ line: UnsafeRawBufferPointer, into record: inout LogRecord) -> MalformedReason? {
        scratch.reset()
        record = LogRecord()
        for i in found.indices { found[i] = Found() }
        var i = skipSpace(line, 0)
        guard i < line.count, line[i] == .openBrace else { return .notJSONObject }
        i = skipSpace(line, i + 1)
        if i < line.count && line[i] == .closeBrace {
            return .missingField
        }
        while true {
            guard i < line.count, line[i] == .quote, let (key, _, afterKey) = string(line, i) else { return .unparsable }
            i = skipSpace(line, afterKey)
            guard i < line.count, line[i] == .colon else { return .unparsable }
            i = skipSpace(line, i + 1)
            guard i < line.count else { return .unparsable }
            let valueStart = i
            var isString = false
            var hasEscapes = false
            var raw: UnsafeRawBufferPointer
            switch line[i] {
            case .quote:
                guard let (s, esc, after) = string(line, i) else { return .unparsable }
                raw = s; isString = true; hasEscapes = esc; i = after
            case .openBrace, .openBracket:
                guard let after = skipNested(line, i) else { return .unparsable }
                raw = Bytes.slice(line, valueStart, after); i = after
            default:
                while i < line.count, line[i] != .comma, line[i] != .closeBrace, line[i] != .space, line[i] != .tab { i += 1 }
                raw = Bytes.slice(line, valueStart, i)
                guard !raw.isEmpty else { return .unparsable }
            }
            note(key: key, raw: raw, isString: isString, hasEscapes: hasEscapes)
            i = skipSpace(line, i)
            guard i < line.count else { return .unparsable }
            if line[i] == .comma { i = skipSpace(line, i + 1); continue }
            if line[i] == .closeBrace { break }
            return .unparsable
        }
        if skipSpace(line, i + 1) != line.count { return .unparsable }
        return build(&record)
    }

    private mutating func note(key: UnsafeRawBufferPointer, raw: UnsafeRawBufferPointer, isString: Bool, hasEscapes: Bool) {
        // Quick reject on length: the longest recognised key has 18 bytes.
        guard key.count >= 2, key.count <= 18 else { return }
        for (name, role, rank) in Self.keys where name.count == key.count {
            if name.withUnsafeBytes({ Bytes.equal($0, key) }) {
                if rank < found[role.rawValue].rank {
                    found[role.rawValue] = Found(rank: rank, raw: raw, isString: isString, hasEscapes: hasEscapes)
                }
                return
            }
        }
    }

    /// The chosen value of `role` as text (unescaped), or nil when absent or
    /// `null`.
    private mutating func text(_ role: Role) -> UnsafeRawBufferPointer? {
        let f = found[role.rawValue]
        guard f.rank != Int.max else { return nil }
        if !f.isString {
            return Bytes.equals(f.raw, "null") ? nil : f.raw
        }
        return f.hasEscapes ? unescape(f.raw) : f.raw
    }

    private mutating func build(_ record: inout LogRecord) -> MalformedReason? {
        guard let timeText = text(.time), let time = Timestamp.parseAny(timeText) else {
            return found[Role.time.rawValue].rank == Int.max ? .missingField : .badTime
        }
        record.time = time
        guard let statusText = text(.status), let status = Bytes.parseInt(statusText), status < 1000 else { return .missingField }
        record.status = status
        if let request = text(.request) {
            RequestLine.split(request, into: &record)
        } else if let method = text(.method), let uri = text(.uri) {
            record.method = method
            record.target = RequestLine.target(uri: uri, query: text(.query), scratch: scratch)
        } else {
            return .missingField
        }
        if let client = text(.client) { record.clientIP = client }
        if found[Role.location.rawValue].rank != Int.max {
            if let location = text(.location), !location.isEmpty, !Bytes.equals(location, "-") {
                record.location = .value(location)
            } else {
                record.location = .empty
            }
        }
        return nil
    }

    private func skipSpace(_ line: UnsafeRawBufferPointer, _ from: Int) -> Int {
        var i = from
        while i < line.count, line[i] == .space || line[i] == .tab { i += 1 }
        return i
    }

    /// A string starting at the quote `at`: its raw content, whether it has
    /// escapes, and the index after the closing quote.
    private func string(_ line: UnsafeRawBufferPointer, _ at: Int) -> (UnsafeRawBufferPointer, Bool, Int)? {
        var i = at + 1
        var escapes = false
        while i < line.count {
            let b = line[i]
            if b == .quote { return (Bytes.slice(line, at + 1, i), escapes, i + 1) }
            if b == .backslash { escapes = true; i += 2; continue }
            if b < 0x20 { return nil }
            i += 1
        }
        return nil
    }

    /// Skips a nested object or array starting at `at`; the index after it.
    private func skipNested(_ line: UnsafeRawBufferPointer, _ at: Int) -> Int? {
        var depth = 0
        var i = at
        while i < line.count {
            switch line[i] {
            case .quote:
                guard let (_, _, after) = string(line, i) else { return nil }
                i = after
                continue
            case .openBrace, .openBracket:
                depth += 1
            case .closeBrace, .closeBracket:
                depth -= 1
                if depth == 0 { return i + 1 }
            default:
                break
            }
            i += 1
        }
        return nil
    }

    /// JSON string escapes, `\uXXXX` (with surrogate pairs) to UTF-8.
    private mutating func unescape(_ raw: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        let mark = scratch.mark
        var i = 0
        while i < raw.count {
            let b = raw[i]
            guard b == .backslash, i + 1 < raw.count else { scratch.append(b); i += 1; continue }
            let e = raw[i + 1]
            i += 2
            switch e {
            case UInt8(ascii: "n"): scratch.append(.newline)
            case UInt8(ascii: "t"): scratch.append(.tab)
            case UInt8(ascii: "r"): scratch.append(.carriageReturn)
            case UInt8(ascii: "b"): scratch.append(0x08)
            case UInt8(ascii: "f"): scratch.append(0x0C)
            case UInt8(ascii: "u"):
                guard var scalar = hex4(raw, i) else { scratch.append(UInt8(ascii: "u")); continue }
                i += 4
                if (0xD800...0xDBFF).contains(scalar), i + 6 <= raw.count, raw[i] == .backslash, raw[i + 1] == UInt8(ascii: "u"),
                    let low = hex4(raw, i + 2), (0xDC00...0xDFFF).contains(low)
                {
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    i += 6
                }
                let s = Unicode.Scalar(scalar) ?? "\u{FFFD}"
                for unit in UTF8.encode(s)! { scratch.append(unit) }
            default: scratch.append(e)  // \" \\ \/ and anything else
            }
        }
        return scratch.view(from: mark)
    }

    private func hex4(_ raw: UnsafeRawBufferPointer, _ at: Int) -> UInt32? {
        guard at + 4 <= raw.count else { return nil }
        var v: UInt32 = 0
        for k in 0..<4 {
            guard let d = Hex.value(raw[at + k]) else { return nil }
            v = v << 4 | UInt32(d)
        }
        return v
    }
}
