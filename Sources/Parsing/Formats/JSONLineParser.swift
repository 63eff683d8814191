import Reading

/// One JSON object per line: nginx `escape=json` and structured
/// application logs (flat keys), Caddy v2, Traefik, Google Cloud load
/// balancer and Cloudflare Logpush entries (their own keys, some nested),
/// and any other JSON log mapped with `--json-field ROLE=PATH`. A single
/// forward scan notes the value of every recognised key path; for each
/// role the first path of its list that the object has wins
/// (docs/formats.md). Objects are entered only where a recognised path
/// goes; only chosen strings are unescaped.
///
/// ```
/// {"time":"2026-11-22T10:00:01Z","request":"GET /a?b HTTP/1.1","status":302,"location":"https://..."}
/// {"ts":1763805601.5,"request":{"client_ip":"203.0.113.9","method":"GET","uri":"/a?b"},"status":302,"resp_headers":{"Location":["https://..."]}}
/// ```
package struct JSONLineParser: RecordParser {
    /// What a recognised key is used for.
    package enum Role: Int, CaseIterable, Sendable {
        case time, request, method, uri, query, status, location, client
        /// Found and kept for nothing the audit judges (docs/contract.md
        /// §2 lists the role; `explain` shows the line itself).
        case userAgent

        /// The role's name in `--json-field ROLE=PATH`.
        package var name: String {
            switch self {
            case .time: return "time"
            case .request: return "request"
            case .method: return "method"
            case .uri: return "target"
            case .query: return "query"
            case .status: return "status"
            case .location: return "location"
            case .client: return "client"
            case .userAgent: return "user-agent"
            }
        }
    }

    /// How a `--json-field time=PATH:UNIT` number counts.
    package enum TimeUnit: String, Sendable {
        case s, ms, us, ns, iso
    }

    /// One recognised key path: its bytes (`request.uri`), role, rank
    /// (lower wins) and the format it is the mark of.
    private struct Key {
        var path: [UInt8]
        var role: Role
        var rank: Int
        var shape: RecordFormat
    }

    /// The built-in key paths, in each role's order: each JSON format's
    /// row of `FormatTable` (docs/formats.md).
    private static let builtIn: [(String, Role, RecordFormat)] = FormatTable.rows.flatMap { row in
        row.keys.map { ($0.path, $0.role, row.format) }
    }

    /// A value found in the scan: its raw bytes (inside the quotes for a
    /// string) and whether it needs unescaping.
    private struct Found {
        var rank = Int.max
        var raw = UnsafeRawBufferPointer(start: nil, count: 0)
        var isString = false
        var hasEscapes = false
        var shape = RecordFormat.json
    }

    private let keys: [Key]
    /// Paths of the objects a recognised key lies in (`request`), each
    /// ending in `.`.
    private let containers: [[UInt8]]
    private let longestKey: Int
    private let timeUnit: TimeUnit?
    private let scratch: ScratchBuffer
    private var found = [Found](repeating: Found(), count: Role.allCases.count)
    /// The path of the object being scanned, ending in `.` (empty at the top).
    private var path: [UInt8] = []
    /// The format the last record read as (the mark of the key paths that
    /// gave its target).
    package private(set) var shape = RecordFormat.json

    /// `fields` come first in their roles (`--json-field`); `timeUnit`
    /// reads a custom time path's number.
    package init(maxLine: Int, fields: [(role: Role, path: String)] = [], timeUnit: TimeUnit? = nil) {
        scratch = ScratchBuffer(capacity: 2 * maxLine + 16)
        var keys: [Key] = []
        for (n, f) in fields.enumerated() { keys.append(Key(path: Array(f.path.utf8), role: f.role, rank: n - fields.count, shape: .json)) }
        for (n, k) in Self.builtIn.enumerated() { keys.append(Key(path: Array(k.0.utf8), role: k.1, rank: n, shape: k.2)) }
        self.keys = keys
        var containers: Set<[UInt8]> = []
        for key in keys {
            for (i, b) in key.path.enumerated() where b == .dot && i > 0 { containers.insert(Array(key.path[...i])) }
        }
        self.containers = containers.sorted { $0.lexicographicallyPrecedes($1) }
        longestKey = keys.map(\.path.count).max() ?? 0
        self.timeUnit = fields.contains { $0.role == .time } ? timeUnit : nil
        path.reserveCapacity(64)
    }

    package mutating func parse(_ line: UnsafeRawBufferPointer, into record: inout LogRecord) -> MalformedReason? {
        scratch.reset()
        record = LogRecord()
        for i in found.indices { found[i] = Found() }
        path.removeAll(keepingCapacity: true)
        let i = skipSpace(line, 0)
        guard i < line.count, line[i] == .openBrace else { return .notJSONObject }
        guard let end = object(line, i) else { return .unparsable }
        if skipSpace(line, end) != line.count { return .unparsable }
        return build(&record)
    }

    /// Scans the object starting at the brace `at`, noting recognised
    /// keys; the index after its closing brace.
    private mutating func object(_ line: UnsafeRawBufferPointer, _ at: Int) -> Int? {
        var i = skipSpace(line, at + 1)
        if i < line.count && line[i] == .closeBrace { return i + 1 }
        while true {
            guard i < line.count, line[i] == .quote, let (key, _, afterKey) = string(line, i) else { return nil }
            i = skipSpace(line, afterKey)
            guard i < line.count, line[i] == .colon else { return nil }
            i = skipSpace(line, i + 1)
            guard i < line.count else { return nil }
            let valueStart = i
            switch line[i] {
            case .quote:
                guard let (s, esc, after) = string(line, i) else { return nil }
                note(key: key, raw: s, isString: true, hasEscapes: esc)
                i = after
            case .openBrace:
                if let depth = enter(key) {
                    guard let after = object(line, i) else { return nil }
                    path.removeLast(path.count - depth)
                    i = after
                } else {
                    guard let after = skipNested(line, i) else { return nil }
                    i = after
                }
            case .openBracket:
                guard let after = skipNested(line, i) else { return nil }
                // An array's first string: Caddy's `resp_headers.Location`.
                let first = skipSpace(line, i + 1)
                if first < line.count, line[first] == .quote, let (s, esc, _) = string(line, first) {
                    note(key: key, raw: s, isString: true, hasEscapes: esc)
                }
                i = after
            default:
                while i < line.count, line[i] != .comma, line[i] != .closeBrace, line[i] != .space, line[i] != .tab { i += 1 }
                let raw = Bytes.slice(line, valueStart, i)
                guard !raw.isEmpty else { return nil }
                note(key: key, raw: raw, isString: false, hasEscapes: false)
            }
            i = skipSpace(line, i)
            guard i < line.count else { return nil }
            if line[i] == .comma { i = skipSpace(line, i + 1); continue }
            if line[i] == .closeBrace { return i + 1 }
            return nil
        }
    }

    /// When `key` names an object a recognised path goes into: appends it
    /// to `path` and returns the length `path` had before.
    private mutating func enter(_ key: UnsafeRawBufferPointer) -> Int? {
        let depth = path.count
        let length = depth + key.count + 1
        guard length < longestKey else { return nil }
        for container in containers where container.count == length {
            let match = container.withUnsafeBytes { c in
                Bytes.equal(Bytes.slice(c, depth, length - 1), key) && (depth == 0 || pathMatches(c, depth))
            }
            if match {
                path.append(contentsOf: key)
                path.append(.dot)
                return depth
            }
        }
        return nil
    }

    /// Whether the first `depth` bytes of `c` are `path`.
    private func pathMatches(_ c: UnsafeRawBufferPointer, _ depth: Int) -> Bool {
        path.withUnsafeBytes { Bytes.equal(Bytes.slice(c, 0, depth), $0) }
    }

    private mutating func note(key: UnsafeRawBufferPointer, raw: UnsafeRawBufferPointer, isString: Bool, hasEscapes: Bool) {
        let depth = path.count
        let length = depth + key.count
        guard length <= longestKey else { return }
        for k in keys where k.path.count == length {
            let match = k.path.withUnsafeBytes { p in
                Bytes.equal(Bytes.slice(p, depth, length), key) && (depth == 0 || pathMatches(p, depth))
            }
            if match {
                if k.rank < found[k.role.rawValue].rank {
                    found[k.role.rawValue] = Found(rank: k.rank, raw: raw, isString: isString, hasEscapes: hasEscapes, shape: k.shape)
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
        if !has(.status) && !has(.request) && !has(.uri) { return .noRequestFields }
        guard let timeText = text(.time), let time = readTime(timeText) else {
            return has(.time) ? .badTime : .missingField
        }
        record.time = time
        guard let statusText = text(.status), let status = Bytes.parseInt(statusText), status < 1000 else { return .missingField }
        record.status = status
        if let request = text(.request), found[Role.request.rawValue].isString {
            RequestLine.split(request, into: &record)
            shape = .json
        } else if let method = text(.method), let uri = text(.uri) {
            record.method = method
            record.target = RequestLine.target(uri: URLParts.pathAndQuery(uri), query: text(.query), scratch: scratch)
            shape = found[Role.uri.rawValue].shape
        } else {
            return .missingField
        }
        if let client = text(.client) { record.clientIP = client }
        if has(.location) {
            if let location = text(.location), !location.isEmpty, !Bytes.equals(location, "-") {
                record.location = .value(location)
            } else {
                record.location = .empty
            }
        }
        return nil
    }

    /// Whether the object has a key of `role`.
    private func has(_ role: Role) -> Bool { found[role.rawValue].rank != Int.max }

    /// A time value: as `--json-field time=PATH:UNIT` says, or any of the
    /// forms `Timestamp.parseAny` reads.
    private func readTime(_ text: UnsafeRawBufferPointer) -> Int64? {
        guard let unit = timeUnit, found[Role.time.rawValue].rank < 0 else { return Timestamp.parseAny(text) }
        switch unit {
        case .iso: return Timestamp.parseISO8601(text)
        case .s: return Timestamp.parseEpoch(text, unit: 1_000)
        case .ms: return Timestamp.parseEpoch(text, unit: 1)
        case .us: return Timestamp.parseEpoch(text, unit: -1_000)
        case .ns: return Timestamp.parseEpoch(text, unit: -1_000_000)
        }
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
