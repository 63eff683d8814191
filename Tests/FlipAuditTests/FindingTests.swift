import Foundation
import Testing

@testable import Audit
@testable import Parsing
@testable import Reading
@testable import Rules

let evil = "https://oauth-redirect.googleusercontent.com.evil.example/a/com.google.OPA"
let login = "https://auth.partner.example/login?continue=%2Foauth%2Fconsent"
/// Configures the Google client ID.
func pinned(_ c: inout AuditConfiguration) { c.clientIDs = [googleClient] }

/// Each finding kind of docs/contract.md §4: a log that raises it, and a near miss that
/// must not.
@Suite("Finding kinds")
struct FindingTests {
    @Test("state-mismatch: the return on the request's record carries another state")
    func stateMismatch() {
        let hit = audit([combined(1, authorize(state: "s1"), 302, location: "\(opa)?code=c1&state=s2")])
        #expect(hit.kinds().contains(.stateMismatch))
        #expect(!hit.kinds().contains(.unknownState))
        #expect(hit.findings.first { $0.kind == .stateMismatch }?.state == "s1")
        let miss = audit([combined(1, authorize(state: "s1"), 302, location: "\(opa)?code=c1&state=s1")])
        #expect(miss.findings.isEmpty)
        #expect(miss.sessions.first?.outcome == .code)
    }

    /// Two 16-byte states that an unseeded multiply-xorshift hash (eight
    /// bytes a step, the kind flipaudit once keyed states with) maps to one
    /// value: each step is invertible, so a second word can undo any first
    /// one. Found by trying first words until the undoing word is printable.
    static func craftedCollision() -> (String, String) {
        let m: UInt64 = 0x9E37_79B9_7F4A_7C15
        func step(_ h: UInt64, _ w: UInt64) -> UInt64 { let x = (h ^ w) &* m; return x ^ x >> 29 }
        func text(_ w: UInt64) -> String { String(decoding: withUnsafeBytes(of: w.littleEndian) { Array($0) }, as: UTF8.self) }
        func printable(_ w: UInt64) -> Bool { (0..<8).allSatisfy { (0x21...0x7E).contains(UInt8(truncatingIfNeeded: w >> ($0 * 8))) } }
        let h0: UInt64 = 0xcbf2_9ce4_8422_2325 ^ 16 &* m
        let first: UInt64 = 0x4141_4141_4141_4141, second: UInt64 = 0x4242_4242_4242_4242
        let h1 = step(h0, first)
        var other: UInt64 = 0x6161_6161_6161_6161
        while true {
            let undo = second ^ h1 ^ step(h0, other)
            if printable(undo) && printable(other) { return (text(first) + text(second), text(other) + text(undo)) }
            other &+= 0x0001_0203_0405_0607
        }
    }

    @Test("state-reuse is not raised for a state that only shares a crafted hash with an ended one")
    func craftedStateCollision() {
        let (a, b) = Self.craftedCollision()
        #expect(a != b)
        let result = audit([
            combined(1, authorize(state: a), 302, location: "\(opa)?code=c1&state=\(enc(a))"),
            combined(30, authorize(state: b), 302, location: "\(opa)?code=c2&state=\(enc(b))"),
        ])
        #expect(result.sessions.map(\.state) == [a, b])
        #expect(result.findings.isEmpty)
        #expect(Fingerprint.process.of(a) != Fingerprint.process.of(b))
    }

    @Test("code-to-unlisted-redirect: a code sent to a look-alike host")
    func codeToUnlisted() {
        let hit = audit([combined(1, authorize(redirect: evil), 302, location: "\(evil)?code=c1&state=s1")])
        #expect(hit.kinds() == [.codeToUnlistedRedirect, .redirectNotAllowlisted])
        #expect(hit.findings.first { $0.kind == .codeToUnlistedRedirect }?.severity == .critical)
        let miss = audit([combined(1, authorize(), 302, location: "\(opa)?code=c1&state=s1")])
        #expect(!miss.kinds().contains(.codeToUnlistedRedirect))
    }

    @Test("code-despite-client-mismatch: only with --client-id, only for a code")
    func codeDespiteClientMismatch() {
        let lines = [combined(1, authorize(client: "someone-else"), 302, location: "\(opa)?code=c1&state=s1")]
        #expect(audit(lines, configure: pinned).kinds() == [.codeDespiteClientMismatch, .clientIDMismatch])
        #expect(audit(lines).findings.isEmpty)
        let refused = [combined(1, authorize(client: "someone-else"), 302, location: "\(opa)?error=invalid_request&state=s1")]
        #expect(audit(refused, configure: pinned).kinds() == [.clientIDMismatch])
    }

    @Test("code-reuse: one code in two sessions is raised on the later one")
    func codeReuse() {
        let hit = audit([
            combined(1, authorize(state: "s1"), 302, location: "\(opa)?code=same&state=s1"),
            combined(2, authorize(state: "s2"), 302, location: "\(opa)?code=same&state=s2"),
        ])
        #expect(hit.count(.codeReuse) == 1)
        #expect(hit.findings.first { $0.kind == .codeReuse }?.state == "s2")
        // The same code twice in one session is a duplicate return, not reuse.
        let miss = audit([
            combined(1, authorize(state: "s1"), 302, location: login),
            combined(5, "POST", "/oauth/consent", 302, location: "\(opa)?code=same&state=s1"),
            combined(6, "POST", "/oauth/consent", 302, location: "\(opa)?code=same&state=s1"),
        ])
        #expect(miss.kinds() == [.duplicateReturn])
    }

    @Test("redirect-changed: the return goes to another flip URI than requested")
    func redirectChanged() {
        let hit = audit([combined(1, authorize(redirect: home), 302, location: "\(opa)?code=c1&state=s1")])
        #expect(hit.kinds() == [.redirectChanged])
        let miss = audit([combined(1, authorize(redirect: home), 302, location: "\(home)?code=c1&state=s1")])
        #expect(miss.findings.isEmpty)
    }

    @Test("error-to-unlisted-redirect: an error sent to a non-allowlisted URI")
    func errorToUnlisted() {
        let hit = audit([combined(1, authorize(redirect: evil), 302, location: "\(evil)?error=access_denied&state=s1")])
        #expect(hit.kinds().contains(.errorToUnlistedRedirect))
        #expect(!hit.kinds().contains(.codeToUnlistedRedirect))
        let miss = audit([combined(1, authorize(), 302, location: "\(opa)?error=access_denied&state=s1")])
        #expect(miss.findings.isEmpty)
    }

    @Test("missing-error-return: a 4xx to an allowlisted redirect_uri without returning the error")
    func missingErrorReturn() {
        let hit = audit([combined(1, authorize(), 400, location: "-")])
        #expect(hit.kinds() == [.missingErrorReturn])
        #expect(hit.sessions.first?.outcome == .failed)
        // A refused look-alike is the correct response: rejected, no finding about the error.
        let miss = audit([combined(1, authorize(redirect: evil), 400, location: "-")])
        #expect(miss.kinds() == [.redirectNotAllowlisted])
        #expect(miss.sessions.first?.outcome == .rejected)
    }

    @Test("state-reuse: a state used again after its session returned, or expired")
    func stateReuse() {
        let afterReturn = audit([
            combined(1, authorize(state: "s1"), 302, location: "\(opa)?code=c1&state=s1"),
            combined(30, authorize(state: "s1"), 302, location: "\(opa)?code=c2&state=s1"),
        ])
        #expect(afterReturn.kinds() == [.stateReuse])
        #expect(afterReturn.sessions.count == 2)
        #expect(afterReturn.sessions[1].findings == [.stateReuse])
        let afterExpiry = audit([
            combined(1, authorize(state: "s1"), 302, location: login),
            combined(1, authorize(state: "s1"), 302, location: "\(opa)?code=c2&state=s1", minute: 20),
        ])
        #expect(afterExpiry.kinds() == [.noReturn, .stateReuse])
        #expect(afterExpiry.sessions.map(\.outcome) == [.noReturn, .code])
        // A repeated request while the session is open and unanswered joins it.
        let repeated = audit([
            combined(1, authorize(state: "s1"), 302, location: login),
            combined(3, authorize(state: "s1"), 302, location: login),
            combined(9, "POST", "/oauth/consent", 302, location: "\(opa)?code=c1&state=s1"),
        ])
        #expect(repeated.findings.isEmpty)
        #expect(repeated.sessions.count == 1)
    }

    @Test("duplicate-return: one session answered twice")
    func duplicateReturn() {
        let hit = audit([
            combined(1, authorize(), 302, location: login),
            combined(5, "POST", "/oauth/consent", 302, location: "\(opa)?code=c1&state=s1"),
            combined(6, "POST", "/oauth/consent", 302, location: "\(opa)?code=c2&state=s1"),
        ])
        #expect(hit.kinds() == [.duplicateReturn])
        #expect(hit.sessions.count == 1)
        #expect(hit.sessions[0].latencyMs == 4000)
        let miss = audit(
            Array(
                hit.findings.isEmpty
                    ? []
                    : [
                        combined(1, authorize(), 302, location: login),
                        combined(5, "POST", "/oauth/consent", 302, location: "\(opa)?code=c1&state=s1"),
                    ]))
        #expect(miss.findings.isEmpty)
        #expect(miss.sessions.first?.outcome == .code)
    }

    @Test("code-and-error: both in one return; the outcome is error")
    func codeAndError() {
        let hit = audit([combined(1, authorize(), 302, location: "\(opa)?code=c1&error=access_denied&state=s1")])
        #expect(hit.kinds() == [.codeAndError])
        #expect(hit.sessions.first?.outcome == .error)
        #expect(hit.sessions.first?.error == "access_denied")
    }

    @Test("empty-return: a return to a flip URI with neither code nor error")
    func emptyReturn() {
        let hit = audit([combined(1, authorize(), 302, location: "\(opa)?state=s1")])
        #expect(hit.kinds() == [.emptyReturn])
        #expect(hit.sessions.first?.outcome == .empty)
        // A redirect to a login page is no return at all: the session stays open.
        let miss = audit([combined(1, authorize(), 302, location: login)])
        #expect(miss.findings.isEmpty)
        #expect(miss.sessions.first?.outcome == .pending)
    }

    @Test("code-without-state and error-without-state")
    func withoutState() {
        #expect(audit([combined(1, authorize(), 302, location: "\(opa)?code=c1")]).kinds() == [.codeWithoutState])
        #expect(audit([combined(1, authorize(), 302, location: "\(opa)?error=cancelled")]).kinds() == [.errorWithoutState])
        #expect(audit([combined(1, authorize(), 302, location: "\(opa)?error=cancelled&state=s1")]).findings.isEmpty)
    }

    @Test("duplicate-param: state, redirect_uri, client_id, code or error twice; scope twice is fine")
    func duplicateParam() {
        let hit = audit([combined(1, authorize(extra: "&state=s1"), 302, location: "\(opa)?code=c1&state=s1")])
        #expect(hit.kinds() == [.duplicateParam])
        let inReturn = audit([combined(1, authorize(), 302, location: "\(opa)?code=c1&code=c2&state=s1")])
        #expect(inReturn.kinds() == [.duplicateParam])
        let miss = audit([combined(1, authorize(extra: "&scope=more"), 302, location: "\(opa)?code=c1&state=s1")])
        #expect(miss.findings.isEmpty)
    }

    @Test(
        "redirect-not-allowlisted names the look-alike trick",
        arguments: [
            ("https://oauth-redirect.googleusercontent.com@evil.example/a/com.google.OPA", "userinfo"),
            ("https://oauth-redirect.googleusercontent.com.evil.example/a/com.google.OPA", "suffix domain"),
            ("http://oauth-redirect.googleusercontent.com/a/com.google.OPA", "http://"),
            ("https://OAUTH-REDIRECT.googleusercontent.com/a/com.google.OPA", "letter case"),
            ("https://oauth-redirect.googleusercontent.com:443/a/com.google.OPA", "explicit port"),
            ("https://oauth-redirect.googleusercontent.com/a/com.google.OPA/", "trailing slash"),
            ("https://oauth-redirect.googleusercontent.com./a/com.google.OPA", "trailing dot"),
            ("https://oauth-redirect.googleusercontent.com/a/com.google.OPA/x", "extra path segment"),
            ("https://oauth-redirect.googleusercontent.com/a/com.google.OPA?x=1", "added query"),
            ("https://oauth-redirect.googleusercontent.com/a/com.google.OPA#x", "added fragment"),
            ("https%3A%2F%2Foauth-redirect.googleusercontent.com%2Fa%2Fcom.google.OPA", "double percent-encoding"),
        ])
    func lookAlikes(uri: String, trick: String) {
        let result = audit([combined(1, authorize(redirect: uri), 400, location: "-")])
        let finding = result.findings.first { $0.kind == .redirectNotAllowlisted }
        #expect(finding != nil)
        #expect(finding?.detail.contains(trick) == true, "\(finding?.detail ?? "none")")
        #expect(result.sessions.first?.outcome == .rejected)
    }

    @Test("a URI that differs only in case from several allowlisted ones names the least of them, every time")
    func letterCaseAmongSeveral() {
        let extra = ["https://Example.com/cb", "https://EXAMPLE.com/cb", "https://example.COM/cb"]
        let allowlist = Allowlist(extra: extra)
        // Set order changes from process to process and with the set's
        // history; the answer may not.
        for _ in 0..<20 {
            #expect(allowlist.lookAlike("https://example.com/CB") == "differs only in letter case from https://EXAMPLE.com/cb")
        }
        #expect(Allowlist(extra: extra.reversed()).lookAlike("https://example.com/CB") == allowlist.lookAlike("https://example.com/CB"))
        #expect(allowlist.lookAlike("https://example.org/cb") == nil)
    }

    @Test("allowlisted URIs, and /r/ID while no project is pinned, are not flagged")
    func allowlisted() {
        for uri in Allowlist.flipURIs + ["https://oauth-redirect.googleusercontent.com/r/my-project_1"] {
            let result = audit([combined(1, authorize(redirect: uri), 302, location: "\(uri)?code=c1&state=s1")])
            #expect(result.findings.isEmpty, "\(uri)")
        }
        let pinnedProject = audit(
            [combined(1, authorize(redirect: "https://oauth-redirect.googleusercontent.com/r/other"), 400, location: "-")],
            configure: { $0.projectIDs = ["mine"] })
        #expect(pinnedProject.kinds() == [.redirectNotAllowlisted])
    }

    @Test("client-id-mismatch: only when --client-id is given; a missing client_id is missing-param")
    func clientIDMismatch() {
        let lines = [combined(1, authorize(client: "other"), 302, location: "\(opa)?error=invalid_request&state=s1")]
        #expect(audit(lines, configure: pinned).kinds() == [.clientIDMismatch])
        #expect(audit(lines).findings.isEmpty)
        let missing = audit([combined(1, authorize(client: nil), 302, location: "\(opa)?error=invalid_request&state=s1")], configure: pinned)
        #expect(missing.kinds() == [.missingParam])
    }

    /// Swift's `==` on Strings is canonical equivalence; the contract
    /// compares states, client IDs and redirect URIs by their bytes (§1,
    /// §7). Each pair below is one String to Swift and two to the audit.
    @Test("states, client IDs and allowlisted URIs compare by bytes, not canonical equivalence")
    func bytesNotCanonicalEquivalence() {
        #expect("caf\u{E9}" == "cafe\u{301}" && "\u{212A}123" == "K123")  // what Swift's == says
        let target = "/oauth/authorize?response_type=code&client_id=\(googleClient)&redirect_uri=\(enc(opa))&state=caf%C3%A9&scope=a"
        let state = audit([combined(1, target, 302, location: "\(opa)?code=c1&state=cafe%CC%81")])
        #expect(state.kinds().contains(.stateMismatch))
        #expect(!state.kinds().contains(.unknownState))
        let client = audit([combined(1, authorize(client: "\u{212A}123"), 302, location: "\(opa)?error=invalid_request&state=s1")]) {
            $0.clientIDs = ["K123"]
        }
        #expect(client.kinds() == [.clientIDMismatch])
        let allowlist = Allowlist(extra: ["https://app.example/cb;v"])
        #expect(allowlist.contains("https://app.example/cb;v"))
        #expect(!allowlist.contains("https://app.example/cb\u{37E}v"))
        #expect(Bytes.equal("K123", "K123") && !Bytes.equal("\u{212A}123", "K123"))
    }

    /// A client sending `error=*` must not add a second total row to its
    /// group of error_distribution.csv (docs/contract.md §5).
    @Test("an error value * from the logs is written \\*, so * is only ever a group's total")
    func starErrorValue() {
        let lines = ["*", "cancelled", "cancelled", "%5Cx"].enumerated().map { i, value in
            combined(i + 1, authorize(state: "s\(i)"), 302, location: "\(opa)?error=\(value)&state=s\(i)")
        }
        let rows = audit(lines).result.statistics.errorDistributionRows
        let totals = rows.filter { $0.error == AuditStatistics.totalRow }
        #expect(totals.count == 1 && totals.first?.count == 4)
        #expect(rows.filter { $0.error != AuditStatistics.totalRow }.map(\.error).sorted() == ["\\*", "\\\\x", "cancelled"])
        #expect(rows.filter { $0.error != AuditStatistics.totalRow }.reduce(0) { $0 + $1.count } == 4)
    }

    @Test("nonstandard-error: an error value outside the four App Flip values")
    func nonstandardError() {
        #expect(audit([combined(1, authorize(), 302, location: "\(opa)?error=server_error&state=s1")]).kinds() == [.nonstandardError])
        for value in ["cancelled", "unrecoverable", "invalid_request", "access_denied"] {
            #expect(audit([combined(1, authorize(), 302, location: "\(opa)?error=\(value)&state=s1")]).findings.isEmpty)
        }
    }

    @Test("an error value is cut at 200 bytes, at a character's start, in sessions, findings and the distribution")
    func longErrorValue() {
        let x = { (n: Int) in String(repeating: "x", count: n) }
        for (value, kept) in [
            (x(300), x(200)), (String(repeating: "é", count: 150), String(repeating: "é", count: 100)), (x(199) + "é", x(199)),
        ] {
            let a = audit([combined(1, authorize(), 302, location: "\(opa)?error=\(enc(value))&state=s1")])
            #expect(a.sessions.first?.error == kept)
            #expect(a.findings.contains { $0.kind == .nonstandardError })
            #expect(a.result.statistics.errorTotals.map(\.error) == [kept])
        }
    }

    @Test("unknown-state: a return to Google whose state matches no open session")
    func unknownState() {
        let hit = audit([combined(1, "POST", "/oauth/consent", 302, location: "\(opa)?code=c1&state=ghost")])
        #expect(hit.kinds() == [.unknownState])
        #expect(hit.findings.first?.state == "ghost")
        #expect(hit.sessions.isEmpty)
        // Not to Google and no open session: not a return at all.
        let miss = audit([combined(1, "POST", "/oauth/consent", 302, location: "https://partner.example/done?code=c1&state=ghost")])
        #expect(miss.findings.isEmpty)
    }

    @Test("no-return: expired without a return; a session still inside its timeout is pending")
    func noReturn() {
        let hit = audit([
            combined(1, authorize(), 302, location: login),
            combined(1, "GET", "/healthz", 200, location: "-", minute: 30),
        ])
        #expect(hit.kinds() == [.noReturn])
        #expect(hit.sessions.first?.outcome == .noReturn)
        let miss = audit([
            combined(1, authorize(), 302, location: login),
            combined(1, "GET", "/healthz", 200, location: "-", minute: 9),
        ])
        #expect(miss.findings.isEmpty)
        #expect(miss.sessions.first?.outcome == .pending)
    }

    @Test("missing-param: a flip request without client_id, state or redirect_uri")
    func missingParam() {
        let hit = audit([combined(1, authorize(state: nil), 302, location: "\(opa)?error=invalid_request")])
        #expect(hit.kinds().contains(.missingParam))
        #expect(hit.findings.first { $0.kind == .missingParam }?.detail.contains("state") == true)
        #expect(hit.sessions.count == 1)
        #expect(audit([combined(1, authorize(), 302, location: "\(opa)?code=c&state=s1")]).findings.isEmpty)
    }

    @Test("wrong-error-for-client-mismatch: anything but invalid_request")
    func wrongErrorForClientMismatch() {
        let hit = audit([combined(1, authorize(client: "other"), 302, location: "\(opa)?error=access_denied&state=s1")], configure: pinned)
        #expect(hit.kinds() == [.clientIDMismatch, .wrongErrorForClientMismatch])
        let miss = audit([combined(1, authorize(client: "other"), 302, location: "\(opa)?error=invalid_request&state=s1")], configure: pinned)
        #expect(!miss.kinds().contains(.wrongErrorForClientMismatch))
    }

    @Test("bad-encoding: a malformed escape in a flip parameter")
    func badEncoding() {
        let hit = audit([combined(1, "/oauth/authorize?client_id=G123&redirect_uri=\(enc(opa))&state=ab%zz", 302, location: "\(opa)?code=c&state=ab%25zz")])
        #expect(hit.kinds() == [.badEncoding])
        #expect(hit.sessions.first?.state == "ab%zz")
        let miss = audit([combined(1, "/oauth/authorize?client_id=G123&redirect_uri=\(enc(opa))&state=ab%25zz", 302, location: "\(opa)?code=c&state=ab%25zz")])
        #expect(miss.findings.isEmpty)
    }

    @Test("every finding kind has a severity from the table of docs/contract.md §4")
    func severities() {
        let expected: [Severity: Int] = [.critical: 4, .high: 10, .medium: 6, .low: 3]
        var counts: [Severity: Int] = [:]
        for kind in FindingKind.allCases { counts[kind.severity, default: 0] += 1 }
        #expect(counts == expected)
        #expect(FindingKind.allCases.count == 23)
    }
}

/// The rank tables (written out as switches, for speed) must follow the
/// declaration order that reports and CSV cells rely on.
@Suite("Ranks")
struct RankTests {
    @Test("finding kinds, severities and outcomes rank in declaration order")
    func ranksFollowDeclarationOrder() {
        #expect(FindingKind.allCases.map(\.rank) == Array(0..<FindingKind.allCases.count))
        #expect(Severity.allCases.map(\.rank) == Array(0..<Severity.allCases.count))
        #expect(Outcome.allCases.map(\.rank) == Array(0..<Outcome.allCases.count))
        var set = FindingKindSet()
        set.insert(.badEncoding)
        set.insert(.stateMismatch)
        #expect(set.kinds == [.stateMismatch, .badEncoding])
    }

    /// The statistics count sessions at `TargetGroup.index`: every group
    /// must have a place of its own, in its sort order.
    @Test("each target group has its own index, in sort order, and counts land on it")
    func groupIndex() {
        #expect(TargetGroup.all.map(\.index) == Array(0..<TargetGroup.all.count))
        #expect(TargetGroup.all == TargetGroup.all.sorted())
        #expect(TargetGroup.all.count == Flow.allCases.count * GoogleApp.allCases.count * GoogleEnvironment.allCases.count)
        var stats = AuditStatistics(bucket: .day)
        let sandboxWeb = RedirectTarget.classify("https://oauth-redirect-sandbox.googleusercontent.com/r/p")
        let flip = RedirectTarget.classify("https://oauth-redirect.googleusercontent.com/a/com.google.OPA")
        for (target, outcome) in [(sandboxWeb, Outcome.code), (sandboxWeb, .code), (flip, .noReturn)] {
            stats.add(
                SessionRecord(
                    state: "s", firstSeen: 0, lastSeen: 0, target: target, clientID: "", redirectURI: "", outcome: outcome,
                    error: "", errorDescription: "", latencyMs: nil, latencyAcrossRecords: false, findings: [], clientIP: "",
                    source: SourceRef(file: 0, line: 1)))
        }
        let sandboxGroup = TargetGroup(flow: sandboxWeb.flow, app: sandboxWeb.app, environment: sandboxWeb.environment)
        let flipGroup = TargetGroup(flow: flip.flow, app: flip.app, environment: flip.environment)
        #expect(sandboxGroup != flipGroup)
        #expect(stats.outcomes == [sandboxGroup: [.code: 2], flipGroup: [.noReturn: 1]])
        #expect(stats.outcomeTotals == [.code: 2, .noReturn: 1])
    }
}

@Suite("Events from records")
struct ExtractorTests {
    /// The extractor's caches: a value that keeps coming back is never
    /// pushed out by a stream of new ones.
    @Test("recent values keep the ones that come back; a new one takes the last place")
    func recentValues() {
        let capacity = RecentValues<Int>.capacity
        var recent = RecentValues<Int>()
        func find(_ text: String) -> Int? { Array(text.utf8).withUnsafeBytes { recent.lookup($0) } }
        func add(_ text: String, _ value: Int) { Array(text.utf8).withUnsafeBytes { recent.insert($0, value) } }
        for i in 0..<capacity { add("value-\(i)", i) }
        let hot = "value-\(capacity - 1)"
        for _ in 0..<3 { #expect(find(hot) == capacity - 1) }
        for i in 0..<100 { add("new-\(i)", 1000 + i) }
        #expect(find(hot) == capacity - 1)
        #expect(find("value-0") == 0)
        #expect(find("new-99") == 1099)
        #expect(find("new-98") == nil)
        var made = 0
        for _ in 0..<3 {
            let v = Array("made".utf8).withUnsafeBytes { raw in
                recent.value(for: raw) {
                    made += 1
                    return 42
                }
            }
            #expect(v == 42)
        }
        #expect(made == 1)
    }

    /// The return of `line` as the extractor builds it.
    func returned(_ line: String) -> FlipReturn? {
        var parser = CombinedLogParser(maxLine: 4096)
        var extractor = FlipEventExtractor(configuration: AuditConfiguration())
        var bytes = Array(line.utf8)
        return bytes.withUnsafeMutableBytes { raw in
            var record = LogRecord()
            guard parser.parse(UnsafeRawBufferPointer(raw), into: &record) == nil else { return nil }
            return extractor.extract(record, source: SourceRef(file: 0, line: 1), line: UnsafeRawBufferPointer(raw)).1?.returned
        }
    }

    /// A return on its request's record takes the request's state when the
    /// bytes are the same; its notes must be those it has on its own.
    @Test(
        "a return sharing its request's state keeps its own duplicate and bad-encoding notes",
        arguments: [
            "code=c&state=ab%zz", "code=c&state=ab%zz&state=ab%zz", "state=ab%zz&code=c&code=d", "code=c&state=s1&state=s2",
            "error=access_denied&state=s1", "code=c&state=s1",
        ])
    func sharedState(query: String) throws {
        // The state as the request logs it: raw, ill-encoded or not.
        let state = query.contains("ab%zz") ? "ab%zz" : "s1"
        let request = authorize(state: nil, extra: "&state=\(state)")
        let onRequest = try #require(returned(combined(1, request, 302, location: "\(opa)?\(query)")))
        let alone = try #require(returned(combined(1, "GET", "/consent", 302, location: "\(opa)?\(query)")))
        #expect(onRequest.state == alone.state)
        #expect(onRequest.stateHash == alone.stateHash)
        #expect(onRequest.duplicateParams == alone.duplicateParams)
        #expect(onRequest.badEncodingParams == alone.badEncodingParams)
        #expect(onRequest.hasCode == alone.hasCode)
    }

    /// The code is decoded first (it is hashed at once), the other values
    /// after it; the notes list parameters in `FlipParam` order all the same.
    @Test("a return's repeated and ill-encoded parameters are listed in parameter order")
    func notesInParameterOrder() throws {
        let ret = try #require(
            returned(
                combined(
                    1, "GET", "/consent", 302,
                    location: "\(opa)?error=e%zz&error=f&code=c%zz&code=d&state=s%zz&state=t")))
        #expect(ret.duplicateParams == [.state, .code, .error])
        #expect(ret.badEncodingParams == [.state, .code, .error])
    }
}

/// `EventText` against a plain byte array over 3,000 appends of 0 to 700
/// bytes, its room grown from nothing many times over and reset at
/// random: every span names exactly the bytes appended for it, and the
/// whole text is their concatenation.
@Test func eventTextKeepsWhatWasAppended() {
    var random = SplitMix(seed: 7)
    var text = EventText()
    var model: [UInt8] = []
    var spans: [(TextSpan, [UInt8])] = []
    var countsDiffer = 0
    for step in 0..<3_000 {
        if random.next() % 16 == 0 {
            text.removeAll()
            model.removeAll()
            spans.removeAll()
        }
        let bytes = (0..<Int(random.next() % 701)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        // Raw bytes on even steps, a String (ASCII) on odd ones.
        let kept = step % 2 == 0 ? bytes : bytes.map { $0 & 0x7f }
        let span =
            step % 2 == 0
            ? kept.withUnsafeBytes { text.span(appending: $0) } : text.span(appending: String(decoding: kept, as: UTF8.self))
        model += kept
        spans.append((span, kept))
        if text.count != model.count { countsDiffer += 1 }
    }
    #expect(countsDiffer == 0)
    #expect(spans.allSatisfy { span, kept in text.bytes(span) { Array($0) } == kept })
    // Compared to a Bool: a failing `==` of two long arrays is diffed.
    #expect(text.withUnsafeBytes { Array($0) == model })
    #expect(text.span(appending: nil as String?).isAbsent && text.bytes(.absent) { $0.count } == 0)
}
