import Foundation
import Testing

@testable import Audit
@testable import Rules

/// A combined line at `seconds` after 08:00:00 UTC (hours allowed).
func line(at seconds: Int, _ target: String, _ status: Int, location: String = "-") -> String {
    let time = String(format: "22/Nov/2026:%02d:%02d:%02d +0000", 8 + seconds / 3600, seconds / 60 % 60, seconds % 60)
    return "203.0.113.9 - - [\(time)] \"GET \(target) HTTP/1.1\" \(status) 0 \"-\" \"GoogleApp/1.0\" \"\(location)\""
}

@Suite("Streaming: time order, reuse memory")
struct StreamingTests {
    @Test("records a little out of order within a file are put back in time order")
    func smallDisorder() {
        let result = audit([
            line(at: 30, authorize(state: "late-logged"), 200),
            line(at: 10, authorize(state: "early"), 200),  // logged 20 s after a later request
            line(at: 40, "/consent", 302, location: "\(opa)?code=c1&state=early"),
            line(at: 45, "/consent", 302, location: "\(opa)?code=c2&state=late-logged"),
        ])
        #expect(result.accounting.outOfOrderRecords == 0)
        #expect(result.sessions.map(\.state) == ["early", "late-logged"])
        #expect(result.sessions.map(\.outcome) == [.code, .code])
        #expect(result.findings.isEmpty)
    }

    @Test("a record far behind its file is put in time order, counted, and does not expire its neighbours")
    func farBehind() {
        // Enough later traffic that "now" has left the merge before "old"
        // (20 minutes back: past the reorder window) is read.
        let filler = Array(repeating: line(at: 1600, "/static/app.js", 200), count: ScanAssembler.batchLines + 10)
        let result = audit(
            [line(at: 1200, authorize(state: "now"), 200)] + filler + [
                line(at: 0, authorize(state: "old"), 200),
                line(at: 5, "/consent", 302, location: "\(opa)?code=c1&state=old"),
                line(at: 1610, "/consent", 302, location: "\(opa)?code=c2&state=now"),
            ])
        #expect(result.accounting.outOfOrderRecords == 2)
        let outcomes = Dictionary(uniqueKeysWithValues: result.sessions.map { ($0.state, $0.outcome) })
        #expect(outcomes == ["old": .code, "now": .code])
        #expect(result.count(.unknownState) == 0)
        #expect(result.count(.noReturn) == 0)
    }

    @Test("a rotated log split into time-disjoint files gives the same rows as one file")
    func rotated() {
        var lines: [String] = []
        for i in 0..<40 {
            lines.append(line(at: i * 90, authorize(state: "r\(i)"), 200))
            lines.append(line(at: i * 90 + 3, "/consent", 302, location: "\(opa)?code=k\(i)&state=r\(i)"))
        }
        let whole = audit(["all.log": lines])
        let split = audit(["access.log.2.gz": Array(lines[0..<30]), "access.log.1.gz": Array(lines[30..<60]), "access.log": Array(lines[60...])])
        #expect(whole.sessions.map(\.state) == split.sessions.map(\.state))
        #expect(whole.sessions.count == 40)
        #expect(split.accounting.outOfOrderRecords == 0)
    }

    @Test(
        "--reuse-window decides how long ended states and codes are remembered",
        arguments: [(1800, true), (3 * 3600, false)])
    func reuseHorizon(_ gap: Int, _ flagged: Bool) {
        let result = audit([
            line(at: 0, authorize(state: "s1"), 302, location: "\(opa)?code=same&state=s1"),
            line(at: gap, authorize(state: "s1"), 302, location: "\(opa)?code=other&state=s1"),
            line(at: gap + 10, authorize(state: "s2"), 302, location: "\(opa)?code=same&state=s2"),
        ]) { $0.reuseWindowSeconds = 3600 }
        #expect(result.count(.stateReuse) == (flagged ? 1 : 0))
        #expect(result.count(.codeReuse) == (flagged ? 1 : 0))
        #expect(result.sessions.count == 3)
    }

    @Test("by default a state and a code reused hours apart, across midnight, are found")
    func reuseAcrossMidnight() {
        func at(_ time: String, _ target: String, _ status: Int, _ location: String) -> String {
            "203.0.113.9 - - [\(time) +0000] \"GET \(target) HTTP/1.1\" \(status) 0 \"-\" \"GoogleApp/1.0\" \"\(location)\""
        }
        let result = audit([
            at("21/Nov/2026:22:30:00", authorize(state: "night"), 302, "\(opa)?code=c-night&state=night"),
            at("21/Nov/2026:22:40:00", authorize(state: "k1"), 302, "\(opa)?code=shared&state=k1"),
            at("22/Nov/2026:01:00:00", authorize(state: "night"), 302, "\(opa)?code=c-again&state=night"),
            at("22/Nov/2026:01:10:00", authorize(state: "k2"), 302, "\(opa)?code=shared&state=k2"),
        ])
        #expect(result.count(.stateReuse) == 1)
        #expect(result.count(.codeReuse) == 1)
        #expect(result.findings.first { $0.kind == .codeReuse }?.state == "k2")
    }
}

@Suite("--reuse-window durations")
struct LogDurationTests {
    @Test(
        "units s, m, h, d and plain seconds; anything else, zero or past ten years is refused",
        arguments: [
            ("90m", 5400), ("36h", 129_600), ("7d", 604_800), ("3600s", 3600), ("45", 45), ("24h", 86_400),
            ("7x", nil), ("h", nil), ("", nil), ("0h", nil), ("-5m", nil), ("1.5h", nil), ("3661d", nil),
            ("99999999999999999999d", nil), ("3660d", 3660 * 86_400),
        ] as [(String, Int?)])
    func parse(_ text: String, _ seconds: Int?) {
        #expect(LogDuration.seconds(text) == seconds)
    }
}
