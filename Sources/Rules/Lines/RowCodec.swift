import Reading

/// Writes the rows of `sessions.csv` and `findings.csv` as lines of text
/// (`TextFields`) and reads them back: what `RowOrder` spills to its
/// temporary files when more rows wait than it holds in memory. Each row's
/// fields are its `LineSchema`.
package enum RowCodec {
    package typealias Malformed = TextFields.Malformed

    /// A `sessions.csv` row.
    static let sessionSchema = LineSchema<SessionRecord>(
        "session row",
        blank: SessionRecord(
            state: "", firstSeen: 0, lastSeen: 0, target: .unknown, clientID: "", redirectURI: "", outcome: .noReturn,
            error: "", errorDescription: "", latencyMs: nil, latencyAcrossRecords: false, findings: [], clientIP: "",
            source: SourceRef(file: 0, line: 0)),
        [
            Field("state", \.state, .text),
            Field("first_seen", \.firstSeen, .time),
            Field("last_seen", \.lastSeen, .time),
            Field("flow", \.target.flow, .value),
            Field("app", \.target.app, .value),
            Field("environment", \.target.environment, .value),
            Field("variant", \.target.variant, .value),
            Field("client_id", \.clientID, .text),
            Field("redirect_uri", \.redirectURI, .text),
            Field("outcome", \.outcome, .value),
            Field("error", \.error, .text),
            Field("error_description", \.errorDescription, .text),
            Field(
                "latency", \.latencyMs,
                FieldCodec.optionalText.mapped(
                    "bad NAME",
                    to: { text -> Int64?? in
                        guard let text else { return .some(nil) }
                        return Int64(text).map { .some($0) }
                    }, from: { $0.map { String($0) } })),
            Field("latency across records", \.latencyAcrossRecords, .flag),
            Field("findings", \.findings, .findingKinds),
            Field("client_ip", \.clientIP, .text),
            Field("source", \.source, .source),
        ])

    /// A `findings.csv` row.
    static let findingSchema = LineSchema<Finding>(
        "finding row",
        blank: Finding(kind: .noReturn, time: 0, state: "", clientID: "", redirectURI: "", detail: "", source: SourceRef(file: 0, line: 0)),
        [
            Field("kind", \.kind, .value),
            Field("time", \.time, .time),
            Field("state", \.state, .text),
            Field("client_id", \.clientID, .text),
            Field("redirect_uri", \.redirectURI, .text),
            Field("detail", \.detail, .text),
            Field("source", \.source, .source),
        ])

    package static func encode(_ s: SessionRecord, into out: inout [UInt8]) {
        sessionSchema.write(s, into: &out)
        out.append(.newline)
    }

    package static func session(_ line: ArraySlice<UInt8>) throws(Malformed) -> SessionRecord {
        try sessionSchema.read(line)
    }

    package static func encode(_ f: Finding, into out: inout [UInt8]) {
        findingSchema.write(f, into: &out)
        out.append(.newline)
    }

    package static func finding(_ line: ArraySlice<UInt8>) throws(Malformed) -> Finding {
        try findingSchema.read(line)
    }
}
