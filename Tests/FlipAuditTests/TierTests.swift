import Foundation
import Testing

@testable import Audit
@testable import Reading
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

    /// A request event of `state` from input `file` with twin `twin`.
    static func event(file: Int32, time: Int64, state: String, twin: Twin?, line: UInt64) -> FlipEvent {
        let request = FlipRequest.texts(
            state: state, clientID: googleClient, clientMismatch: false, redirect: RedirectFacts(opa, allowlist: AuditConfiguration().allowlist),
            duplicateParams: [], badEncodingParams: [])
        return FlipEvent(
            time: time, source: SourceRef(file: file, line: 1), clientIP: "203.0.113.1", status: 302, request: request, returned: nil,
            lineKey: line, twin: twin)
    }

    @Test("a twin survives the event lines between steps and spill files; a line without one (older) still reads")
    func codec() throws {
        for twin in [Twin(key: 0xdead_beef, location: 0x1234), Twin(key: 7, location: nil), nil] {
            var line: [UInt8] = []
            EventCodec.encode(Self.event(file: 2, time: 1_000, state: "s", twin: twin, line: 9), into: &line)
            var codec = EventCodec(allowlist: AuditConfiguration().allowlist)
            let back = try codec.decode(line.dropLast())
            #expect(back.twin == twin)
        }
        var codec = EventCodec(allowlist: AuditConfiguration().allowlist)
        var line: [UInt8] = []
        EventCodec.encode(Self.event(file: 2, time: 1_000, state: "s", twin: Twin(key: 1, location: nil), line: 9), into: &line)
        for bad in ["zz:-", "0000000000000001", "0000000000000001:", "0000000000000001:xyz"] {
            let cut = Array(line.dropLast().split(separator: .tab, omittingEmptySubsequences: false).dropLast().joined(separator: [.tab]))
            #expect(throws: TextFields.Malformed.self) { try codec.decode((cut + [.tab] + Array(bad.utf8))[...]) }
        }
    }

    @Test("a follower leaves out the second of twins of named tiers at once, keeps a double tap and other fronts' twins")
    func follower() {
        var memory = TwinMemory { a, b in Set([a, b]) == [0, 1] }
        let twin = Twin(key: 42, location: 5)
        func admits(_ file: Int32, _ time: Int64, _ state: String, _ line: UInt64) -> Bool {
            memory.admits(Self.event(file: file, time: time, state: state, twin: twin, line: line))
        }
        #expect(admits(0, 10_000, "a", 1))
        #expect(!admits(1, 10_900, "a", 2))
        // A double tap: each tier logs it again; one of each pair is kept.
        #expect(admits(0, 11_000, "a", 3))
        #expect(!admits(1, 11_500, "a", 4))
        // Input 2 is no tier of input 0; the same bytes are a duplicate.
        #expect(admits(2, 11_600, "a", 5))
        #expect(admits(0, 20_000, "b", 6))
        #expect(admits(1, 20_100, "b", 6))
        // More than two seconds apart: two requests.
        #expect(admits(0, 30_000, "c", 7))
        #expect(admits(1, 32_500, "c", 8))
    }

    @Test("a request in flight at the cut, logged by two tiers on both sides of the watermark, is audited once across the nights")
    func acrossTheCut() throws {
        let dir = temporaryDirectory()
        // Night 1: the backend's log ends at 10:01:10 with flow 10, the
        // proxy's a second later with the same flow: the watermark is the
        // backend's end, and the proxy's record of flow 10 lies past it.
        let proxy1 = (0..<11).map { Self.flow($0, second: $0 * 7, ip: "203.0.113.\($0 + 1)", path: "/app/oauth/authorize") }
        let backend1 = (0..<11).map { Self.flow($0, second: $0 * 7 - ($0 == 10 ? 1 : 0), ip: "198.51.100.1") }
        // Night 2 runs to 10:40, past every session's expiry.
        let late = combined(0, "/healthz", 200, minute: 40)
        let proxy2 = (20..<30).map { Self.flow($0, second: $0 * 7, ip: "203.0.113.\($0 + 1)", path: "/app/oauth/authorize") } + [late]
        let backend2 = (20..<30).map { Self.flow($0, second: $0 * 7 + 1, ip: "198.51.100.1") } + [late]
        let p1 = writeLog(proxy1, named: "proxy/access.log.1", in: dir)
        let b1 = writeLog(backend1, named: "backend/access.log.1", in: dir)
        let p2 = writeLog(proxy2, named: "proxy/access.log", in: dir)
        let b2 = writeLog(backend2, named: "backend/access.log", in: dir)
        let options = ["--client-id", googleClient, "--now", "2026-11-22T12:00:00Z", "--checkpoint", dir + "/cp", "--quiet"]
        let first = try runCLI([p1, b1, "--csv", dir + "/n1"] + options)
        let second = try runCLI([p2, b2, "--csv", dir + "/n2"] + options)
        #expect(first.status == 0 && second.status == 0, "\(first.stderr) \(second.stderr)")
        let findings = try String(contentsOfFile: dir + "/n1/findings.csv", encoding: .utf8) + String(contentsOfFile: dir + "/n2/findings.csv", encoding: .utf8)
        #expect(!findings.contains("code-reuse") && !findings.contains("state-reuse"), "\(findings)")
        let sessions = try String(contentsOfFile: dir + "/n1/sessions.csv", encoding: .utf8) + String(contentsOfFile: dir + "/n2/sessions.csv", encoding: .utf8)
        #expect(sessions.split(separator: "\n").filter { $0.hasPrefix("st10,") }.count == 1)
    }
}

@Suite("Tiers when following")
struct FollowTierTests {
    /// Runs `flipaudit follow ARGS` until its standard error holds `want`
    /// (at most 60 s: the verdict is the words, the deadline only ends a
    /// wait that would otherwise hang), then SIGTERM; its standard error.
    func follow(_ arguments: [String], until want: String, inFindings: Bool = false) throws -> (String, Int32) {
        let binary = Bundle.module.bundleURL.deletingLastPathComponent().appendingPathComponent("flipaudit")
        let dir = temporaryDirectory()
        let errPath = dir + "/stderr"
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        let p = Process()
        p.executableURL = binary
        p.arguments = ["follow"] + arguments + ["--findings", dir + "/findings.ndjson"]
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        p.standardInput = FileHandle.nullDevice
        try p.run()
        var text = ""
        for _ in 0..<600 {
            text = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
            let findings = (try? String(contentsOfFile: dir + "/findings.ndjson", encoding: .utf8)) ?? ""
            if (inFindings ? findings : text).contains(want) { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        p.terminate()
        p.waitUntilExit()
        return ((try? String(contentsOfFile: errPath, encoding: .utf8)) ?? text, p.terminationStatus)
    }

    @Test("a follower says once which files look like tiers nobody named, with the --tiers that pairs them")
    func unnamed() throws {
        let (proxy, backend) = TierTests.logs()
        let dir = temporaryDirectory()
        let p = writeLog(proxy, named: "proxy.log", in: dir)
        let b = writeLog(backend, named: "backend.log", in: dir)
        let want = "log the same requests (a proxy and its backend?): each is audited twice; follow with --tiers '"
        let (said, status) = try follow([p, b, "--from-start", "--client-id", googleClient], until: want)
        #expect(status == 0)
        #expect(said.contains("flipaudit: follow: \(p) and \(b) \(want)\(p),\(b)' to audit each once"), "\(said)")
        #expect(said.components(separatedBy: want).count == 2)
        // Named, nothing is said: they are paired. (A look-alike request
        // last in the backend's log: its finding shows every line before
        // it was audited.)
        let last = combined(0, authorize(state: "last", redirect: "https://evil.example/cb"), 400, ip: "198.51.100.1", minute: 9)
        let b2 = writeLog(backend + [last], named: "backend2.log", in: dir)
        let (named, _) = try follow(
            [p, b2, "--from-start", "--client-id", googleClient, "--tiers", "\(p),\(b2)"], until: "redirect-not-allowlisted", inFindings: true)
        #expect(!named.contains("log the same requests"), "\(named)")
    }

    @Test("clean is not blind, live: a pattern that matches no file is said, not followed silently")
    func emptyPattern() throws {
        let dir = temporaryDirectory()
        let pattern = dir + "/ngnix/*.log"
        let (said, status) = try follow([pattern], until: "matches no file")
        #expect(status == 0)
        #expect(said.contains("flipaudit: follow: \(pattern) matches no file (yet); looked for again every"), "\(said)")
    }
}

/// Times that cannot be wrong silently (docs/contract.md §9): two inputs
/// whose records of one state sit a whole number of quarter hours apart.
@Suite("Clock offsets between inputs")
struct ClockOffsetTests {
    /// `line` an hour later (10:mm → 11:mm on 22 Nov).
    static func hourLater(_ line: String) -> String { line.replacingOccurrences(of: "22/Nov/2026:10:", with: "22/Nov/2026:11:") }

    /// The proxy's twenty flows as HAProxy logs them (`option httplog`:
    /// times with no zone), written in local time `hour`:mm.
    static func haproxy(hour: Int) -> [String] {
        (0..<20).map { n in
            let second = n * 7
            let time = String(format: "22/Nov/2026:%02d:%02d:%02d.000", hour, second / 60, second % 60)
            return "203.0.113.\(n + 1):41234 [\(time)] www be/s1 0/0/1/2/3 302 171 - - ---- 1/1/0/0/0 0/0 {} \"GET \(authorize(state: "st\(n)")) HTTP/1.1\""
        }
    }

    @Test("a backend an hour off its proxy is said, with both names and the offset; in step, nothing is said")
    func hourOff() {
        let (proxy, backend) = TierTests.logs()
        let inStep = audit(["backend.log": backend, "proxy.log": proxy])
        #expect(inStep.result.offsets.isEmpty)
        let off = audit(["backend.log": backend.map(Self.hourLater), "proxy.log": proxy])
        #expect(off.result.offsets.count == 1)
        let o = off.result.offsets.first
        #expect(o.map { [$0.first, $0.second].map { ($0 as NSString).lastPathComponent } } == ["proxy.log", "backend.log"])
        #expect(o?.offset == 3_600_000)
        #expect(o?.states == 20)
        #expect(o?.zoneless == nil)
        #expect(
            o?.sentence(zone: nil).hasSuffix(
                "give the log whose times are off a format with its zone (--log-format with %z), or mend its server's clock or zone") == true)
        // Unrelated inputs (no state in common) are never compared.
        let apart = audit(["a.log": Array(backend.prefix(10)).map(Self.hourLater), "b.log": Array(proxy.suffix(10))])
        #expect(apart.result.offsets.isEmpty)
    }

    @Test("HAProxy behind a syslog header with a zone: its times carry one, so an offset is not a --tz to give")
    func zonedHeaderIsNotZoneless() {
        let backend = TierTests.logs().backend
        // rsyslog's RFC 3339 header in UTC: HAProxy's 11:mm is 11:mm UTC,
        // an hour after the backend's 10:mm: a clock off, not a zone.
        let framed = Self.haproxy(hour: 11).map { line -> String in
            let time = line.split(separator: "[")[1].prefix(24)
            let minute = time.dropFirst(15).prefix(5)
            return "2026-11-22T11:\(minute).000+00:00 lb haproxy[812]: " + line
        }
        let off = audit(["backend.log": backend, "haproxy.log": framed])
        #expect(off.result.offsets.count == 1)
        let o = off.result.offsets.first
        #expect(o?.offset == 3_600_000 && o?.zoneless == nil)
        #expect(o?.sentence(zone: nil).hasSuffix("or mend its server's clock or zone") == true, "\(o?.sentence(zone: nil) ?? "")")
        // Without the header its times carry none: named, with the --tz.
        let plain = audit(["backend.log": backend, "haproxy.log": Self.haproxy(hour: 11)])
        #expect(plain.result.offsets.first.map { ($0.zoneless! as NSString).lastPathComponent } == "haproxy.log")
    }

    @Test("HAProxy's local times read as UTC: the run says which --tz reads them, and that --tz reads them in step")
    func zonelessAdvice() throws {
        let dir = temporaryDirectory()
        // HAProxy in Berlin (+01:00 in November) in front of a backend
        // logging UTC with its zone: HAProxy's 11:mm is the backend's 10:mm.
        let front = writeLog(Self.haproxy(hour: 11), named: "haproxy.log", in: dir)
        let back = writeLog(TierTests.logs().backend, named: "backend.log", in: dir)
        let utc = try runCLI([front, back, "--client-id", googleClient, "--no-color", "--json", dir + "/r.json"])
        #expect(
            utc.stderr.contains(
                "\(dir)/haproxy.log's records sit +1 h from \(dir)/backend.log's on 20 states both log: they are read in different zones, and sessions across them are wrong; \(dir)/haproxy.log's times carry no zone: read them with --tz +01:00"
            ), "\(utc.stderr)")
        #expect(utc.stdout.contains("times                ") && utc.stdout.contains("sits +1 h from"), "\(utc.stdout)")
        let json = try String(contentsOfFile: dir + "/r.json", encoding: .utf8)
        #expect(json.contains("\"offset_seconds\" : 3600"), "\(json)")
        #expect(json.contains("\"zoneless\" : \"\(dir)/haproxy.log\""))
        // The setting it gives reads both in step: no offset, and the two
        // fronts found as tiers of one another.
        let berlin = try runCLI([front, back, "--client-id", googleClient, "--no-color", "--tz", "+01:00", "--json", dir + "/r2.json"])
        #expect(!berlin.stderr.contains("read in different zones"), "\(berlin.stderr)")
        let fixed = try String(contentsOfFile: dir + "/r2.json", encoding: .utf8)
        #expect(!fixed.contains("offset_seconds"))
        #expect(fixed.contains("\"shared\" : 20"), "\(fixed)")
    }
}
