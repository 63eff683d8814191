import Reading

/// W3C extended logs: IIS's (space-separated, `+` for a space in a value)
/// and CloudFront's standard logs (tab-separated). A `#Fields:` directive
/// names the columns of the lines after it, and may come again mid-file
/// with others (IIS writes it at every restart):
///
/// ```
/// #Fields: date time s-ip cs-method cs-uri-stem cs-uri-query s-port cs-username c-ip cs(User-Agent) cs(Referer) sc-status sc-substatus sc-win32-status time-taken Location
/// 2026-11-22 10:00:01 10.0.0.5 GET /oauth/authorize state=s1&… 443 - 203.0.113.9 GoogleApp/1.0 - 302 0 0 15 https://oauth-redirect.googleusercontent.com/…
/// ```
/// The target is `cs-uri-stem` and `cs-uri-query` (or `cs-uri`); the
/// Location is a custom field named `Location` (or `sc(Location)`), which
/// CloudFront cannot log. IIS times carry no zone: read in `zone` (`--tz`),
/// UTC without one; CloudFront's (its `x-edge-location` column) are UTC.
/// Directive lines (`#Software:`, `#Version:`, `#Date:`, `#Fields:`) are
/// not records. The header of a piece's lines is given by its
/// `PieceCutter`, which cuts in order (`fields(_:)`).
package struct W3CLogParser: RecordParser {
    /// Which column holds each role, from the last `#Fields:` line.
    struct Layout {
        var date = -1
        var time = -1
        var method = -1
        var stem = -1
        var query = -1
        var uri = -1
        var status = -1
        var client = -1
        var location = -1
        /// CloudFront's: its times are UTC.
        var edge = false
        /// The last column read.
        var last = -1
    }

    private let scratch: ScratchBuffer
    private let zone: LocalZone?
    private var layout: Layout?

    package init(maxLine: Int, zone: LocalZone? = nil) {
        scratch = ScratchBuffer(capacity: maxLine + 32)
        self.zone = zone
    }

    /// Whether a `#Fields:` line with a time, a target and a status has
    /// been read: only then are data lines tried under `--format auto`.
    var hasLayout: Bool { layout != nil }

    /// The format of the records read: `cloudfront` or `iis`.
    package var format: RecordFormat { layout?.edge == true ? .cloudfront : .iis }

    /// Whether `line` is a W3C directive (`#Name:`).
    @inline(__always)
    package static func isDirective(_ line: UnsafeRawBufferPointer) -> Bool {
        guard line.count >= 3, line[0] == .hash else { return false }
        var i = 1
        while i < line.count, (line[i] | 0x20) >= UInt8(ascii: "a"), (line[i] | 0x20) <= UInt8(ascii: "z") { i += 1 }
        return i > 1 && i < line.count && line[i] == .colon
    }

    /// Whether `line` starts as a W3C data line does: `YYYY-MM-DD` and a
    /// space or a tab.
    @inline(__always)
    static func startsWithDate(_ line: UnsafeRawBufferPointer) -> Bool {
        line.count > 11 && line[4] == .minus && line[7] == .minus && (line[10] == .space || line[10] == .tab)
            && line[0] >= .zero && line[0] <= .nine
    }

    /// Reads a directive line: a `#Fields:` line sets the columns of the
    /// lines after it (none usable without a date, a time, a target and a
    /// status); the others change nothing.
    package mutating func directive(_ line: UnsafeRawBufferPointer) {
        guard line.count > 8, Bytes.equals(Bytes.slice(line, 0, 8), "#Fields:") else { return }
        fields(Bytes.slice(line, 8, line.count))
    }

    /// Sets the columns from a `#Fields:` line's names (after the colon),
    /// or forgets them when `names` is nil (a piece with no header ahead).
    package mutating func fields(_ names: UnsafeRawBufferPointer?) {
        guard let names else { layout = nil; return }
        var new = Layout()
        var column = 0
        var i = 0
        while i < names.count {
            while i < names.count && Self.isGap(names[i]) { i += 1 }
            guard i < names.count else { break }
            var end = i
            while end < names.count && !Self.isGap(names[end]) { end += 1 }
            let name = String(decoding: Bytes.slice(names, i, end), as: UTF8.self).lowercased()
            switch name {
            case "date": new.date = column
            case "time": new.time = column
            case "cs-method": new.method = column
            case "cs-uri-stem": new.stem = column
            case "cs-uri-query": new.query = column
            case "cs-uri": new.uri = column
            case "sc-status": new.status = column
            case "c-ip": new.client = column
            case "location", "sc(location)": new.location = column
            case "x-edge-location": new.edge = true
            default: break
            }
            column += 1
            i = end
        }
        new.last = [new.date, new.time, new.method, new.stem, new.query, new.uri, new.status, new.client, new.location].max()!
        guard new.date >= 0, new.time >= 0, new.status >= 0, new.stem >= 0 || new.uri >= 0 else { layout = nil; return }
        layout = new
    }

    /// `bytes` with one layer of percent-encoding undone (`%25` → `%`,
    /// `%3D` → `=`); a `%` not followed by two hex digits stays as it is.
    private func undoEncoding(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        scratch.unescaping(bytes, marker: .percent)
    }

    /// Between two names of a `#Fields:` line (a CR ends one read ahead).
    private static func isGap(_ byte: UInt8) -> Bool { byte == .space || byte == .tab || byte == UInt8(ascii: "\r") }

    package mutating func parse(_ line: UnsafeRawBufferPointer, into record: inout LogRecord) -> MalformedReason? {
        scratch.reset()
        record = LogRecord()
        guard let layout else { return Self.startsWithDate(line) ? .noFieldsHeader : .unparsable }
        guard Self.startsWithDate(line) else { return .unparsable }
        let separator = line[10]
        let none = UnsafeRawBufferPointer(start: nil, count: 0)
        var (date, time, stem, query, uri, status) = (none, none, none, none, none, none)
        var location: UnsafeRawBufferPointer?
        var column = 0
        var i = 0
        while column <= layout.last {
            let end = Bytes.find(separator, in: line, from: i) ?? line.count
            let value = Bytes.slice(line, i, end)
            switch column {
            case layout.date: date = value
            case layout.time: time = value
            case layout.method: record.method = value
            case layout.stem: stem = value
            case layout.query: query = value
            case layout.uri: uri = value
            case layout.status: status = value
            case layout.client: record.clientIP = value
            case layout.location: location = value
            default: break
            }
            column += 1
            guard end < line.count else { break }
            i = end + 1
        }
        guard column > layout.last else { return .unparsable }
        // `date` `time` → `dateTtime`, read as ISO 8601 without a zone.
        let mark = scratch.mark
        scratch.append(date)
        scratch.append(UInt8(ascii: "T"))
        scratch.append(time)
        guard let local = Timestamp.parseISO8601(scratch.view(from: mark)) else { return .badTime }
        record.time = layout.edge ? local : zone.map { $0.utc(fromLocal: local) } ?? local
        guard let code = Bytes.parseInt(status), code < 1000 else { return .unparsable }
        record.status = code
        if Bytes.equals(record.method, "-") { record.method = none }
        if Bytes.equals(record.clientIP, "-") { record.clientIP = none }
        if layout.uri >= 0 && layout.stem < 0 {
            record.target = Bytes.equals(uri, "-") ? none : URLParts.pathAndQuery(uri)
        } else {
            // CloudFront percent-encodes cs-uri-query once more (`%` is
            // written `%25`): that layer is undone, so a redirect_uri is
            // judged as the client sent it.
            if layout.edge && layout.query >= 0 && Bytes.find(.percent, in: query) != nil { query = undoEncoding(query) }
            record.target = RequestLine.target(uri: stem, query: layout.query >= 0 ? query : nil, scratch: scratch)
        }
        if let location {
            record.location = location.isEmpty || Bytes.equals(location, "-") ? .empty : .value(location)
        }
        return nil
    }
}
