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

    /// The fields of a code line.
    static let schema = LineSchema<CodeReturn>(
        "code",
        blank: CodeReturn(
            key: 0, digest: "", time: 0, source: SourceRef(file: 0, line: 0), session: SourceRef(file: 0, line: 0), state: "",
            clientID: "", redirectURI: ""),
        [
            Field("code key", \.key, fingerprint),
            Field("time", \.time, .sortTime),
            Field("source", \.source, .sortSource),
            Field("session", \.session, .sortSource),
            Field("state", \.state, .text),
            Field("client_id", \.clientID, .text),
            Field("redirect_uri", \.redirectURI, .text),
            Field("code digest", \.digest, FieldCodec.text.checked("bad NAME", CodeHash.isDigest)),
        ])

    /// `c:` and the code's fingerprint in 16 hex digits: the shuffle key.
    private static let fingerprint = FieldCodec<UInt64>(
        write: { key, out in
            out.append(contentsOf: "c:".utf8)
            TextFields.hex16(key, &out)
        },
        read: { field, name throws(Malformed) in
            guard field.count == 18, field.starts(with: "c:".utf8), let key = UInt64(String(decoding: field.dropFirst(2), as: UTF8.self), radix: 16)
            else { throw Malformed(reason: "bad \(name)") }
            return key
        })

    package static func encode(_ c: CodeReturn, into out: inout [UInt8]) {
        schema.write(c, into: &out)
        out.append(.newline)
    }

    package static func decode(_ line: ArraySlice<UInt8>) throws(Malformed) -> CodeReturn {
        try schema.read(line)
    }
}
