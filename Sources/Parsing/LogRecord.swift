import Reading

/// One parsed access-log line, as views into the line (or into the parser's
/// scratch buffer). Valid only until the parser reads the next line.
package struct LogRecord {
    /// What the line says about the response `Location` header.
    package enum Location {
        /// The format has no Location field on this line.
        case notLogged
        /// Logged, but empty (`-` or `""`).
        case empty
        /// Empty in the one quoted field after the User-Agent, which only
        /// its place names the Location: nginx's stock `main` logs
        /// X-Forwarded-For there, so on a redirect record it is doubtful.
        case emptyByPlace
        /// Logged with a value.
        case value(UnsafeRawBufferPointer)

        /// Whether the line has a Location field at all.
        package var isLogged: Bool {
            if case .notLogged = self { return false }
            return true
        }
    }

    /// Milliseconds since the epoch, UTC.
    package var time: Int64 = 0
    package var clientIP = UnsafeRawBufferPointer(start: nil, count: 0)
    package var method = UnsafeRawBufferPointer(start: nil, count: 0)
    /// The request target: path and query, as logged (percent-encoded).
    package var target = UnsafeRawBufferPointer(start: nil, count: 0)
    package var status = 0
    package var location = Location.notLogged
    /// Two fields of a redirect record could each be its Location (two
    /// different redirect targets after the User-Agent): neither is taken.
    package var locationAmbiguous = false
    /// An HAProxy record's time did not need `--tz`: its zone came from a
    /// syslog header (rsyslog's RFC 3339), the message's own time having
    /// none, or a pasted `log-format`'s time carried one (`%T`, `%Tl`).
    package var zoneFromHeader = false

    package init() {}
}

/// Why a line is not a record. Prints as a short phrase for messages.
package enum MalformedReason: String, Sendable, CaseIterable {
    case overlong = "line longer than --max-line"
    case nulByte = "NUL byte in line"
    case invalidUTF8 = "invalid UTF-8"
    case unparsable = "does not match the log format"
    case badTime = "unreadable timestamp"
    case notJSONObject = "not a JSON object"
    case missingField = "lacks a time, request or status field"
    case noRequestFields = "no request fields"
    case noFieldsHeader = "W3C line before any usable #Fields: header"
    case truncated = "truncated by its writer"
    case cutOff = "cut off by damaged input"
    case future = "time in the future"
}

/// A parser of one log format: turns a line into a `LogRecord`.
protocol RecordParser {
    /// Parses `line`; returns nil and sets `failure` when it is malformed.
    mutating func parse(_ line: UnsafeRawBufferPointer, into record: inout LogRecord) -> MalformedReason?
}

/// Splits a request line `METHOD TARGET PROTOCOL` into method and target.
/// A request that is not of that shape (a TLS handshake sent to a plain port,
/// `-`, garbage) leaves both empty: the record is still a record.
enum RequestLine {
    @inline(__always)
    static func split(_ request: UnsafeRawBufferPointer, into record: inout LogRecord) {
        guard let sp1 = Bytes.find(.space, in: request), sp1 > 0 else { return }
        let rest = sp1 + 1
        let sp2 = Bytes.find(.space, in: request, from: rest) ?? request.count
        guard sp2 > rest else { return }
        record.method = Bytes.slice(request, 0, sp1)
        record.target = Bytes.slice(request, rest, sp2)
    }

    /// A target from a path and a separately logged query (`$uri` +
    /// `$args`): `path?query`, written into `scratch` only when both exist.
    static func target(uri: UnsafeRawBufferPointer, query: UnsafeRawBufferPointer?, scratch: ScratchBuffer) -> UnsafeRawBufferPointer {
        guard let query, !query.isEmpty, !Bytes.equals(query, "-"), Bytes.find(.question, in: uri) == nil else { return uri }
        let mark = scratch.mark
        scratch.append(uri)
        scratch.append(.question)
        scratch.append(query)
        return scratch.view(from: mark)
    }
}

/// A fixed-capacity byte buffer that parsers write unescaped text into. Its
/// storage never moves, so views handed out stay valid until `reset()`.
final class ScratchBuffer {
    /// `raw` with each `marker` and two hex digits (`#22`, `%25`) decoded,
    /// written here; a marker not followed by two hex digits stays.
    func unescaping(_ raw: UnsafeRawBufferPointer, marker: UInt8) -> UnsafeRawBufferPointer {
        let start = mark
        var i = 0
        while i < raw.count {
            if raw[i] == marker, i + 2 < raw.count, let hi = Hex.value(raw[i + 1]), let lo = Hex.value(raw[i + 2]) {
                append(hi << 4 | lo)
                i += 3
            } else {
                append(raw[i])
                i += 1
            }
        }
        return view(from: start)
    }

    private let storage: UnsafeMutableRawBufferPointer
    private var used = 0

    init(capacity: Int) {
        storage = .allocate(byteCount: max(capacity, 16), alignment: 16)
    }

    deinit { storage.deallocate() }

    func reset() { used = 0 }

    /// Forgets what was appended after `mark` (views before it stay).
    func rewind(to mark: Int) { used = min(used, mark) }

    /// Room left.
    var available: Int { storage.count - used }

    /// Starts a new piece; append bytes, then `finish(from:)` returns its view.
    var mark: Int { used }

    func append(_ byte: UInt8) {
        guard used < storage.count else { return }
        storage[used] = byte
        used += 1
    }

    func append(_ bytes: UnsafeRawBufferPointer) {
        let n = min(bytes.count, storage.count - used)
        if n > 0 { (storage.baseAddress! + used).copyMemory(from: bytes.baseAddress!, byteCount: n) }
        used += n
    }

    func view(from mark: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: storage.baseAddress! + mark, count: used - mark)
    }
}
