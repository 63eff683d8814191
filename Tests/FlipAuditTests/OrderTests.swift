import Foundation
import Testing

@testable import Audit
@testable import Parsing
@testable import Reading
@testable import Rules

/// A session row without its source (what may differ when the same records
/// come from other files).
private func key(_ s: SessionRecord) -> String {
    "\(s.state)|\(s.firstSeen)|\(s.lastSeen)|\(s.target)|\(s.clientID)|\(s.redirectURI)|\(s.outcome)|\(s.error)|\(s.errorDescription)|\(String(describing: s.latencyMs))|\(s.findings)|\(s.clientIP)"
}

private func key(_ f: Finding) -> String {
    "\(f.time)|\(f.kind)|\(f.state)|\(f.clientID)|\(f.redirectURI)|\(f.detail)"
}

/// Rows of an audit as sorted multisets, sources left out.
private func rows(_ a: Audit) -> (sessions: [String], findings: [String]) {
    (a.sessions.map(key).sorted(), a.findings.map(key).sorted())
}

private let web1 = sampleLogs + "/web1-access.log.gz"
private let web3 = sampleLogs + "/web3-access-rotated.log.gz"

/// Runs `command` under sh.
private func shell(_ command: String) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/bin/sh")
    p.arguments = ["-c", command]
    try! p.run()
    p.waitUntilExit()
    precondition(p.terminationStatus == 0, command)
}

@Suite("One answer whatever the input's order, cut or size")
struct OrderTests {
    @Test(
        "two servers' logs as separate files, or concatenated in either order (gzip members, plain, one stream), give the same sessions and findings",
        arguments: [true, false])
    func concatenated(_ parallel: Bool) throws {
        var config = AuditConfiguration()
        config.parallel = parallel
        let separate = try Audit.run([web1, web3], config)
        #expect(separate.sessions.count > 100)
        let dir = temporaryDirectory()
        for (name, first, second) in [("newest-first", web3, web1), ("oldest-first", web1, web3)] {
            shell("cat '\(first)' '\(second)' > '\(dir)/\(name).log.gz'")
            shell("gzip -dc '\(first)' '\(second)' > '\(dir)/\(name).log'")
            for path in ["\(dir)/\(name).log.gz", "\(dir)/\(name).log"] {
                let joined = try Audit.run([path], config)
                #expect(rows(joined).sessions == rows(separate).sessions, "\(path)")
                #expect(rows(joined).findings == rows(separate).findings, "\(path)")
                // The error distribution has no source column: byte-identical.
                #expect(joined.csv[2] == separate.csv[2])
            }
        }
    }

    @Test("a stream on standard input that runs back in time gives the rows of the separate files")
    func standardInput() throws {
        let dir = temporaryDirectory()
        shell("cat '\(web3)' '\(web1)' > '\(dir)/both.gz'")
        let p = Process()
        p.executableURL = Bundle.module.bundleURL.deletingLastPathComponent().appendingPathComponent("flipaudit")
        p.arguments = ["-", "--csv", dir + "/stdin", "--quiet"]
        p.standardInput = FileHandle(forReadingAtPath: dir + "/both.gz")
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        let separate = try Audit.run([web1, web3])
        let streamed = try String(contentsOfFile: dir + "/stdin/findings.csv", encoding: .utf8)
        // findings.csv without its source column, in row order.
        func strip(_ csv: String) -> [String] {
            csv.split(separator: "\n").map { line in String(line[..<line.lastIndex(of: ",")!]) }.sorted()
        }
        #expect(strip(streamed) == strip(separate.csv[1]))
        #expect(strip(separate.csv[1]).count > 100)
    }

    @Test("the sort spills to temporary files past its budget and gives the same bytes", arguments: [1, 7, 1000])
    func spill(_ budget: Int) throws {
        let dir = temporaryDirectory()
        shell("cat '\(web3)' '\(web1)' > '\(dir)/both.log.gz'")
        let inMemory = try Audit.run([dir + "/both.log.gz"])
        var config = AuditConfiguration()
        config.sortBudget = budget
        let spilled = try Audit.run([dir + "/both.log.gz"], config)
        #expect(spilled.csv == inMemory.csv)
        #expect(spilled.sessions.count > 100)
    }

    @Test("inputs in time order give the same bytes from the streaming pass and the sorting pass", arguments: [true, false])
    func passesAgree(_ parallel: Bool) throws {
        var config = AuditConfiguration()
        config.parallel = parallel
        let streamed = try Audit.run(try samplePaths(), config)
        #expect(streamed.accounting.outOfOrderRecords == 0)
        config.alwaysSort = true
        config.sortBudget = 50
        let sorted = try Audit.run(try samplePaths(), config)
        #expect(sorted.csv == streamed.csv)
        #expect(sorted.sessions.count > 400)
    }
}

@Suite("States and codes keyed by their decoded bytes")
struct ExactStateTests {
    @Test("a state that is not UTF-8 returned as U+FFFD is a state-mismatch; it prints as \\xC3")
    func lossyEcho() {
        let r = audit([
            combined(
                1, "/oauth/authorize?client_id=G123&redirect_uri=\(enc(opa))&state=ab%C3", 302,
                location: "\(opa)?code=c1&state=ab%EF%BF%BD")
        ])
        #expect(r.count(.stateMismatch) == 1)
        #expect(r.sessions.map(\.state) == ["ab\\xC3"])
        #expect(r.csv[0].contains("\nab\\xC3,"))
    }

    @Test("states that differ only in bytes that are not UTF-8 are different sessions")
    func distinct() {
        let r = audit([
            combined(1, "/oauth/authorize?client_id=G123&redirect_uri=\(enc(opa))&state=x%C3", 200),
            combined(2, "/oauth/authorize?client_id=G123&redirect_uri=\(enc(opa))&state=x%C4", 200),
            combined(3, "/consent", 302, location: "\(opa)?code=c1&state=x%C4"),
        ])
        #expect(r.sessions.count == 2)
        let outcomes = Dictionary(uniqueKeysWithValues: r.sessions.map { ($0.state, $0.outcome) })
        #expect(outcomes == ["x\\xC3": .pending, "x\\xC4": .code])
        #expect(r.count(.unknownState) == 0)
    }

    @Test("a literal backslash is doubled, so it never prints like an escaped byte")
    func backslash() {
        let r = audit([
            combined(1, "/oauth/authorize?client_id=G123&redirect_uri=\(enc(opa))&state=%5CxC3", 200),
            combined(2, "/oauth/authorize?client_id=G123&redirect_uri=\(enc(opa))&state=%C3", 200),
        ])
        #expect(Set(r.sessions.map(\.state)) == ["\\\\xC3", "\\xC3"])
    }

    @Test("codes that differ only in bytes that are not UTF-8 are different codes")
    func codes() {
        let r = audit([
            combined(1, authorize(state: "s1"), 302, location: "\(opa)?code=k%C3&state=s1"),
            combined(2, authorize(state: "s2"), 302, location: "\(opa)?code=k%C4&state=s2"),
        ])
        #expect(r.count(.codeReuse) == 0)
        let same = audit([
            combined(1, authorize(state: "s1"), 302, location: "\(opa)?code=k%C3&state=s1"),
            combined(2, authorize(state: "s2"), 302, location: "\(opa)?code=k%C3&state=s2"),
        ])
        #expect(same.count(.codeReuse) == 1)
    }
}

@Suite("Event lines read back from the sort's temporary files")
struct EventCodecTests {
    private func event(state: String?, code: String?) -> FlipEvent {
        let allowlist = AuditConfiguration().allowlist
        let request = FlipRequest.texts(
            state: state, clientID: "", clientMismatch: true,
            redirect: RedirectFacts("https://evil.example/a\tb\nc\\d", allowlist: allowlist),
            duplicateParams: [.state, .code], badEncodingParams: [])
        let ret = FlipReturn.texts(
            base: opa, toGoogleHost: true, state: state,
            codeDigest: code.map { Array($0.utf8).withUnsafeBytes { CodeHash($0) } },
            error: nil, errorDescription: "", allowlisted: true, duplicateParams: [], badEncodingParams: [.errorDescription])
        return FlipEvent(
            time: 1_700_000_000_123, source: SourceRef(file: 3, line: 42), clientIP: "::1", status: 302,
            request: request, returned: ret, lineKey: 0x0123_4567_89ab_cdef)
    }

    @Test("every field comes back, tabs, newlines, backslashes, nil and empty apart; the code only as its digest")
    func roundTrip() throws {
        let e = event(state: "a\tb\\n\n", code: "secret-code-value")
        var line: [UInt8] = []
        EventCodec.encode(e, into: &line)
        #expect(line.last == .newline)
        #expect(line.dropLast().firstIndex(of: .newline) == nil)
        #expect(String(decoding: line, as: UTF8.self).contains("secret-code-value") == false)
        var codec = EventCodec(allowlist: AuditConfiguration().allowlist)
        let back = try codec.decode(line.dropLast())
        #expect(back.time == e.time && back.source == e.source && back.clientIP == e.clientIP && back.status == 302)
        #expect(back.request?.state == "a\tb\\n\n")
        #expect(back.request?.clientID == "")
        #expect(back.request?.clientMismatch == true)
        #expect(back.request?.redirectURI == "https://evil.example/a\tb\nc\\d")
        #expect(back.request?.duplicateParams == [.state, .code])
        #expect(back.returned?.errorDescription == "")
        #expect(back.returned?.error == nil)
        #expect(back.returned?.badEncodingParams == [.errorDescription])
        #expect(back.returned?.codeDigest == e.returned?.codeDigest)
        #expect(back.returned?.codeDigest?.key == e.returned?.codeDigest?.key)
        #expect(back.returned?.codeDigest?.description == CodeDigest.of(Array("secret-code-value".utf8)))
        #expect(back.request?.stateHash == e.request?.stateHash)
    }

    @Test("damaged lines are errors, never crashes")
    func damaged() {
        var line: [UInt8] = []
        EventCodec.encode(event(state: "s", code: "c"), into: &line)
        line.removeLast()
        var codec = EventCodec(allowlist: AuditConfiguration().allowlist)
        var generator = SystemRandomNumberGenerator()
        var rejected = 0
        for round in 0..<20_000 {
            var damaged = line
            switch round % 4 {
            case 0: damaged[Int.random(in: 0..<damaged.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            case 1: damaged.removeSubrange(Int.random(in: 0..<damaged.count, using: &generator)...)
            case 2: damaged.insert(.tab, at: Int.random(in: 0...damaged.count, using: &generator))
            default: damaged.remove(at: Int.random(in: 0..<damaged.count, using: &generator))
            }
            if (try? codec.decode(damaged[...])) == nil { rejected += 1 }
        }
        #expect(rejected > 10_000)
        #expect(throws: EventCodec.Malformed.self) { try codec.decode([][...]) }
        #expect(throws: EventCodec.Malformed.self) { try codec.decode(Array("1\t0\t1\t-\t200\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t".utf8)[...]) }
    }
}

@Suite("Rows held for ordering spill instead of leaving early")
struct RowSpillTests {
    /// One state re-requested every 500 s keeps its session open (and all
    /// rows after it waiting) while `count` other sessions come and go.
    private func heldLog(_ count: Int) -> [String] {
        var lines: [String] = []
        for i in 0..<count {
            let t = i * 10
            if i % 50 == 0 { lines.append(line(at: t, authorize(state: "keeper"), 200)) }
            lines.append(line(at: t + 1, authorize(state: "s\(i)"), 302, location: "\(opa)?code=c\(i)&state=s\(i)&error=x"))
        }
        return lines
    }

    @Test("more held rows than the budget: the CSV files are the same bytes, in row order", arguments: [3, 40])
    func spilled(_ budget: Int) throws {
        let path = writeLog(heldLog(600), named: "held.log", in: temporaryDirectory())
        let roomy = try Audit.run([path])
        var config = AuditConfiguration()
        config.rowBudget = budget
        let tight = try Audit.run([path], config)
        #expect(tight.csv == roomy.csv)
        #expect(tight.sessions.count == 601)
        // findings.csv and sessions.csv are sorted by time.
        #expect(tight.sessions.map(\.firstSeen) == tight.sessions.map(\.firstSeen).sorted())
        #expect(tight.findings.map(\.time) == tight.findings.map(\.time).sorted())
        #expect(tight.findings.count >= 600)
    }

    @Test("rows read back from a spill file: every field comes back; damaged lines are errors")
    func codec() throws {
        let r = audit(heldLog(60))
        for s in r.sessions {
            var line: [UInt8] = []
            RowCodec.encode(s, into: &line)
            let back = try RowCodec.session(line.dropLast())
            #expect(String(describing: back) == String(describing: s))
        }
        for f in r.findings {
            var line: [UInt8] = []
            RowCodec.encode(f, into: &line)
            let back = try RowCodec.finding(line.dropLast())
            #expect(String(describing: back) == String(describing: f))
            for cut in [1, line.count / 2] {
                #expect(throws: TextFields.Malformed.self) { try RowCodec.finding(line[..<cut]) }
            }
        }
    }
}

@Suite("Fuzz seeds of what is read back")
struct ReadBackSeedTests {
    /// The committed seeds of the FuzzReadBack target are lines the readers
    /// accept: the fuzzer starts from real structure.
    /// FuzzReadBack's finding: a line key with a capital read as the same
    /// key, and was written back as another line.
    @Test("an event line's hex keys read only as written: lowercase, no leading zero")
    func hexKeys() throws {
        let line =
            "s:RkW1NnX1xMJimgUjPEIg8y\t09223373832156817808\t0000000000\t00000000000000000021\t1795302042000\t0\t21\t198.152.98.30\t302\tR"
            + "\t=RkW1NnX1xMJimgUjPEIg8y\t=1093874651234-flip.apps.googleusercontent.com\t0"
            + "\t=https://oauth-redirect.googleusercontent.com/a/com.google.Chromecast\t\t\t\t\t\t\t\t\t\t\t\t\t\t00000a0000008d07"
        var codec = EventCodec(allowlist: AuditConfiguration().allowlist)
        let (_, event) = try EventLine.decode(Array(line.utf8)[...], codec: &codec)
        var back: [UInt8] = []
        EventLine.encode(event, into: &back)
        #expect(back.dropLast().elementsEqual(line.utf8))
        let capital = line.replacingOccurrences(of: "00000a0000008d07", with: "00000A0000008d07")
        #expect(throws: TextFields.Malformed.self) { try EventLine.decode(Array(capital.utf8)[...], codec: &codec) }
        #expect(TextFields.hex(Array("1f".utf8)[...]) == 31)
        #expect(TextFields.hex(Array("01f".utf8)[...]) == nil)
        #expect(TextFields.hex(Array("1F".utf8)[...]) == nil)
        #expect(TextFields.hex(Array("0".utf8)[...]) == 0)
        for text in ["023", "+23", "-0", "-023", "", "-"] {
            #expect(throws: TextFields.Malformed.self) { try TextFields.number(Array(text.utf8)[...], "n") }
        }
        #expect(try TextFields.number(Array("-23".utf8)[...], "n") == -23)
        #expect(try TextFields.number(Array("0".utf8)[...], "n") == 0)
    }

    /// FuzzReadBack's finding: every stage event line it accepts is written
    /// back as the same bytes (`event-lines-twice-written`, from the fuzzer).
    @Test("a stage event line read back writes back as the line it was")
    func eventLinesWriteBack() throws {
        let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fuzz/Corpus/FuzzReadBack").path
        var codec = EventCodec(allowlist: Allowlist(projectIDs: ["my-project"]))
        var accepted = 0
        for line in FileManager.default.contents(atPath: dir + "/event-lines-twice-written")!.split(separator: 0x0A) {
            guard let (_, event) = try? EventLine.decode(ArraySlice(line), codec: &codec) else { continue }
            accepted += 1
            var once: [UInt8] = []
            EventLine.encode(event, into: &once)
            #expect(once.dropLast().elementsEqual(line), "\(String(decoding: line, as: UTF8.self))")
        }
        #expect(accepted > 0)
    }

    @Test("every seed line of Fuzz/Corpus/FuzzReadBack reads")
    func seeds() throws {
        let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fuzz/Corpus/FuzzReadBack").path
        let checkpoint = try Checkpoint.decode(Array(FileManager.default.contents(atPath: dir + "/checkpoint-400-lines")!))
        #expect(checkpoint.openSessions > 0)
        let v2 = try Checkpoint.decode(Array(FileManager.default.contents(atPath: dir + "/checkpoint-v2")!))
        #expect(v2.openSessions > 0 && v2.run == 1 && !v2.records.isEmpty && v2.audited.count == 1)
        // Two runs' totals: the second found what the first did not.
        let totals = try Checkpoint.decode(Array(FileManager.default.contents(atPath: dir + "/checkpoint-v2-totals")!))
        #expect(totals.totals.map(\.run) == [1, 2] && totals.totals[1].findings["state-mismatch"] == 1)
        #expect(totals.totals[0].errors == ["cancelled": 1] && totals.totals[0].findings.isEmpty)
        var codec = EventCodec(allowlist: AuditConfiguration().allowlist)
        let events = FileManager.default.contents(atPath: dir + "/event-lines")!.split(separator: 0x0A)
        #expect(events.count == 2)
        for line in events { _ = try codec.decode(ArraySlice(line)) }
        let rows = FileManager.default.contents(atPath: dir + "/row-lines")!.split(separator: 0x0A)
        _ = try RowCodec.session(ArraySlice(rows[0]))
        _ = try RowCodec.finding(ArraySlice(rows[1]))
    }
}
