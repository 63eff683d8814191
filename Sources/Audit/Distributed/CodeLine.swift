import Parsing
import Reading
import Rules

/// A code returned to a session, as the session stage writes it for the
/// code stage: keyed by the code's fingerprint, sorted by the return's
/// (time, file, line).
///
///     c:FINGERPRINT   time   rank   line   session-rank   session-line
///                     state   client_id   redirect_uri   digest
package enum CodeLine {
    package typealias Malformed = TextFields.Malformed

    package static func encode(_ c: CodeReturn, into out: inout [UInt8]) {
        out.append(contentsOf: "c:".utf8)
        out.append(contentsOf: Checkpoint.hex(c.key).utf8)
        out.append(.tab)
        SortFields.time(c.time, &out)
        out.append(.tab)
        SortFields.source(c.source, &out)
        out.append(.tab)
        SortFields.source(c.session, &out)
        out.append(.tab)
        TextFields.text(c.state, &out)
        out.append(.tab)
        TextFields.text(c.clientID, &out)
        out.append(.tab)
        TextFields.text(c.redirectURI, &out)
        out.append(.tab)
        TextFields.text(c.digest, &out)
        out.append(.newline)
    }

    package static func decode(_ line: ArraySlice<UInt8>) throws(Malformed) -> CodeReturn {
        let f = try TextFields.split(line, count: 10)
        guard f[0].count == 18, f[0].starts(with: "c:".utf8), let key = UInt64(String(decoding: f[0].dropFirst(2), as: UTF8.self), radix: 16)
        else { throw Malformed(reason: "bad code key") }
        let digest = try TextFields.text(f[9])
        guard CodeHash.isDigest(digest) else { throw Malformed(reason: "bad code digest") }
        return CodeReturn(
            key: key, digest: digest, time: try SortFields.time(f[1]), source: try SortFields.source(f[2], f[3]),
            session: try SortFields.source(f[4], f[5]), state: try TextFields.text(f[6]), clientID: try TextFields.text(f[7]),
            redirectURI: try TextFields.text(f[8]))
    }
}
