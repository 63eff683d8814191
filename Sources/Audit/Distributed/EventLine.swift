import Reading
import Rules

/// A flip event as the distributed read stage writes it: the shuffle key,
/// the sort fields, then the event (`EventCodec`).
///
///     s:STATE | r:LINE-KEY   time   rank   line   event (24 fields)
///
/// The key is the event's state — the request's, or the return's when there
/// is no request — or, for an event without one, the fingerprint of its
/// line: the session stage sees every event of a state together, a record
/// without a state is a session (or a finding) of its own, and identical
/// lines meet in one reducer, which audits the first (`DuplicateFilter`). Sorted as bytes,
/// one key's lines come together in (time, file, line) order.
package enum EventLine {
    package typealias Malformed = TextFields.Malformed

    package static func encode(_ e: FlipEvent, into out: inout [UInt8]) {
        key(e, &out)
        out.append(.tab)
        SortFields.time(e.time, &out)
        out.append(.tab)
        SortFields.source(e.source, &out)
        out.append(.tab)
        EventCodec.encode(e, into: &out)
    }

    static func key(_ e: FlipEvent, _ out: inout [UInt8]) {
        let state = e.request.map { $0.state } ?? e.returned?.state
        if let state, !state.isEmpty {
            out.append(UInt8(ascii: "s"))
            out.append(.colon)
            TextFields.text(state, &out)
        } else {
            // Keyed by the line's fingerprint: identical lines of several
            // inputs meet in one reducer, which keeps the first (duplicates).
            out.append(UInt8(ascii: "r"))
            out.append(.colon)
            TextFields.hex16(e.lineKey, &out)
        }
    }

    /// The key and event of a line (without its newline). The sort fields
    /// and the key must be the event's own.
    package static func decode(_ line: ArraySlice<UInt8>, codec: inout EventCodec) throws(Malformed) -> (key: ArraySlice<UInt8>, event: FlipEvent) {
        // One form per event: a NUL is written `\0`, never as itself.
        guard line.withUnsafeBytes({ Bytes.find(0, in: $0) }) == nil else { throw Malformed(reason: "a raw NUL byte") }
        var fields: [ArraySlice<UInt8>] = []
        var start = line.startIndex
        while fields.count < 4 {
            guard let tab = line[start...].firstIndex(of: .tab) else { throw Malformed(reason: "fewer than 27 fields") }
            fields.append(line[start..<tab])
            start = tab + 1
        }
        let time = try SortFields.time(fields[1])
        let source = try SortFields.source(fields[2], fields[3])
        let event = try codec.decode(line[start...])
        guard event.time == time, event.source == source else { throw Malformed(reason: "sort fields differ from the event") }
        var own: [UInt8] = []
        key(event, &own)
        guard fields[0].elementsEqual(own) else { throw Malformed(reason: "key differs from the event's state") }
        return (fields[0], event)
    }
}
