import Foundation
import Testing

@testable import Audit
@testable import Parsing
@testable import Reports
@testable import Rules

/// A JSON log line as nginx writes it with `escape=json` and the Location
/// logged as `sent_http_location`.
func jsonLine(_ second: Int, _ method: String, _ target: String, _ status: Int, location: String) -> String {
    #"{"time":"2026-11-22T10:00:\#(String(format: "%02d", second)).000+00:00","remote_addr":"203.0.113.9","#
        + #""request":"\#(method) \#(target) HTTP/1.1","status":\#(status),"sent_http_location":"\#(location)"}"#
}

/// The cases of issue 27, seen on nginx in front of Django with
/// django-oauth-toolkit. Expected values follow docs/contract.md §3–§5.
@Suite("A real stack's cases")
struct StackCaseTests {
    // MARK: 1. No redirect_uri, refused: rejected

    @Test("a request without redirect_uri answered 400 without a redirect is rejected, not failed")
    func noRedirectRefused() {
        for status in [400, 500] {
            let r = audit([combined(1, authorize(redirect: nil), status, location: "-")], configure: pinned)
            #expect(r.sessions.map(\.outcome) == [.rejected])
            // §4: no-return and missing-error-return need a redirect_uri to return to.
            #expect(r.kinds() == [.missingParam])
        }
        // The near miss: an allowlisted redirect_uri refused is failed.
        let failed = audit([combined(1, authorize(), 400, location: "-")], configure: pinned)
        #expect(failed.sessions.map(\.outcome) == [.failed])
        #expect(failed.kinds() == [.missingErrorReturn])
    }

    // MARK: 2. bad-encoding is only a `%` without two hex digits

    @Test(
        "well-formed escapes are not bad-encoding, whatever byte they make",
        arguments: [("ab%00z", "ab\u{0}z"), ("ab%0D%0Az", "ab\r\nz"), ("ab%FFz", "ab\\xFFz"), ("a+b", "a b")])
    func wellFormed(raw: String, state: String) {
        let r = audit([
            combined(1, authorize(state: nil, extra: "&state=\(raw)"), 302, location: "\(opa)?code=c1&state=\(raw)")
        ])
        #expect(r.findings.isEmpty, "\(r.findings.map(\.detail))")
        #expect(r.sessions.map(\.state) == [state])
        #expect(r.sessions.map(\.outcome) == [.code])
    }

    @Test("a % without two hex digits is bad-encoding, in a request or a return", arguments: ["ab%zz", "ab%4", "ab%"])
    func malformed(raw: String) {
        let request = audit([combined(1, authorize(state: nil, extra: "&state=\(raw)"), 302, location: "-")])
        #expect(request.kinds() == [.badEncoding])
        #expect(request.findings.first?.detail == "request has malformed encoding in state")
        let returned = audit([
            combined(1, authorize(), 302, location: "\(opa)?error=invalid_request&error_description=\(raw)&state=s1")
        ])
        #expect(returned.kinds() == [.badEncoding])
        #expect(returned.findings.first?.detail == "return has malformed encoding in error_description")
    }

    @Test("percent-decoding flags only a % without two hex digits")
    func decodingRule() {
        func flags(_ raw: String) -> (Bool, Bool, Bool) {
            let bytes = Array(raw.utf8)
            return bytes.withUnsafeBytes { b in
                (PercentDecoding.decode(b).malformed, PercentDecoding.exact(b).malformed, PercentDecoding.isMalformed(b))
            }
        }
        for raw in ["%00", "a%0A", "%0d%0a", "%FF%FE", "x+y", "%e2%82%ac", ""] { #expect(flags(raw) == (false, false, false), "\(raw)") }
        for raw in ["%", "%4", "%zz", "a%g0", "%%41"] { #expect(flags(raw) == (true, true, true), "\(raw)") }
        #expect(Array("a+b".utf8).withUnsafeBytes { PercentDecoding.exact($0).text } == "a b")
    }

    // MARK: 3. duplicate-param in request targets too

    @Test("code or error twice in a request target is duplicate-param; once is not")
    func duplicateInRequest() {
        let codes = audit([combined(1, authorize(extra: "&code=abcSECRET1&code=defSECRET2"), 302, location: "\(opa)?code=c1&state=s1")])
        #expect(codes.kinds() == [.duplicateParam])
        #expect(codes.findings.first?.detail == "request repeats code")
        // A code in a request target is not printed either.
        #expect(!(codes.csv[0] + codes.csv[1]).contains("SECRET"))
        let errors = audit([combined(1, authorize(extra: "&error=a&error=b"), 302, location: "\(opa)?code=c1&state=s1")])
        #expect(errors.findings.map(\.detail) == ["request repeats error"])
        let once = audit([combined(1, authorize(extra: "&code=abc&error=x&error_description=y&error_description=z"), 302, location: "\(opa)?code=c1&state=s1")])
        #expect(once.findings.isEmpty)
        let bad = audit([combined(1, authorize(extra: "&code=ab%zz"), 302, location: "\(opa)?code=c1&state=s1")])
        #expect(bad.findings.map(\.detail) == ["request has malformed encoding in code"])
    }

    // MARK: 5. Exact match

    static let mixedCase = "https://OAuth-Redirect.googleusercontent.com/a/com.google.OPA"
    static let upperScheme = "HTTPS://oauth-redirect.googleusercontent.com/a/com.google.Chromecast"
    static let port443 = "https://oauth-redirect-sandbox.googleusercontent.com:443/a/com.google.OPA.dev"

    @Test("normalization: scheme and host case, :443, %XX case; never the path's case")
    func normalization() {
        #expect(Allowlist.normalized(Self.mixedCase) == opa)
        #expect(Allowlist.normalized(Self.upperScheme) == home)
        #expect(Allowlist.normalized(Self.port443) == "https://oauth-redirect-sandbox.googleusercontent.com/a/com.google.OPA.dev")
        #expect(Allowlist.normalized("https://h.example:8443/a%2fb?x=%c3%a9#%e2") == "https://h.example:8443/a%2Fb?x=%C3%A9#%E2")
        #expect(Allowlist.normalized("http://h.example:443/P") == "http://h.example:443/P")
        #expect(Allowlist.normalized("https://oauth-redirect.googleusercontent.com/a/com.google.opa") == opa.replacingOccurrences(of: "OPA", with: "opa"))
        let allowlist = Allowlist()
        #expect(allowlist.exactVariant(of: Self.mixedCase) == opa)
        #expect(allowlist.exactVariant(of: opa) == nil)
        #expect(allowlist.exactVariant(of: "https://oauth-redirect.googleusercontent.com/a/com.google.opa") == nil)
        #expect(
            allowlist.exactVariant(of: "https://OAUTH-REDIRECT.googleusercontent.com/r/my-proj") == "https://oauth-redirect.googleusercontent.com/r/my-proj")
        #expect(allowlist.exactVariant(of: "https://oauth-redirect.googleusercontent.com@evil.example/a/com.google.OPA") == nil)
    }

    @Test("a code or error sent to a variant is redirect-not-exact, not sent to an unlisted host", arguments: [mixedCase, upperScheme, port443])
    func variantReturn(uri: String) {
        let code = audit([combined(1, authorize(redirect: uri), 302, location: "\(uri)?code=c1&state=s1")])
        #expect(code.kinds() == [.redirectNotExact, .redirectNotAllowlisted])
        #expect(code.findings.first { $0.kind == .redirectNotExact }?.severity == .high)
        #expect(code.sessions.map(\.outcome) == [.code])
        // flow, app and environment of the normal form.
        let target = RedirectTarget.classify(Allowlist.normalized(uri))
        #expect(target.flow == .flip && target.app != .unknown && target.environment != .unknown)
        #expect(code.sessions.first?.target == target)
        let error = audit([combined(1, authorize(redirect: uri), 302, location: "\(uri)?error=access_denied&state=s1")])
        #expect(error.kinds() == [.redirectNotExact, .redirectNotAllowlisted])
        #expect(error.sessions.map(\.outcome) == [.error])
        // The request's own finding says why it is not allowlisted.
        let detail = code.findings.first { $0.kind == .redirectNotAllowlisted }?.detail ?? ""
        #expect(detail.contains("not an exact match: equals https://oauth-redirect"), "\(detail)")
    }

    @Test("a refused variant is rejected; path case is not normalized")
    func variantRefusedAndPathCase() {
        let refused = audit([combined(1, authorize(redirect: Self.mixedCase), 400, location: "-")])
        #expect(refused.sessions.map(\.outcome) == [.rejected])
        #expect(refused.kinds() == [.redirectNotAllowlisted])
        let path = "https://oauth-redirect.googleusercontent.com/a/com.google.opa"
        let stranger = audit([combined(1, authorize(redirect: path), 302, location: "\(path)?code=c1&state=s1")])
        #expect(stranger.kinds() == [.codeToUnlistedRedirect, .redirectNotAllowlisted])
        #expect(stranger.sessions.first?.target.app == .unknown)
    }

    @Test("redirect-changed compares normalized URIs")
    func changedNormalized() {
        // Requested exactly, returned to a variant of the same URI.
        let same = audit([combined(1, authorize(), 302, location: "\(Self.mixedCase)?code=c1&state=s1")])
        #expect(same.kinds() == [.redirectNotExact])
        // Requested as a variant, returned exactly.
        let back = audit([combined(1, authorize(redirect: Self.mixedCase), 302, location: "\(opa)?code=c1&state=s1")])
        #expect(back.kinds() == [.redirectNotAllowlisted])
        // A variant of another URI is a change.
        let other = audit([combined(1, authorize(), 302, location: "\(Self.upperScheme)?code=c1&state=s1")])
        #expect(other.kinds() == [.redirectChanged, .redirectNotExact])
    }

    @Test("a return to a variant of Google's host on its own record is a return (host case is not significant)")
    func variantHostAlone() {
        let r = audit([combined(1, "POST", "/oauth/consent", 302, location: "\(Self.mixedCase)?code=c1&state=s9")])
        #expect(r.kinds() == [.redirectNotExact, .unknownState])
        #expect(r.sessions.isEmpty)
    }

    @Test("%XX letter case of an --allow-redirect URI")
    func percentCase() {
        let mine = "https://partner.example/cb%2Fx"
        let sent = "https://partner.example/cb%2fx"
        let r = audit([combined(1, authorize(redirect: sent), 302, location: "\(sent)?code=c1&state=s1")]) {
            $0.clientIDs = [googleClient]
            $0.allowRedirects = [mine]
        }
        #expect(r.kinds() == [.redirectNotExact, .redirectNotAllowlisted])
    }

    @Test("the spill codec carries the exact-match verdict")
    func codecKeepsVariant() throws {
        var parser = CombinedLogParser(maxLine: 4096)
        var extractor = FlipEventExtractor(configuration: AuditConfiguration())
        var bytes = Array(combined(1, "POST", "/consent", 302, location: "\(Self.mixedCase)?code=c1&state=s1").utf8)
        let event = try #require(
            bytes.withUnsafeMutableBytes { raw -> FlipEvent? in
                var record = LogRecord()
                guard parser.parse(UnsafeRawBufferPointer(raw), into: &record) == nil else { return nil }
                return extractor.extract(record, source: SourceRef(file: 0, line: 1), line: UnsafeRawBufferPointer(raw)).1
            })
        #expect(event.returned?.exactVariantOf == opa)
        var line: [UInt8] = []
        EventCodec.encode(event, into: &line)
        var codec = EventCodec(allowlist: Allowlist())
        let back = try codec.decode(line.dropLast())
        #expect(back.returned?.exactVariantOf == opa)
        #expect(back.returned?.allowlisted == false)
    }

    // MARK: 6. error_description texts

    @Test("each error value's most frequent error_description texts, escaped and cut at 200 characters")
    func descriptions() throws {
        var lines: [String] = []
        for i in 0..<3 {
            lines.append(
                combined(i, authorize(state: "p\(i)"), 302, location: "\(opa)?error=invalid_request&error_description=Code+challenge+required.&state=p\(i)"))
        }
        lines.append(combined(10, authorize(state: "q"), 302, location: "\(opa)?error=invalid_request&error_description=Invalid+scope&state=q"))
        lines.append(combined(11, authorize(state: "r"), 302, location: "\(opa)?error=access_denied&state=r"))
        let long = String(repeating: "x", count: 250)
        lines.append(combined(12, authorize(state: "t"), 302, location: "\(opa)?error=cancelled&error_description=\(long)&state=t"))
        lines.append(
            combined(13, authorize(state: "u"), 302, location: "\(opa)?error=unrecoverable&error_description=%3Cscript%3E%1B%5B2J&state=u"))
        let r = audit(lines)
        let stats = r.statistics
        #expect(stats.topDescriptions(of: "invalid_request").map(\.text) == ["Code challenge required.", "Invalid scope"])
        #expect(stats.topDescriptions(of: "invalid_request").map(\.count) == [3, 1])
        #expect(stats.topDescriptions(of: "access_denied").isEmpty)
        #expect(stats.topDescriptions(of: "cancelled").map(\.text) == [String(repeating: "x", count: 200) + "…"])

        let json = try JSONReport.render(r.result)
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let totals = try #require(doc["error_totals"] as? [[String: Any]])
        let invalid = try #require(totals.first { $0["error"] as? String == "invalid_request" })
        let texts = try #require(invalid["descriptions"] as? [[String: Any]])
        #expect(texts.map { $0["text"] as? String } == ["Code challenge required.", "Invalid scope"])
        #expect(texts.map { $0["count"] as? Int } == [3, 1])

        let summary = TerminalReport(color: false).render(r.result)
        #expect(summary.contains("Code challenge required."))
        #expect(!summary.contains("\u{1B}[2J"))
        let html = HTMLReport.render(r.result, failOn: nil)
        #expect(html.contains("Code challenge required."))
        #expect(html.contains("&lt;script&gt;"))
        #expect(!html.contains("<script>"))
    }

    // MARK: Already right

    @Test("a + in a returned state is a space: the server re-encodes with quote_plus")
    func plusInReturnedState() {
        let request = "/o/authorize/?client_id=G123&redirect_uri=\(enc(opa))&state=ab%20cd&response_type=code"
        let r = audit([
            combined(1, request, 302, location: "/accounts/login/?next=/o/authorize/%3Fstate%3Dab%2520cd"),
            combined(9, "POST", "/o/authorize/", 302, location: "\(opa)?code=c1&state=ab+cd"),
        ])
        #expect(r.findings.isEmpty)
        #expect(r.sessions.map(\.state) == ["ab cd"])
        #expect(r.sessions.map(\.outcome) == [.code])
    }

    @Test("relative Location values (login redirects) are not returns, in combined and JSON logs")
    func relativeLocation() {
        let request = "/o/authorize/?client_id=G123&redirect_uri=\(enc(opa))&state=s1&response_type=code"
        let login = "/accounts/login/?next=/o/authorize/%3Fclient_id%3DG123%26state%3Ds1"
        let combinedLog = audit([
            combined(1, request, 302, location: login),
            combined(2, "GET", "/o/authorize/?state=s1&client_id=G123", 302, location: "/o/done?error=login_required&state=s1"),
            combined(9, "POST", "/o/authorize/", 302, location: "\(opa)?code=c1&state=s1"),
        ])
        let jsonLog = audit([
            jsonLine(1, "GET", request, 302, location: login),
            jsonLine(2, "GET", "/o/authorize/?state=s1&client_id=G123", 302, location: "/o/done?error=login_required&state=s1"),
            jsonLine(9, "POST", "/o/authorize/", 302, location: "\(opa)?code=c1&state=s1"),
        ])
        for r in [combinedLog, jsonLog] {
            #expect(r.sessions.map(\.outcome) == [.code])
            #expect(r.sessions.first?.latencyMs == 8000)
            #expect(r.findings.isEmpty, "\(r.findings.map(\.detail))")
        }
    }

    @Test("a code in a #fragment is not read: the return is empty")
    func codeInFragment() {
        let r = audit([combined(1, authorize(), 302, location: "\(opa)#code=c1&state=s1")])
        #expect(r.sessions.map(\.outcome) == [.empty])
        #expect(r.kinds() == [.emptyReturn])
    }

    @Test("the token endpoint's second exchange of a code (400, no query) is not a flip event")
    func secondTokenExchange() {
        let r = audit([
            combined(1, authorize(), 302, location: "\(opa)?code=c1&state=s1"),
            combined(2, "POST", "/o/token/", 200, location: "-"),
            combined(3, "POST", "/o/token/", 400, location: "-"),
        ])
        #expect(r.sessions.map(\.outcome) == [.code])
        #expect(r.findings.isEmpty)
        #expect(r.accounting.inScopeFlipRecords == 1)
        #expect(r.accounting.returnRecords == 0)
    }

    // MARK: The generator's cases

    @Test("SampleLogs hold the stack's cases, with the outcomes and findings the rules give")
    func samplesHoldTheCases() throws {
        var config = AuditConfiguration()
        // The request without redirect_uri is in scope by its client_id only.
        config.clientIDs = ["1093874651234-flip.apps.googleusercontent.com"]
        let r = try Audit.run(try samplePaths(), config)
        let stack = r.sessions.filter { $0.state.hasPrefix("stack-") }
        var got: [String: String] = [:]
        for s in stack { got[s.state] = "\(s.outcome.rawValue) \(s.findings.map(\.rawValue).joined(separator: ";"))" }
        var expected: [String: String] = [
            "stack-no-redirect": "rejected missing-param",
            "stack-nul\u{0}z": "code ",
            "stack-dup-code": "code duplicate-param",
            "stack-variant-0": "code redirect-not-exact;redirect-not-allowlisted",
            "stack-variant-1": "code redirect-not-exact;redirect-not-allowlisted",
            "stack-plus x": "code ",
            "stack-relative": "code ",
            "stack-fragment": "empty empty-return",
            "stack-token": "code ",
        ]
        for i in 0..<6 { expected["stack-pkce-\(i)"] = "error " }
        #expect(got == expected)
        #expect(stack.count == expected.count)
        let variants = stack.filter { $0.state.hasPrefix("stack-variant-") }.map { "\($0.target.app) \($0.target.environment)" }
        #expect(variants == ["assistant production", "home production"])
        // Each PKCE refusal carries the one description.
        #expect(stack.filter { $0.state.hasPrefix("stack-pkce-") }.allSatisfy { $0.errorDescription == "Code challenge required." })
        #expect(r.statistics.topDescriptions(of: "invalid_request").first?.text == "Code challenge required.")
        // No finding of another kind names a stack state.
        let other = r.findings.filter {
            $0.state.hasPrefix("stack-") && ![.missingParam, .duplicateParam, .redirectNotExact, .redirectNotAllowlisted, .emptyReturn].contains($0.kind)
        }
        #expect(other.isEmpty, "\(other.map(\.detail))")
    }
}
