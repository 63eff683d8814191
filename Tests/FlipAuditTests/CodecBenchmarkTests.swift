import Foundation
import Testing

@testable import Reading
@testable import Rules

/// Times the codecs of the lines flipaudit writes and reads back: the event
/// sort's and row order's spill lines, the checkpoint. Not an assertion of
/// speed, and off unless `FLIPAUDIT_CODEC_BENCH` is set: run it in release,
/// `FLIPAUDIT_CODEC_BENCH=1 swift test -c release -Xswiftc -enable-testing
/// --filter CodecBenchmark`, and compare the printed times.
@Suite("Codec timings (FLIPAUDIT_CODEC_BENCH=1, release)", .enabled(if: ProcessInfo.processInfo.environment["FLIPAUDIT_CODEC_BENCH"] != nil))
struct CodecBenchmarkTests {
    private let allowlist = AuditConfiguration().allowlist

    private func events(_ n: Int) -> [FlipEvent] {
        (0..<n).map { i in
            let request = FlipRequest.texts(
                state: "state-\(i)-abcdefghij", clientID: "1234.apps.googleusercontent.com", clientMismatch: false,
                redirect: RedirectFacts(opa, allowlist: allowlist), duplicateParams: [], badEncodingParams: [])
            let ret = FlipReturn.texts(
                base: opa, toGoogleHost: true, state: "state-\(i - i % 4)-abcdefghij",
                codeDigest: CodeHash(key: UInt64(i) &* 0x2545_F491_4F6C_DD1D, digest: "sha256:0123456789ab"),
                error: nil, errorDescription: nil, allowlisted: true, duplicateParams: [], badEncodingParams: [])
            return FlipEvent(
                time: 1_700_000_000_000 + Int64(i) * 100, source: SourceRef(file: 0, line: Int64(i)), clientIP: "203.0.113.\(i % 250)",
                status: i % 8 == 2 ? 400 : 302, request: i % 2 == 0 ? request : nil, returned: i % 2 == 1 ? ret : nil,
                lineKey: UInt64(i) &* 0x9E37_79B9_7F4A_7C15)
        }
    }

    /// Nanoseconds per item of the fastest of `rounds` runs of `body`.
    private func time(_ label: String, items: Int, rounds: Int = 30, _ body: () throws -> Void) rethrows {
        var best = Double.infinity
        for _ in 0..<rounds {
            let start = DispatchTime.now().uptimeNanoseconds
            try body()
            best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / Double(items))
        }
        print("codec-bench \(label): \(String(format: "%.1f", best)) ns per line")
    }

    /// FNV-1a of what was written: equal in two builds, equal bytes.
    private func digest(_ label: String, _ bytes: [UInt8]) {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        print("codec-bench \(label) bytes: \(bytes.count), FNV-1a \(String(h, radix: 16))")
    }

    @Test("event lines, session and finding rows, checkpoint session lines")
    func timings() throws {
        let list = events(4000)
        var buffer: [UInt8] = []
        time("event encode", items: list.count) {
            buffer.removeAll(keepingCapacity: true)
            for e in list { EventCodec.encode(e, into: &buffer) }
        }
        digest("event lines", buffer)
        let lines = buffer.split(separator: .newline)
        var codec = EventCodec(allowlist: allowlist)
        var decoded = 0
        try time("event decode", items: lines.count) {
            for line in lines { decoded &+= try codec.decode(line).status }
        }

        let session = SessionRecord(
            state: "state-abcdefghij", firstSeen: 1_700_000_000_000, lastSeen: 1_700_000_001_000,
            target: RedirectTarget(flow: .flip, app: .home, environment: .production, variant: .release),
            clientID: "1234.apps.googleusercontent.com", redirectURI: opa, outcome: .code, error: "", errorDescription: "",
            latencyMs: 1000, latencyAcrossRecords: false, findings: [.noReturn, .stateReuse], clientIP: "203.0.113.7",
            source: SourceRef(file: 1, line: 1234))
        let sessions = Array(repeating: session, count: 4000)
        time("session row encode", items: sessions.count) {
            buffer.removeAll(keepingCapacity: true)
            for s in sessions { RowCodec.encode(s, into: &buffer) }
        }
        digest("session rows", buffer)
        let rows = buffer.split(separator: .newline)
        try time("session row decode", items: rows.count) {
            for row in rows { decoded &+= Int(try RowCodec.session(row).firstSeen & 1) }
        }
        let finding = Finding(
            kind: .stateReuse, time: 1_700_000_000_000, state: "state-abcdefghij", clientID: "1234.apps.googleusercontent.com",
            redirectURI: opa, detail: "state \"state-abcdefghij\" was already used", source: SourceRef(file: 1, line: 1234))
        let findings = Array(repeating: finding, count: 4000)
        time("finding row encode", items: findings.count) {
            buffer.removeAll(keepingCapacity: true)
            for f in findings { RowCodec.encode(f, into: &buffer) }
        }
        digest("finding rows", buffer)
        let findingRows = buffer.split(separator: .newline)
        try time("finding row decode", items: findingRows.count) {
            for row in findingRows { decoded &+= Int(try RowCodec.finding(row).time & 1) }
        }

        // A checkpoint of 2000 open sessions: some returned, some failed.
        final class Sink: AuditSink {
            func finding(_ finding: consuming Finding) {}
            func sessionClosed(_ session: consuming SessionRecord) {}
        }
        let sink = Sink()
        let tracker = SessionTracker(configuration: AuditConfiguration(), files: 1, sink: sink)
        for e in list { tracker.process(e) }
        var checkpoint = tracker.carry(watermark: list.last!.time, names: ["night.log"])
        checkpoint.key = Array(repeating: 7, count: 32)
        let bytes = checkpoint.encoded()
        // Its state lines hold fingerprints under this process's seed.
        digest("checkpoint session lines", bytes.split(separator: .newline).filter { $0.starts(with: "session\t".utf8) }.flatMap { $0 + [.newline] })
        time("checkpoint encode", items: checkpoint.openSessions, rounds: 10) { decoded &+= checkpoint.encoded().count & 1 }
        try time("checkpoint decode", items: checkpoint.openSessions, rounds: 10) { decoded &+= try Checkpoint.decode(bytes).openSessions & 1 }
        #expect(checkpoint.openSessions > 1000)
        #expect(decoded != 0)
    }
}
