import Parsing
import Reading

/// Writes the rows of `sessions.csv` and `findings.csv` as lines of text
/// (`TextFields`) and reads them back: what `RowOrder` spills to its
/// temporary files when more rows wait than it holds in memory.
package enum RowCodec {
    private typealias F = TextFields
    package typealias Malformed = TextFields.Malformed

    package static func encode(_ s: SessionRecord, into out: inout [UInt8]) {
        F.text(s.state, &out); F.tab(&out)
        F.number(s.firstSeen, &out); F.tab(&out)
        F.number(s.lastSeen, &out); F.tab(&out)
        F.text(s.target.flow.rawValue, &out); F.tab(&out)
        F.text(s.target.app.rawValue, &out); F.tab(&out)
        F.text(s.target.environment.rawValue, &out); F.tab(&out)
        F.text(s.target.variant.rawValue, &out); F.tab(&out)
        F.text(s.clientID, &out); F.tab(&out)
        F.text(s.redirectURI, &out); F.tab(&out)
        F.text(s.outcome.rawValue, &out); F.tab(&out)
        F.text(s.error, &out); F.tab(&out)
        F.text(s.errorDescription, &out); F.tab(&out)
        F.optional(s.latencyMs.map { String($0) }, &out); F.tab(&out)
        F.flag(s.latencyAcrossRecords, &out); F.tab(&out)
        F.text(s.findings.map(\.rawValue).joined(separator: ";"), &out); F.tab(&out)
        F.text(s.clientIP, &out); F.tab(&out)
        F.number(Int64(s.source.file), &out); F.tab(&out)
        F.number(s.source.line, &out)
        out.append(.newline)
    }

    package static func session(_ line: ArraySlice<UInt8>) throws(Malformed) -> SessionRecord {
        let f = try F.split(line, count: 18)
        let latency = try F.optional(f[12]).map { text throws(Malformed) in
            guard let n = Int64(text) else { throw Malformed(reason: "bad latency") }
            return n
        }
        let kinds = try F.text(f[14])
        var findings: [FindingKind] = []
        if !kinds.isEmpty {
            for name in kinds.split(separator: ";") {
                guard let kind = FindingKind(rawValue: String(name)) else { throw Malformed(reason: "bad finding kind") }
                findings.append(kind)
            }
        }
        return SessionRecord(
            state: try F.text(f[0]), firstSeen: try F.time(f[1], "first_seen"), lastSeen: try F.time(f[2], "last_seen"),
            target: RedirectTarget(
                flow: try F.value(f[3], Flow.self), app: try F.value(f[4], GoogleApp.self),
                environment: try F.value(f[5], GoogleEnvironment.self), variant: try F.value(f[6], Variant.self)),
            clientID: try F.text(f[7]), redirectURI: try F.text(f[8]), outcome: try F.value(f[9], Outcome.self),
            error: try F.text(f[10]), errorDescription: try F.text(f[11]), latencyMs: latency,
            latencyAcrossRecords: try F.flag(f[13]), findings: findings, clientIP: try F.text(f[15]),
            source: try F.source(f[16], f[17]))
    }

    package static func encode(_ f: Finding, into out: inout [UInt8]) {
        F.text(f.kind.rawValue, &out); F.tab(&out)
        F.number(f.time, &out); F.tab(&out)
        F.text(f.state, &out); F.tab(&out)
        F.text(f.clientID, &out); F.tab(&out)
        F.text(f.redirectURI, &out); F.tab(&out)
        F.text(f.detail, &out); F.tab(&out)
        F.number(Int64(f.source.file), &out); F.tab(&out)
        F.number(f.source.line, &out)
        out.append(.newline)
    }

    package static func finding(_ line: ArraySlice<UInt8>) throws(Malformed) -> Finding {
        let f = try F.split(line, count: 8)
        return Finding(
            kind: try F.value(f[0], FindingKind.self), time: try F.time(f[1], "time"), state: try F.text(f[2]),
            clientID: try F.text(f[3]), redirectURI: try F.text(f[4]), detail: try F.text(f[5]),
            source: try F.source(f[6], f[7]))
    }
}
