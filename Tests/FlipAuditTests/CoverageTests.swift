import Foundation
import Testing

/// Clean is not blind: every verdict and every gap, through the command.
@Suite("Coverage")
struct CoverageTests {
    static let now = "2026-11-22T12:00:00Z"
    /// A night whose sessions all return (Location logged).
    static let good = [
        combined(1, authorize(state: "c1"), 302, location: opa + "?code=k1&state=c1"),
        combined(2, authorize(state: "c2"), 302, location: opa + "?error=access_denied&state=c2"),
        combined(3, "/", 200),
    ]

    /// The JSON report's coverage: verdict, the gaps' checks, unseen IDs.
    static func coverage(_ json: String) throws -> (String, [String], [String]) {
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let c = try #require(doc["coverage"] as? [String: Any])
        let gaps = try #require(c["gaps"] as? [[String: Any]])
        return (c["verdict"] as! String, gaps.map { $0["check"] as! String }, c["unseen_client_ids"] as! [String])
    }

    @Test("everything checked: complete, first in the summary and on its last line")
    func complete() throws {
        let dir = temporaryDirectory()
        let log = writeLog(Self.good, named: "a.log", in: dir)
        let run = try runCLI([log, "--client-id", googleClient, "--now", Self.now, "--no-color", "--json", dir + "/r.json"])
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("COVERAGE  complete: every check ran on every input\n"))
        #expect(run.stdout.hasSuffix("\nCOMPLETE · FINDINGS 0\n"))
        #expect(try Self.coverage(String(contentsOfFile: dir + "/r.json", encoding: .utf8)) == ("complete", [], []))
    }

    @Test("an unreadable night: blind, exit 5 whatever --fail-on says, no PASS, the metrics say so")
    func unreadableNight() throws {
        let dir = temporaryDirectory()
        let log = writeLog(["hello", "world", "<html>", "not a log line"], named: "night.log", in: dir)
        for failOn in ["never", "high"] {
            let run = try runCLI([
                log, "--fail-on", failOn, "--now", Self.now, "--no-color", "--json", dir + "/r.json", "--html", dir + "/r.html",
                "--metrics", dir + "/m.prom",
            ])
            #expect(run.status == 5, "\(failOn): \(run.stderr)")
            // Read as words: the heading says what a blind run means.
            #expect(run.stdout.hasPrefix("BLIND  the input was not understood: no finding below does not mean the logs are clean\n"))
            // Wrapped at 120 columns: read as one line.
            #expect(run.stdout.replacingOccurrences(of: "\n    ", with: " ").contains("night.log: 100% of its 4 lines not understood (format none)"))
            #expect(run.stdout.hasSuffix("\nBLIND · FINDINGS 0\n"))
            let (verdict, checks, _) = try Self.coverage(String(contentsOfFile: dir + "/r.json", encoding: .utf8))
            #expect(verdict == "blind" && checks == ["read"])
            let html = try String(contentsOfFile: dir + "/r.html", encoding: .utf8)
            #expect(html.contains("data-verdict=\"blind\"") && !html.contains("PASS"))
            #expect(html.contains("BLIND: the input was not understood: no finding below does not mean the logs are clean (exit status 5)."))
            let metrics = try String(contentsOfFile: dir + "/m.prom", encoding: .utf8)
            #expect(metrics.contains("flipaudit_coverage{verdict=\"blind\"} 1\n") && metrics.contains("flipaudit_last_run_exit_status 5\n"))
            #expect(metrics.contains("flipaudit_coverage_gaps{check=\"read\"} 1\n"))
        }
    }

    @Test("one unreadable input among good ones is blind, named; a readable minority is not")
    func oneBadInput() throws {
        let dir = temporaryDirectory()
        let good = writeLog(Self.good, named: "good.log", in: dir)
        let caddyish = writeLog(["{\"level\":\"info\",\"msg\":\"x\"}", "{\"level\":\"info\",\"msg\":\"y\"}", Self.good[2]], named: "app.json", in: dir)
        let run = try runCLI([good, caddyish, "--client-id", googleClient, "--now", Self.now, "--json", "-", "--quiet"])
        #expect(run.status == 5)
        let (verdict, checks, _) = try Self.coverage(run.stdout)
        #expect(verdict == "blind" && checks == ["read"])
        #expect(run.stdout.contains("app.json: 66% of its 3 lines not understood (format combined)"))
        // JSON objects with no request fields are malformed lines, said so.
        #expect(run.stdout.contains("\"no request fields\" : 2"))
        // One bad line in three is a partial read, not blindness.
        let some = writeLog(Self.good + ["garbage"], named: "some.log", in: dir)
        let partial = try runCLI([some, "--client-id", googleClient, "--now", Self.now, "--json", "-", "--quiet"])
        #expect(partial.status == 0)
        #expect(try Self.coverage(partial.stdout).0 == "complete")
    }

    @Test("client IDs: not given, or given and carried by no request, is a gap; the unseen one is named")
    func clientIDs() throws {
        let dir = temporaryDirectory()
        let log = writeLog(Self.good, named: "a.log", in: dir)
        let none = try runCLI([log, "--now", Self.now, "--json", "-", "--quiet"])
        #expect(try Self.coverage(none.stdout) == ("partial", ["client-id"], []))
        #expect(none.stdout.contains("client IDs not checked: no --client-id given"))
        let typo = try runCLI([log, "--client-id", "G12", "--now", Self.now, "--json", "-", "--quiet"])
        #expect(try Self.coverage(typo.stdout) == ("partial", ["client-id"], []))
        #expect(typo.stdout.contains("no in-scope request carried --client-id G12 (a typo?)"))
        let oneOfTwo = try runCLI([log, "--client-id", "G12", "--client-id", googleClient, "--now", Self.now, "--json", "-", "--quiet"])
        #expect(try Self.coverage(oneOfTwo.stdout) == ("complete", [], ["G12"]))
    }

    @Test("nothing could be read (a missing file): the errors and the verdict, not a report of zeros")
    func nothingRead() throws {
        let dir = temporaryDirectory()
        let run = try runCLI([dir + "/missing.log", dir + "/gone.gz", "--no-color"])
        #expect(run.status == 3)
        #expect(run.stdout.contains("INPUT  nothing could be read\n  error: \(dir)/missing.log: no such file or directory\n"))
        #expect(!run.stdout.contains("SESSIONS") && !run.stdout.contains("LATENCY"))
        #expect(run.stdout.hasSuffix("\nPARTIAL · FINDINGS 0\n"))
        // One input read: the whole report, its error in INPUT.
        let one = try runCLI([dir + "/missing.log", writeLog([combined(1, "/", 200)], named: "ok.log", in: dir), "--no-color"])
        #expect(one.status == 3 && one.stdout.contains("SESSIONS") && !one.stdout.contains("nothing could be read"))
    }

    @Test("no Location logged: the return checks did not run, named per input with its format")
    func noLocation() throws {
        let dir = temporaryDirectory()
        let log = writeLog([combined(1, authorize(state: "n1"), 302, location: nil)], named: "stock.log", in: dir)
        let run = try runCLI([log, "--client-id", googleClient, "--now", Self.now, "--no-color"])
        #expect(run.status == 0)
        let flat = run.stdout.replacingOccurrences(of: "\n    ", with: " ")
        #expect(flat.hasPrefix("COVERAGE  partial: some checks did not run\n  - returns to Google not observable (no Location logged) in "))
        #expect(flat.contains("stock.log (combined)"))
        #expect(run.stdout.hasSuffix("\nPARTIAL · FINDINGS 0\n"))
    }

    @Test("a blind night leaves the checkpoint as it was; the night is audited again once readable")
    func blindKeepsTheChain() throws {
        let dir = temporaryDirectory()
        let cp = dir + "/chain.ckpt"
        let first = writeLog(Self.good, named: "n1.log", in: dir)
        #expect(try runCLI([first, "--checkpoint", cp, "--client-id", googleClient, "--now", Self.now, "--quiet"]).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: cp))
        // The next night's server changed its format: flipaudit cannot read it.
        let night = writeLog(["GET /x 200 10:00:05", "GET /y 200 10:00:06"], named: "n2.log", in: dir)
        let blind = try runCLI([night, "--checkpoint", cp, "--client-id", googleClient, "--now", Self.now, "--quiet"])
        #expect(blind.status == 5)
        #expect(blind.stderr.contains("left as it was: the run was blind"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: cp)) == before)
    }
}

@Suite("Coverage beyond the one-process run")
struct CoverageDriverTests {
    @Test("explain over a blind night says so and exits 5, as the run does")
    func explainBlind() throws {
        let dir = temporaryDirectory()
        let log = writeLog(["hello", "world"], named: "night.log", in: dir)
        let run = try runCLI(["explain", "s1", log, "--now", CoverageTests.now])
        #expect(run.status == 5)
        #expect(run.stderr.contains("explain: blind: ") && run.stderr.contains("night.log: 100% of its 2 lines not understood"))
    }
}

@Suite("--since and --until")
struct WindowTests {
    @Test("only records in [since, until) are audited; the others are counted and the cut is said")
    func window() throws {
        let dir = temporaryDirectory()
        let evil = "https://oauth-redirect.googleusercontent.com.evil.example/a/com.google.OPA"
        let log = writeLog(
            [
                // Before the window: a critical finding that must not be audited.
                combined(5, authorize(state: "early", redirect: evil), 302, location: evil + "?code=e1&state=early"),
                combined(10, authorize(state: "in1"), 302, location: opa + "?code=k1&state=in1"),
                // Opens inside, returns after the edge.
                combined(20, authorize(state: "cut"), 200),
                combined(40, "/consent?state=cut", 302, location: opa + "?code=k2&state=cut"),
            ], named: "a.log", in: dir)
        let run = try runCLI([
            log, "--since", "2026-11-22T10:00:08Z", "--until", "2026-11-22T10:00:30Z", "--client-id", googleClient, "--now",
            CoverageTests.now, "--no-color", "--csv", dir + "/csv",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("outside the window   2  (since 2026-11-22T10:00:08.000Z, until 2026-11-22T10:00:30.000Z; left out"))
        let sessions = try String(contentsOfFile: dir + "/csv/sessions.csv", encoding: .utf8)
        #expect(!sessions.contains("early") && sessions.contains("in1,") && sessions.contains("cut,"))
        #expect(!(try String(contentsOfFile: dir + "/csv/findings.csv", encoding: .utf8)).contains("code-to-unlisted-redirect"))
        // Left-out records are a gap: never a complete, clean run.
        #expect(run.stdout.hasPrefix("COVERAGE  partial") && run.stdout.contains("2 records outside --since/--until were not audited"))
        let empty = try runCLI([
            log, "--since", "2026-11-22T12:00:00Z", "--client-id", googleClient, "--now", CoverageTests.now, "--json", "-", "--quiet",
        ])
        #expect(try CoverageTests.coverage(empty.stdout) == ("partial", ["window"], []))
        #expect(empty.stdout.contains("no record fell inside the window"))
        let bad = try runCLI([log, "--since", "2026-11-22T11:00:00Z", "--until", "2026-11-22T10:00:00Z"])
        #expect(bad.status == 2 && bad.stderr.contains("is not before --until"))
    }
}
