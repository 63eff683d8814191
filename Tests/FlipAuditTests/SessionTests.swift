import Foundation
import Testing

@testable import Audit
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

/// `RedirectTarget.index` numbers every target once, as `all` lists them
/// (the CSV writer's table of target cells is indexed by it).
@Test func redirectTargetsIndexTheirTable() {
    let all = RedirectTarget.all
    #expect(all.count == Flow.allCases.count * GoogleApp.allCases.count * GoogleEnvironment.allCases.count * Variant.allCases.count)
    #expect(all.enumerated().allSatisfy { $0.offset == $0.element.index })
    #expect(Set(all.map { "\($0.flow)/\($0.app)/\($0.environment)/\($0.variant)" }).count == all.count)
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

/// `SessionTable` against a model of what it promises, over 10,000 random
/// steps: slots are reused as sessions close, so a stale queue entry that
/// were taken for the slot's new session would close the wrong one, and a
/// state looked up would find a session that closed.
@Test func sessionTableAnswersAsItsModel() {
    var random = SplitMix(seed: 29)
    let table = SessionTable()
    // The model: open sessions by serial, the one each state finds, the
    // expiry queue and the opening order.
    var open: [Int: (state: String, firstSeen: Int64, expiresAt: Int64)] = [:]
    var found: [String: Int] = [:]
    var stateless = 0
    var expiries: [(expiry: Int64, serial: Int)] = []
    var order: [Int] = []
    var slotOf: [Int: Int] = [:]
    var now: Int64 = 0
    var serial = 0
    var closed = 0
    func session(_ state: String, _ serial: Int) -> Session {
        Session(
            carried: CarriedSession(
                state: state, serial: serial, firstSeen: now, lastSeen: now, firstSource: SourceRef(file: 0, line: Int64(serial)),
                lastLineInFirstFile: Int64(serial), clientID: nil, redirectURI: nil, clientMismatch: false, clientIP: "192.0.2.1",
                requestCount: 1, returnCount: 0, firstReturn: nil, failure: nil, findings: [], codeKeys: [], expiresAt: 0,
                observable: true),
            fileOffset: 0, fingerprint: .process, redirect: nil)
    }
    func touch(_ s: Int) {
        open[s]!.expiresAt = now + 1_000
        table[slotOf[s]!].expiresAt = now + 1_000
        table.touched(slotOf[s]!)
        expiries.append((now + 1_000, s))
    }
    func close(_ s: Int) {
        let taken = table.remove(slotOf[s]!)
        #expect(taken.serial == s)
        if found[open[s]!.state] == s { found[open[s]!.state] = nil }
        if open[s]!.state.isEmpty { stateless -= 1 }
        open[s] = nil
        slotOf[s] = nil
        closed += 1
    }
    /// The model's next expired session: the queue's first entry that is
    /// still its session's latest, before `time`.
    func anyOpen() -> Int? {
        let serials = open.keys.sorted()
        return serials.isEmpty ? nil : serials[Int(random.next() % UInt64(serials.count))]
    }
    func modelExpired(before time: Int64?) -> Int? {
        while let first = expiries.first, time.map({ first.expiry < $0 }) ?? true {
            expiries.removeFirst()
            if let s = open[first.serial], s.expiresAt == first.expiry { return first.serial }
        }
        return nil
    }
    for _ in 0..<10_000 {
        now += Int64(random.next() % 20)
        switch random.next() % 10 {
        case 0..<4:
            let n = random.next() % 60
            let state = n < 6 ? "" : "state-\(n)"
            let slot = table.open(session(state, serial))
            slotOf[serial] = slot
            open[serial] = (state, now, 0)
            order.append(serial)
            if state.isEmpty { stateless += 1 } else { found[state] = serial }
            touch(serial)
            serial += 1
        case 4..<6:
            if let s = anyOpen() { touch(s) }
        case 6:
            if let s = anyOpen() { close(s) }
        case 7:
            let expected = modelExpired(before: now - 500)
            let slot = table.nextExpired(before: now - 500)
            #expect(slot.map { table[$0].serial } == expected)
            if let expected { close(expected) }
        case 8:
            if random.next() % 8 == 0 {
                let expected = modelExpired(before: nil)
                let slot = table.leastRecentlyActive()
                #expect(slot.map { table[$0].serial } == expected)
                if let expected { close(expected) }
            }
        default:
            let state = "state-\(6 + random.next() % 54)"
            let slot = state.utf8.withContiguousStorageIfAvailable {
                table.find(hash: Fingerprint.process.of(state), state: UnsafeRawBufferPointer($0))
            }!
            #expect(slot.map { table[$0].serial } == found[state], "\(state)")
        }
        #expect(table.count == found.count + stateless)
        order.removeAll { open[$0] == nil }
        #expect(table.oldestFirstSeen == order.first.map { open[$0]!.firstSeen })
    }
    #expect(table.stillOpen.map { table[$0].serial } == order)
    #expect(closed > 2_000 && open.count > 20)
}

/// `StateIndex` against a `Dictionary` over 40,000 random updates,
/// removals and look-ups of 3,000 keys: the table grows from 16 entries
/// and runs near three quarters full, so removals shift long runs back.
@Test func stateIndexAnswersAsADictionary() {
    var random = SplitMix(seed: 41)
    let keys = (0..<3_000).map { i in i % 2 == 0 ? random.next() : UInt64(i) }
    var index = StateIndex()
    var model: [UInt64: Int32] = [:]
    for step in 0..<40_000 {
        let key = keys[Int(random.next() % UInt64(keys.count))]
        switch random.next() % 3 {
        case 0:
            let slot = Int32(step)
            #expect(index.update(slot, for: key) == model.updateValue(slot, forKey: key))
        case 1:
            index.remove(key)
            model[key] = nil
        default:
            #expect(index[key] == model[key], "key \(key)")
        }
    }
    #expect(keys.allSatisfy { index[$0] == model[$0] })
    #expect(model.count > 1_000)
}
