import Foundation
import Testing

@testable import Audit
@testable import Reports
@testable import Rules

/// The findings of every story, with the session each belongs to.
private func storyFindings(_ e: Explanation) -> [Finding] {
    e.sessions.flatMap(\.findings) + e.outside.flatMap { $0.decisions.compactMap { if case .finding(let f) = $0 { f } else { nil } } }
}

private func same(_ a: Finding, _ b: Finding) -> Bool {
    a.kind == b.kind && a.source == b.source && a.state == b.state && a.detail == b.detail && a.time == b.time
}

@Suite("flipaudit explain: one session's story (docs/contract.md §11)")
struct ExplainTests {
    /// docs/contract.md §11: the story is the audit's own. For the first
    /// finding of every kind on the samples, explaining its state (or its
    /// `FILE:LINE` when it has none) shows every finding and session row
    /// the full run wrote for that state: same kinds, same sources, same
    /// outcomes.
    @Test("every finding kind on the samples: the story holds the full run's findings and session rows")
    func everyKind() throws {
        let full = try Audit.run([sampleLogs], AuditConfiguration())
        var firsts: [FindingKind: Finding] = [:]
        for f in full.findings where firsts[f.kind] == nil { firsts[f.kind] = f }
        // The samples hold every kind but the client-ID ones (no --client-id).
        #expect(firsts.count >= 19)
        let analyzer = Analyzer(configuration: AuditConfiguration())
        for (kind, f) in firsts.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            let target = f.state.isEmpty ? full.result.describe(f.source) : f.state
            let e = try analyzer.explain(target, arguments: [sampleLogs])
            #expect(e.found, "\(kind)")
            let told = storyFindings(e)
            #expect(told.contains { same($0, f) }, "\(kind): the finding itself")
            if f.state.isEmpty {
                #expect(e.target == .source(file: full.result.describe(f.source).split(separator: ":").dropLast().joined(), line: f.source.line))
                continue
            }
            // Every finding and session row of the full run with this state.
            for g in full.findings where g.state == f.state {
                #expect(told.contains { same($0, g) }, "\(kind): \(g.kind) at \(full.result.describe(g.source))")
            }
            let rows = full.sessions.filter { $0.state == f.state }
            #expect(rows.count == e.sessions.count, "\(kind): one story per session")
            for row in rows {
                let story = e.sessions.first { $0.source == row.source }
                #expect(story?.outcome == row.outcome, "\(kind): outcome of the session at \(full.result.describe(row.source))")
                #expect(story.map { Set($0.findings.map(\.kind)) } == Set(row.findings), "\(kind): the row's findings")
            }
            // Every record of a story was audited in order: times never run back.
            for s in e.sessions {
                let times = s.entries.map(\.time)
                #expect(times == times.sorted(), "\(kind): audit order")
            }
        }
    }

    @Test("a code digest shows both sessions of a code-reuse, each told where the other got it")
    func codeDigest() throws {
        let full = try Audit.run([sampleLogs], AuditConfiguration())
        let reuse = try #require(full.findings.first { $0.kind == .codeReuse })
        let digest = try #require(reuse.detail.split(separator: " ").map(String.init).first { $0.hasPrefix("sha256:") })
        let e = try Analyzer(configuration: AuditConfiguration()).explain(digest, arguments: [sampleLogs])
        #expect(e.target == .digest(digest))
        #expect(e.sessions.count == 2)
        let first = e.sessions[0], second = e.sessions[1]
        #expect(second.findings.contains { same($0, reuse) })
        #expect(
            first.entries.contains {
                $0.decisions.contains { if case .codeSeenAgain(digest, second.state, reuse.source) = $0 { true } else { false } }
            })
        #expect(
            second.entries.contains {
                $0.decisions.contains { if case .codeFirstReturned(digest, first.state, _) = $0 { true } else { false } }
            })
        // The first session received it without a finding of its own for it.
        #expect(!first.findings.contains { $0.kind == .codeReuse })
    }

    @Test("a return outside any session is found by FILE:LINE and by its state; unknown text matches nothing")
    func outside() throws {
        let full = try Audit.run([sampleLogs], AuditConfiguration())
        let unknown = try #require(full.findings.first { $0.kind == .unknownState })
        let analyzer = Analyzer(configuration: AuditConfiguration())
        let byLine = try analyzer.explain(full.result.describe(unknown.source), arguments: [sampleLogs])
        #expect(byLine.sessions.isEmpty && byLine.outside.count == 1)
        #expect(byLine.outside.first?.source == unknown.source)
        let byState = try analyzer.explain(unknown.state, arguments: [sampleLogs])
        #expect(storyFindings(byState).contains { same($0, unknown) })
        let none = try analyzer.explain("no-such-state-anywhere", arguments: [sampleLogs])
        #expect(!none.found)
        // A line that is no flip record matches nothing.
        #expect(try !analyzer.explain(full.result.describe(SourceRef(file: 0, line: 1_000_000)), arguments: [sampleLogs]).found)
    }

    @Test("ip:ADDR: every session row of that client address, and no other; a state that begins ip: stays a state")
    func address() throws {
        let full = try Audit.run([sampleLogs], AuditConfiguration())
        // The client with the most sessions on the samples.
        let counts = Dictionary(grouping: full.sessions, by: \.clientIP).mapValues(\.count)
        let (ip, rows) = try #require(counts.max { ($0.value, $1.key) < ($1.value, $0.key) })
        #expect(rows >= 1)
        let story = try Analyzer(configuration: AuditConfiguration()).explain("ip:" + ip, arguments: [sampleLogs])
        #expect(story.target == .address(ip))
        // Its sessions are those whose first request came from it, and any
        // another address's session a record from it took part in.
        let opened = Set(full.sessions.filter { $0.clientIP == ip }.map(\.source))
        let told = Set(story.sessions.map(\.source))
        #expect(opened.isSubset(of: told) && !opened.isEmpty)
        for s in story.sessions where !opened.contains(s.source) {
            #expect(s.entries.contains { $0.record?.clientIP == ip }, "\(s.state)")
        }
        #expect(ExplainReport.text(story).contains("client address \(ip)"))
        #expect(ExplainTarget.parse("ip:state-value", names: []) == .state("ip:state-value"))
        #expect(ExplainTarget.parse("ip:2001:db8::7", names: []) == .address("2001:db8::7"))
        #expect(try !Analyzer(configuration: AuditConfiguration()).explain("ip:192.0.2.254", arguments: [sampleLogs]).found)
    }

    @Test("each record shows its line as written: method, path, status, User-Agent, Referer; codes only as digests")
    func recordLines() throws {
        let dir = temporaryDirectory()
        let log = writeLog(
            [
                #"203.0.113.9 - - [22/Nov/2026:10:00:01 +0000] "GET \#(authorize(state: "rl")) HTTP/1.1" 200 0 "https://partner.example/start" "Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0" "-""#,
                #"203.0.113.9 - - [22/Nov/2026:10:00:05 +0000] "POST /consent?code=PLAINCODE1&state=rl HTTP/1.1" 302 0 "-" "Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0" "\#(opa)?code=PLAINCODE1&state=rl""#,
            ], named: "desk.log.gz", in: dir)
        let story = try Analyzer(configuration: AuditConfiguration()).explain("rl", arguments: [log])
        let entries = try #require(story.sessions.first?.entries.filter { $0.source != nil })
        #expect(entries.count == 2)
        let first = try #require(story.lines[entries[0].source!])
        #expect(first.method == "GET" && first.path.hasPrefix("/oauth/authorize?") && first.status == 200)
        #expect(first.text.contains("\"https://partner.example/start\" \"Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0\""))
        let second = try #require(story.lines[entries[1].source!])
        let digest = CodeDigest.of(Array("PLAINCODE1".utf8))
        #expect(second.method == "POST" && second.path == "/consent?code=\(digest)&state=rl" && second.status == 302)
        #expect(second.text.components(separatedBy: "code=\(digest)").count == 3)
        // The code is nowhere in clear, in the text or the JSON.
        let text = ExplainReport.text(story)
        let json = try ExplainReport.json(story)
        #expect(!text.contains("PLAINCODE1") && !json.contains("PLAINCODE1"))
        #expect(text.contains("      request: GET /oauth/authorize?") && text.contains("Firefox/133.0"))
        #expect(json.contains("\"method\" : \"POST\""))
    }

    @Test("a line's secrets are replaced wherever a URL in it carries one; other parameters stay")
    func redactLine() {
        let d = CodeDigest.of(Array("a b".utf8))
        #expect(CodeDigest.redactLine("GET /cb?code=a+b HTTP/1.1") == "GET /cb?code=\(d) HTTP/1.1")
        #expect(CodeDigest.redactLine("GET /cb?state=s&code=a%20b\"") == "GET /cb?state=s&code=\(d)\"")
        #expect(CodeDigest.redactLine(#"{"l":"https://g/a?state=s\u0026code=a%20b"}"#) == #"{"l":"https://g/a?state=s\u0026code=\#(d)"}"#)
        #expect(CodeDigest.redactLine("x?response_type=code&access_token=a+b#id_token=a%20b") == "x?response_type=code&access_token=\(d)#id_token=\(d)")
        #expect(CodeDigest.redactLine("/a?barcode=1&mycode=2") == "/a?barcode=1&mycode=2")
    }

    @Test("decisions: a repeated request joins, a second return is counted, an expiry closes, a 503 fails")
    func decisions() throws {
        let dir = temporaryDirectory()
        let log = writeLog(
            [
                combined(0, authorize(state: "A"), 200),
                combined(5, authorize(state: "A"), 200),
                combined(9, "/oauth/consent", 302, location: "\(opa)?code=SECRETCODE1&state=A"),
                combined(12, "/oauth/consent", 302, location: "\(opa)?code=SECRETCODE2&state=A"),
                combined(20, authorize(state: "B"), 503),
            ], named: "access.log", in: dir)
        let analyzer = Analyzer(configuration: AuditConfiguration())
        let a = try analyzer.explain("A", arguments: [log])
        #expect(a.sessions.count == 1)
        let decisions = a.sessions[0].entries.flatMap(\.decisions).map { ExplainReport.decisionName($0) }
        #expect(decisions.prefix(4) == ["opened", "joined", "returned", "returned"])
        #expect(decisions.contains("finding") && decisions.last == "closed")
        #expect(a.sessions[0].findings.map(\.kind) == [.duplicateReturn])
        let text = ExplainReport.text(a)
        #expect(!text.contains("SECRETCODE"))
        #expect(text.contains("sha256:"))
        let json = try ExplainReport.json(a)
        #expect(!json.contains("SECRETCODE"))
        let b = try analyzer.explain("B", arguments: [log])
        #expect(b.sessions[0].outcome == .failed)
        #expect(b.sessions[0].entries.flatMap(\.decisions).map { ExplainReport.decisionName($0) }.prefix(2) == ["opened", "failed"])
    }

    @Test("closed early under --max-sessions, closed by a new request after its return, and carried out: each said")
    func closings() throws {
        let dir = temporaryDirectory()
        let log = writeLog(
            [
                combined(0, authorize(state: "E"), 200),
                combined(1, authorize(state: "F"), 302, location: "\(opa)?code=C1&state=F"),
                combined(2, authorize(state: "F"), 302, location: "\(opa)?code=C2&state=F"),
            ], named: "access.log", in: dir)
        var config = AuditConfiguration()
        config.maxSessions = 1
        let evicted = try Analyzer(configuration: config).explain("E", arguments: [log])
        #expect(evicted.sessions.map(\.outcome) == [.closedEarly])
        let closed = evicted.sessions[0].entries.flatMap(\.decisions).compactMap { if case .closed(_, let why) = $0 { why } else { nil } }
        #expect(closed == [TraceStep.Closing.evicted.rawValue])
        let f = try Analyzer(configuration: AuditConfiguration()).explain("F", arguments: [log])
        #expect(f.sessions.count == 2)
        #expect(f.sessions[0].entries.flatMap(\.decisions).contains { if case .closed(.code, "state used again") = $0 { true } else { false } })
        #expect(f.sessions[1].findings.map(\.kind) == [.stateReuse])
        // With a checkpoint, a session still open at the end is carried out, not closed.
        var keyed = AuditConfiguration()
        keyed.fingerprint = .keyed(Fingerprint.newKey())
        let carried = try Analyzer(configuration: keyed).explain("E", arguments: [log], carried: nil)
        #expect(carried.sessions[0].outcome == .pending)
        let start = try #require(try Analyzer(configuration: keyed).run([writeLog([combined(0, "/", 200)], named: "a.log", in: dir)], carry: true).checkpoint)
        let open = try Analyzer(configuration: keyed).explain("E", arguments: [log], carried: start)
        #expect(open.sessions[0].outcome == nil)
        #expect(ExplainReport.decisionName(open.sessions[0].entries.last!.decisions.last!) == "carried-out")
        #expect(ExplainReport.text(open).contains("outcome open (carried out)"))
    }

    @Test("text from logs is escaped in the story; the JSON is the same story as data")
    func escaped() throws {
        let dir = temporaryDirectory()
        let evil = "x\u{1B}[31mred"
        let log = writeLog([combined(0, authorize(state: evil), 302, location: "\(opa)?error=bad%1B%5B2J&state=\(enc(evil))")], named: "a.log", in: dir)
        let e = try Analyzer(configuration: AuditConfiguration()).explain(evil, arguments: [log])
        #expect(e.found)
        let text = ExplainReport.text(e)
        #expect(!text.unicodeScalars.contains("\u{1B}"))
        let json = try ExplainReport.json(e)
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let sessions = try #require(doc["sessions"] as? [[String: Any]])
        #expect(sessions.count == 1)
        #expect(sessions[0]["state"] as? String == evil)
        let kinds = (sessions[0]["findings"] as? [[String: Any]])?.compactMap { $0["kind"] as? String }
        #expect(kinds == e.sessions[0].findings.map(\.kind.rawValue))
    }

    @Test("with the checkpoint, a session carried in is told from its carrying in to the outcome the chained run wrote")
    func carried() throws {
        var config = AuditConfiguration()
        config.fingerprint = .keyed(Fingerprint.newKey())
        let first = try Analyzer(configuration: config).run([sampleLogs], carry: true)
        var checkpoint = try #require(first.checkpoint)
        checkpoint.key = config.fingerprint.keyBytes ?? []
        let carried = try #require(checkpoint.sessions.first { !$0.state.isEmpty })
        let rows = RowCollector()
        _ = try Analyzer(configuration: config).run([sampleLogs + "-next"], rows: [rows], carry: true, carried: checkpoint)
        let row = rows.sessions.first { $0.state == carried.state }
        let e = try Analyzer(configuration: config).explain(carried.state, arguments: [sampleLogs + "-next"], carried: checkpoint)
        let story = try #require(e.sessions.first)
        #expect(ExplainReport.decisionName(story.entries[0].decisions[0]) == "carried-in")
        #expect(story.outcome == row?.outcome)
    }
}

@Suite("flipaudit explain through the command line")
struct ExplainCommandTests {
    @Test("exit status as grep's: 0 found, 1 nothing (said), 2 usage, 3 an input not read completely")
    func status() throws {
        let found = try runCLI(["explain", "WyaCFvmDHWtz26-p2vSb3Q", sampleLogs])
        #expect(found.status == 0)
        #expect(found.stdout.contains("missing-error-return"))
        // A job's output options are taken as they are: the same story.
        let plain = try runCLI(["explain", "WyaCFvmDHWtz26-p2vSb3Q", sampleLogs, "--no-color", "--color", "never"])
        #expect(plain.status == 0 && plain.stdout == found.stdout)
        let none = try runCLI(["explain", "no-such-state", sampleLogs])
        #expect(none.status == 1)
        #expect(none.stdout.isEmpty && none.stderr.contains("matches no session and no record"))
        #expect(try runCLI(["explain", "x"]).status == 2)
        #expect(try runCLI(["explain", "x", sampleLogs, "--session-timeout", "0"]).status == 2)
        #expect(try runCLI(["explain", "x", sampleLogs, "--checkpoint", temporaryDirectory() + "/missing"]).status == 2)
        let broken = try runCLI(["explain", "s1", fixture("truncated.log.gz")])
        #expect(broken.status == 3)
        let json = try runCLI(["explain", "--json", "WyaCFvmDHWtz26-p2vSb3Q", sampleLogs])
        #expect(json.status == 0)
        let doc = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect((doc?["sessions"] as? [Any])?.count == 1)
        #expect(try runCLI(["explain", "--help"]).status == 0)
    }

    @Test("a target in any form an output prints it: '-guarded, leading -, terminal escapes, an upper-case digest")
    func targetForms() throws {
        let full = try Audit.run([sampleLogs], AuditConfiguration())
        let dashed = try #require(full.sessions.first { $0.state.hasPrefix("-") }?.state)
        let controlled = try #require(full.sessions.first { $0.state.unicodeScalars.contains { $0.value == 0x1B } }?.state)
        let digest = try #require(full.findings.first { $0.kind == .codeReuse }?.detail.split(separator: " ").first { $0.hasPrefix("sha256:") })
        for (form, state) in [
            (dashed, dashed), ("'" + dashed, dashed), (TerminalText.escape(controlled), controlled),
            ("sha256:" + digest.dropFirst(7).uppercased(), nil),
        ] as [(String, String?)] {
            let run = try runCLI(["explain", form, sampleLogs, "--json"])
            #expect(run.status == 0, "\(form): \(run.stderr)")
            let doc = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
            let sessions = doc?["sessions"] as? [[String: Any]] ?? []
            #expect(!sessions.isEmpty, "\(form)")
            if let state { #expect(sessions.contains { ($0["state"] as? String) == state }, "\(form)") }
        }
        // First on the line, what is no option of explain's is a state; an
        // unknown option after the target stays a usage error.
        let unknown = try runCLI(["explain", "-" + dashed, sampleLogs])
        #expect(unknown.status == 1 && unknown.stderr.contains("matches no session"))
        #expect(try runCLI(["explain", dashed, sampleLogs, "--no-such-option"]).status == 2)
    }

    @Test("with --checkpoint it takes no lock and writes nothing")
    func readOnly() throws {
        let dir = temporaryDirectory()
        let checkpoint = dir + "/cp"
        #expect(try runCLI([sampleLogs, "--checkpoint", checkpoint, "--quiet"]).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: checkpoint))
        let lockBefore = FileManager.default.fileExists(atPath: checkpoint + ".lock")
        let run = try runCLI(["explain", "no-such-state", sampleLogs + "-next", "--checkpoint", checkpoint])
        #expect(run.status == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: checkpoint)) == before)
        #expect(FileManager.default.fileExists(atPath: checkpoint + ".lock") == lockBefore)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == (lockBefore ? ["cp", "cp.lock"] : ["cp"]))
    }
}

@Suite("flipaudit explain replays the nightly job")
struct ExplainReplayTests {
    /// A combined line at a time of 22 or 23 November.
    static func line(_ time: String, _ target: String, _ status: Int, _ location: String = "-") -> String {
        "203.0.113.9 - - [\(time) +0000] \"GET \(target) HTTP/1.1\" \(status) 0 \"-\" \"GoogleApp/1.0\" \"\(location)\""
    }

    @Test(
        "--config takes the job's options, checkpoint and inputs; FILE.prev replays a night whose session opened the night before; the first night replays from nothing"
    )
    func replay() throws {
        let dir = temporaryDirectory()
        // Night 1 opens a session just before midnight; night 2 returns a
        // code for it to a look-alike host: a critical finding of night 2
        // whose request is in night 1.
        let n1 = writeLog(
            [Self.line("22/Nov/2026:23:59:50", authorize(state: "late1", redirect: opa), 200)], named: "n1.log", in: dir)
        let evil = "https://oauth-redirect.googleusercontent.com.evil.example/a/com.google.OPA"
        let n2 = writeLog(
            [Self.line("23/Nov/2026:00:00:20", "/consent?state=late1", 302, "\(evil)?code=k9&state=late1")], named: "n2.log", in: dir)
        let cp = dir + "/chain.ckpt"
        let config = dir + "/job.toml"
        try """
        checkpoint = "\(cp)"
        client-id = ["\(googleClient)"]
        csv = "\(dir)/csv"
        quiet = true
        """.write(toFile: config, atomically: true, encoding: .utf8)
        #expect(try runCLI(["--config", config, n1, "--now", "2026-11-23T00:00:10Z"]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: cp + ".prev"))
        // The morning after the chain's first night: nothing stood before
        // it, so explain replays night 1 from nothing (no .prev needed).
        let first = try runCLI(["explain", "late1", "--config", config, n1, "--now", "2026-11-23T00:00:10Z"])
        #expect(first.status == 0 && first.stdout.contains("n1.log:1"), "\(first.stderr)")
        #expect(try runCLI(["--config", config, n2, "--now", "2026-11-23T02:00:00Z"]).status == 0)
        // The commit kept the checkpoint it replaced.
        #expect(FileManager.default.fileExists(atPath: cp + ".prev"))
        let findings = try String(contentsOfFile: dir + "/csv/findings.csv", encoding: .utf8)
        #expect(findings.contains("code-to-unlisted-redirect,late1,"))
        // explain with the job's file: its client ID, its checkpoint as it
        // stood before night 2 (FILE.prev), night 2's input; the output
        // keys (csv, quiet) are not explain's and are left out.
        let story = try runCLI(["explain", "late1", "--config", config, n2, "--now", "2026-11-23T02:00:00Z"])
        #expect(story.status == 0, "\(story.stderr)")
        #expect(story.stdout.contains("code-to-unlisted-redirect"))
        #expect(story.stdout.contains("n1.log:1"))
        // With the live checkpoint alone (no .prev beside it) the night is
        // refused, saying what explain needs (it never writes).
        try FileManager.default.copyItem(atPath: cp, toPath: cp + "x")
        let live = try runCLI(["explain", "late1", "--checkpoint", cp + "x", n2])
        #expect(live.status == 2 && live.stderr.contains("give explain the checkpoint as it was before run 2"), "\(live.stderr)")
        #expect(!live.stderr.contains("nothing written"))
        // The file's inputs when the command line names none.
        try (String(contentsOfFile: config, encoding: .utf8) + "\ninputs = [\"\(n2)\"]\n").write(toFile: config, atomically: true, encoding: .utf8)
        let fromFile = try runCLI(["explain", "late1", "--config", config, "--now", "2026-11-23T02:00:00Z"])
        #expect(fromFile.status == 0 && fromFile.stdout.contains("code-to-unlisted-redirect"), "\(fromFile.stderr)")
    }
}
