import Foundation
import Testing

@testable import Audit
@testable import Rules

/// A proxy and its backend, both logging (docs/contract.md §9, tiers).
@Suite("Tiers: a proxy and its backend")
struct TierTests {
    /// A flow's request as a front logs it: the authorize request answered
    /// with a code (`code`), at second `second` of 10:0m.
    static func flow(_ n: Int, second: Int, ip: String, code: String? = nil, path: String = "/oauth/authorize") -> String {
        let state = "st\(n)"
        let target = authorize(state: state).replacingOccurrences(of: "/oauth/authorize", with: path)
        return combined(second % 60, target, 302, location: opa + "?code=\(code ?? "c\(n)")&state=\(state)", ip: ip, minute: second / 60)
    }

    /// Twenty flows through a proxy (198.51.100.1) to a backend, which logs
    /// each a second later under a path without the proxy's prefix.
    static func logs() -> (proxy: [String], backend: [String]) {
        let proxy = (0..<20).map { flow($0, second: $0 * 7, ip: "203.0.113.\($0 + 1)", path: "/app/oauth/authorize") }
        let backend = (0..<20).map { flow($0, second: $0 * 7 + 1, ip: "198.51.100.1") }
        return (proxy, backend)
    }

    @Test("both tiers logging: found by themselves, every request audited once, no false finding")
    func found() {
        let (proxy, backend) = Self.logs()
        let alone = audit(["backend.log": backend])
        for sorted in [false, true] {
            let both = audit(["backend.log": backend, "proxy.log": proxy]) { $0.alwaysSort = sorted }
            #expect(both.findings.map(\.kind) == alone.findings.map(\.kind), "sorted \(sorted)")
            #expect(!both.kinds().contains(.codeReuse) && !both.kinds().contains(.stateReuse))
            #expect(both.sessions.map(\.outcome) == alone.sessions.map(\.outcome))
            #expect(both.result.tiers.map(\.shared) == [20])
            #expect(both.result.tiers.first.map { [$0.first, $0.second].map { ($0 as NSString).lastPathComponent }.sorted() } == ["backend.log", "proxy.log"])
        }
    }

    @Test("a double tap through the proxy stays two requests, as the backend alone has it")
    func doubleTap() {
        var (proxy, backend) = Self.logs()
        proxy.insert(Self.flow(3, second: 21, ip: "203.0.113.4", path: "/app/oauth/authorize"), at: 4)
        backend.insert(Self.flow(3, second: 22, ip: "198.51.100.1"), at: 4)
        let alone = audit(["backend.log": backend])
        let both = audit(["backend.log": backend, "proxy.log": proxy])
        #expect(alone.findings.map(\.kind) == both.findings.map(\.kind))
        #expect(alone.kinds().contains(.duplicateReturn) || alone.kinds().contains(.stateReuse))
        #expect(both.result.tiers.map(\.shared) == [21])
    }

    @Test("two unrelated fronts: a code sent twice through both within a second is code-reuse, never joined")
    func unrelatedFronts() {
        // Front a and front b each serve their own flows; one code comes
        // back through both within a second (a server handing out a code
        // twice, or a replay). Not tiers: one twin among 11 records each.
        let a = (0..<10).map { Self.flow($0, second: $0 * 5, ip: "203.0.113.1") } + [Self.flow(50, second: 100, ip: "203.0.113.1", code: "same")]
        let b = (20..<30).map { Self.flow($0, second: $0 * 5 + 2, ip: "203.0.113.2") } + [Self.flow(50, second: 101, ip: "203.0.113.2", code: "same")]
        let run = audit(["a.log": a, "b.log": b])
        #expect(run.result.tiers.isEmpty)
        #expect(run.kinds().contains(.stateReuse) || run.kinds().contains(.codeReuse))
        #expect(run.sessions.count == 22)
    }

    @Test("--tiers names the pair; the run names it with the requests shared")
    func named() throws {
        let (proxy, backend) = Self.logs()
        let dir = temporaryDirectory()
        let p = writeLog(proxy, named: "haproxy/access.log", in: dir)
        let b = writeLog(backend, named: "apache/access.log", in: dir)
        let run = try runCLI([
            p, b, "--tiers", "*/haproxy/*,*/apache/*", "--client-id", googleClient, "--no-color", "--json", dir + "/r.json", "--metrics",
            dir + "/m.prom",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let flat = run.stdout.replacingOccurrences(of: "\n      ", with: " ")
        #expect(flat.contains("tiers                \(p) and \(b): 20 requests logged by both, audited once"), "\(run.stdout)")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/r.json"))) as? [String: Any])
        let tiers = try #require((doc["deployment"] as? [String: Any])?["tiers"] as? [[String: Any]])
        #expect(tiers.count == 1 && tiers[0]["shared"] as? Int == 20)
        let metrics = try String(contentsOfFile: dir + "/m.prom", encoding: .utf8)
        #expect(metrics.contains("flipaudit_tier_twins{first=\"\(p)\",second=\"\(b)\"} 20\n"), "\(metrics)")
        let bad = try runCLI([p, "--tiers", "just-one-glob"])
        #expect(bad.status == 2 && bad.stderr.contains("--tiers: \"just-one-glob\" is not two globs split by a comma"))
    }
}
