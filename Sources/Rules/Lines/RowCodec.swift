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
            Field(SessionColumn.state.rawValue, \.state, .text),
            Field(SessionColumn.firstSeen.rawValue, \.firstSeen, .time),
            Field(SessionColumn.lastSeen.rawValue, \.lastSeen, .time),
            Field(SessionColumn.flow.rawValue, \.target.flow, .value),
            Field(SessionColumn.app.rawValue, \.target.app, .value),
            Field(SessionColumn.environment.rawValue, \.target.environment, .value),
            Field(SessionColumn.variant.rawValue, \.target.variant, .value),
            Field(SessionColumn.clientID.rawValue, \.clientID, .text),
            Field(SessionColumn.redirectURI.rawValue, \.redirectURI, .text),
            Field(SessionColumn.outcome.rawValue, \.outcome, .value),
            Field(SessionColumn.error.rawValue, \.error, .text),
            Field(SessionColumn.errorDescription.rawValue, \.errorDescription, .text),
            Field(
                SessionColumn.latencyMs.rawValue, \.latencyMs,
                FieldCodec.optionalText.mapped(
                    "bad NAME",
                    to: { text -> Int64?? in
                        guard let text else { return .some(nil) }
                        return Int64(text).map { .some($0) }
                    }, from: { $0.map { String($0) } })),
            Field("latency across records", \.latencyAcrossRecords, .flag),
            Field(SessionColumn.findings.rawValue, \.findings, .findingKinds),
            Field(SessionColumn.clientIP.rawValue, \.clientIP, .text),
            Field(SessionColumn.source.rawValue, \.source, .source),
        ])

    /// A `findings.csv` row.
    static let findingSchema = LineSchema<Finding>(
        "finding row",
        blank: Finding(kind: .noReturn, time: 0, state: "", clientID: "", redirectURI: "", detail: "", source: SourceRef(file: 0, line: 0)),
        [
            Field(FindingColumn.kind.rawValue, \.kind, .value),
            Field(FindingColumn.time.rawValue, \.time, .time),
            Field(FindingColumn.state.rawValue, \.state, .text),
            Field(FindingColumn.clientID.rawValue, \.clientID, .text),
            Field(FindingColumn.redirectURI.rawValue, \.redirectURI, .text),
            Field(FindingColumn.detail.rawValue, \.detail, .text),
            Field(FindingColumn.source.rawValue, \.source, .source),
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
