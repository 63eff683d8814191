import Foundation
import Testing

@testable import Audit
@testable import Command
@testable import Parsing
@testable import Reading
@testable import Reports
@testable import Rules

/// Sessions, outcomes and their classification (docs/contract.md §3).
@Suite("Sessions and outcomes")
struct SessionTests {
    @Test("every flip bundle and variant is classified; near misses are flip redirects of no known app")
    func classification() {
        let host = "https://oauth-redirect.googleusercontent.com"
        for (bundle, app) in [("com.google.Chromecast", GoogleApp.home), ("com.google.OPA", .assistant)] {
            for (suffix, variant) in [("", Variant.release), (".dev", .dev), (".enterprise", .enterprise)] {
                #expect(
                    RedirectTarget.classify("\(host)/a/\(bundle)\(suffix)")
                        == RedirectTarget(flow: .flip, app: app, environment: .production, variant: variant))
            }
            // A suffix that is not a variant, a letter more, a combining
            // accent on the last letter, a bundle cut short.
            for near in [".devx", ".Dev", "x", "\u{301}", ".dev\u{301}"] {
                #expect(
                    RedirectTarget.classify("\(host)/a/\(bundle)\(near)")
                        == RedirectTarget(flow: .flip, app: .unknown, environment: .production, variant: .none), "\(near)")
            }
            #expect(RedirectTarget.classify("\(host)/a/\(bundle.dropLast())").app == .unknown)
        }
        #expect(RedirectTarget.classify("\(host)/r/my-project").flow == .web)
        #expect(RedirectTarget.classify("\(host)/a/com.google.OPA/x").flow == .other)
    }

    @Test("outcome code, with flow, app, environment and variant")
    func code() {
        let r = audit([
            combined(
                1, authorize(redirect: "https://oauth-redirect-sandbox.googleusercontent.com/a/com.google.Chromecast.dev"), 302,
                location: "https://oauth-redirect-sandbox.googleusercontent.com/a/com.google.Chromecast.dev?code=c&state=s1")
        ])
        let s = r.sessions[0]
        #expect(s.outcome == .code)
        #expect(s.target == RedirectTarget(flow: .flip, app: .home, environment: .sandbox, variant: .dev))
        #expect(s.latencyMs == 0)
        #expect(!s.latencyAcrossRecords)
    }

    @Test("outcome error keeps the error and its description")
    func error() {
        let r = audit([combined(1, authorize(), 302, location: "\(opa)?error=access_denied&error_description=User+said+no&state=s1")])
        #expect(r.sessions[0].outcome == .error)
        #expect(r.sessions[0].error == "access_denied")
        #expect(r.sessions[0].errorDescription == "User said no")
    }

    @Test("web flow: /r/PROJECT_ID")
    func web() {
        let uri = "https://oauth-redirect.googleusercontent.com/r/proj-1"
        let r = audit([combined(1, authorize(redirect: uri), 302, location: "\(uri)?code=c&state=s1")])
        #expect(r.sessions[0].target.flow == .web)
        #expect(r.unpinnedProjectIDs == ["proj-1"])
    }

    @Test("a consent POST answered by a 302 to Google is the session's return; latency spans the records")
    func consent() {
        let r = audit([
            combined(1, authorize(), 302, location: login),
            combined(21, "POST", "/oauth/consent", 302, location: "\(opa)?code=c&state=s1"),
        ])
        #expect(r.sessions.count == 1)
        #expect(r.sessions[0].outcome == .code)
        #expect(r.sessions[0].latencyMs == 20_000)
        #expect(r.statistics.latencyPercentiles?.p50 == 20_000)
    }

    @Test("outcome unobservable: the request's file logs no Location field at all")
    func unobservable() {
        let r = audit([combined(1, authorize(), 302, location: nil), combined(2, "GET", "/", 200, location: nil)])
        #expect(r.sessions[0].outcome == .unobservable)
        #expect(r.findings.isEmpty)
        #expect(r.unobservableFiles.count == 1)
        // A "-" Location counts as logged.
        let logged = audit([combined(0, "GET", "/", 200, location: "-"), combined(1, authorize(), 302, location: nil)])
        #expect(logged.sessions[0].outcome == .pending)
    }

    @Test("a log whose format gains Location mid-file: sessions before the change are unobservable, after it judged")
    func locationMidFile() {
        let r = audit([
            combined(1, authorize(state: "before"), 200, location: nil),
            combined(2, "GET", "/", 200, location: nil),
            combined(3, "GET", "/", 200, location: "-"),
            combined(4, authorize(state: "after"), 200, location: "-"),
            // A request on a record without the field, after the file has
            // shown it: judged.
            combined(5, authorize(state: "joined"), 200, location: nil),
            combined(0, "GET", "/", 200, location: "-", minute: 30),
        ])
        let outcomes = Dictionary(uniqueKeysWithValues: r.sessions.map { ($0.state, $0.outcome) })
        #expect(outcomes["before"] == .unobservable)
        #expect(outcomes["after"] == .noReturn)
        #expect(outcomes["joined"] == .noReturn)
        #expect(r.unobservableFiles.count == 1)
        // Whatever reads the file (one thread or several), the same answer.
        let single = audit([
            combined(1, authorize(state: "before"), 200, location: nil),
            combined(3, "GET", "/", 200, location: "-"),
        ]) { $0.parallel = false }
        #expect(single.sessions[0].outcome == .unobservable)
    }

    @Test("other OAuth clients are counted, nothing more")
    func otherOAuth() {
        let r = audit([
            combined(
                1, "/oauth/authorize?client_id=web&redirect_uri=https%3A%2F%2Fapp.example%2Fcb&state=x", 302,
                location: "https://app.example/cb?code=c&state=x")
        ])
        #expect(r.accounting.otherOAuthRecords == 1)
        #expect(r.accounting.inScopeFlipRecords == 0)
        #expect(r.sessions.isEmpty)
        #expect(r.findings.isEmpty)
    }

    @Test("--endpoint makes a path in scope even with one flip parameter")
    func endpoint() {
        let lines = [combined(1, "/flip/start?state=s9", 400, location: "-")]
        #expect(audit(lines).sessions.isEmpty)
        let r = audit(lines, configure: { $0.endpoints = ["/flip/start"] })
        #expect(r.sessions.count == 1)
        #expect(r.kinds() == [.missingParam])
    }

    @Test("--session-timeout decides expiry")
    func timeout() {
        let lines = [
            combined(1, authorize(), 302, location: login),
            combined(1, "POST", "/oauth/consent", 302, location: "\(opa)?code=c&state=s1", minute: 3),
        ]
        #expect(audit(lines).sessions.map(\.outcome) == [.code])
        let short = audit(lines, configure: { $0.sessionTimeoutSeconds = 60 })
        #expect(short.sessions.map(\.outcome) == [.noReturn])
        #expect(short.kinds() == [.noReturn, .unknownState])
    }
}

/// A fingerprint key's table hash spreads keys that differ only in their
/// high bits over the low bits a table's buckets use, and depends on the
/// table's seed; keys still find their values.
@Test func fingerprintKeysSpreadOverBuckets() {
    let keys = (0..<4096).map { FingerprintKey(UInt64($0) << 40) }
    let buckets = Set(keys.map { $0._rawHashValue(seed: 12345) & 4095 })
    #expect(buckets.count > 2000, "\(buckets.count) of 4096 buckets")
    let differ = keys.filter { $0._rawHashValue(seed: 1) != $0._rawHashValue(seed: 2) }
    #expect(differ.count == keys.count)
    var table: [FingerprintKey: Int] = [:]
    for (i, key) in keys.enumerated() { table[key] = i }
    #expect(keys.enumerated().allSatisfy { table[$1] == $0 })
}
