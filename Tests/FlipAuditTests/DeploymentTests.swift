import Foundation
import Testing

@testable import Audit
@testable import Rules

/// A combined line at a full timestamp (`21/Nov/2026:23:56:00`).
private func line(_ time: String, _ target: String, _ status: Int = 200, _ location: String = "-") -> String {
    "203.0.113.9 - - [\(time) +0000] \"GET \(target) HTTP/1.1\" \(status) 0 \"-\" \"GoogleApp/1.0\" \"\(location)\""
}

/// The JSON report of a run, parsed.
private func json(_ path: String) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
}

/// The rows of a CSV file, header left out.
private func rows(_ path: String) throws -> [String] {
    try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").dropFirst().map(String.init)
}

/// Reads a summary as one text: its lines wrapped at 120 columns joined.
private func flat(_ text: String) -> String { text.replacingOccurrences(of: "\n        ", with: " ").replacingOccurrences(of: "\n    ", with: " ") }

/// A deployment's logs, not a pile of files (docs/contract.md §9): streams,
/// quiet servers, cuts, a file seen before; understood is not blind (§5).
@Suite("A deployment's logs")
struct DeploymentTests {
    @Test("one server's rotated files share a base name; other servers' do not")
    func baseNames() {
        for name in [
            "access.log", "access.log.1", "access.log.2.gz", "/var/log/nginx/access.log.12.gz", "access.log-20261122",
            "access.log-20261122.gz", "access.2026-11-22.log", "logs/access.log.1.bz2", "access.log-2026112203.zst",
        ] {
            #expect(Streams.baseName(name) == "access.log", "\(name)")
        }
        #expect(Streams.baseName("web1-access.log.gz") == "web1-access.log")
        #expect(Streams.baseName("web2-access.json.gz") == "web2-access.json")
        #expect(Streams.baseName("error.log.1") == "error.log")
        #expect(Streams.baseName("night1.log") != Streams.baseName("night2.log"))
    }

    @Test("the samples with a checkpoint: the whole night audited, the quiet legacy server named; two nights in one run equal the chain")
    func samplesChain() throws {
        let dir = temporaryDirectory()
        let next = sampleLogs + "-next"
        let night1 = try runCLI([sampleLogs, "--checkpoint", dir + "/cp", "--csv", dir + "/n1", "--json", dir + "/n1.json", "--no-color"])
        #expect(night1.status == 0, "\(night1.stderr)")
        // Nothing waits: the legacy server went quiet at 23:19:58 and holds
        // nothing back; said in the summary and the JSON.
        #expect(!night1.stderr.contains("for the next run"))
        #expect(
            flat(night1.stdout).contains(
                "quiet: \(sampleLogs)/legacy-no-location.log.gz, last record 2026-11-21T23:19:58.000Z; it holds nothing back"))
        let deployment = try #require(try json(dir + "/n1.json")["deployment"] as? [String: Any])
        let streams = try #require(deployment["streams"] as? [[String: Any]])
        #expect(streams.count == 4 && deployment["waiting"] == nil)
        #expect(streams.filter { $0["quiet"] as? Bool == true }.map { $0["last_record"] as? String } == ["2026-11-21T23:19:58.000Z"])
        let night2 = try runCLI([next, "--checkpoint", dir + "/cp", "--csv", dir + "/n2", "--quiet"])
        #expect(night2.status == 0, "\(night2.stderr)")
        // Both nights in one run: each server's two files are one stream.
        let one = try runCLI([
            sampleLogs, next, "--checkpoint", dir + "/cp-one", "--csv", dir + "/one", "--json", dir + "/one.json", "--no-color",
        ])
        #expect(one.status == 0, "\(one.stderr)")
        for file in ["sessions.csv", "findings.csv"] {
            let chained = try rows(dir + "/n1/" + file) + rows(dir + "/n2/" + file)
            let whole = try rows(dir + "/one/" + file)
            #expect(chained.count == whole.count && chained.sorted() == whole.sorted(), "\(file)")
        }
        #expect(
            flat(one.stdout).contains(
                "\(sampleLogs)/web1-access.log.gz → \(next)/web1-access.log.gz"))
        let oneStreams = try #require((try json(dir + "/one.json")["deployment"] as? [String: Any])?["streams"] as? [[String: Any]])
        #expect(oneStreams.compactMap { ($0["files"] as? [String])?.count }.sorted() == [1, 1, 2, 2])
    }

    /// Two servers cut a few minutes apart (neither quiet); srv1's last
    /// request lies after srv0's end.
    private func cutNight(in dir: String) -> [String] {
        [
            writeLog(
                [line("21/Nov/2026:23:00:00", "/healthz"), line("21/Nov/2026:23:55:00", "/healthz")], named: "srv0/access.log.1", in: dir),
            writeLog(
                [
                    line("21/Nov/2026:23:00:00", authorize(state: "early"), 302, "\(opa)?code=ec&state=early"),
                    line("21/Nov/2026:23:56:00", authorize(state: "late-one")),
                    line("21/Nov/2026:23:59:00", "/healthz"),
                ], named: "srv1/access.log.1", in: dir),
        ]
    }

    @Test("records past the watermark are counted with the stream that holds them, and make the verdict partial")
    func waitingCounted() throws {
        let dir = temporaryDirectory()
        let logs = cutNight(in: dir)
        let run = try runCLI(
            logs + [
                "--checkpoint", dir + "/cp", "--client-id", googleClient, "--now", "2026-11-22T02:00:00Z", "--no-color", "--json", dir + "/r.json",
                "--metrics", dir + "/m.prom",
            ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasPrefix("COVERAGE  partial: some checks did not run\n"))
        #expect(
            flat(run.stdout).contains(
                "1 flip record waits for the next run: after the watermark 2026-11-21T23:55:00.000Z, where \(logs[0]) ends"))
        #expect(run.stdout.hasSuffix("\nPARTIAL · FINDINGS 0\n"))
        // Said as words, where it is read: standard error and the streams.
        #expect(
            run.stderr.contains(
                "flipaudit: 1 flip record after the watermark 2026-11-21T23:55:00.000Z, where \(logs[0]) ends, waits for the next run "
                    + "(carried in the checkpoint; --cut-at says when the logs were cut)"), "\(run.stderr)")
        #expect(flat(run.stdout).contains("  streams              2 from 2 files (a server's consecutive files are one stream)"))
        #expect(
            flat(run.stdout).contains(
                "one stream) waiting: 1 flip record after the watermark 2026-11-21T23:55:00.000Z, where \(logs[0]) ends; carried to the next run"))
        let doc = try json(dir + "/r.json")
        let waiting = try #require((doc["deployment"] as? [String: Any])?["waiting"] as? [String: Any])
        #expect(waiting["records"] as? Int == 1 && waiting["stream"] as? String == logs[0])
        #expect(waiting["watermark"] as? String == "2026-11-21T23:55:00.000Z")
        let metrics = try String(contentsOfFile: dir + "/m.prom", encoding: .utf8)
        #expect(metrics.contains("\nflipaudit_waiting_records 1\n") && metrics.contains("flipaudit_coverage_gaps{check=\"waiting\"} 1\n"))
    }

    @Test("--cut-at: every log cut at midnight, the whole night is audited and nothing waits")
    func cutAt() throws {
        let dir = temporaryDirectory()
        let logs = cutNight(in: dir)
        let run = try runCLI(
            logs + [
                "--checkpoint", dir + "/cp", "--client-id", googleClient, "--now", "2026-11-22T02:00:00Z", "--cut-at", "00:00", "--no-color",
                "--json", dir + "/r.json",
            ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasPrefix("COVERAGE  complete: every check ran on every input\n"), "\(run.stdout)")
        #expect(!run.stderr.contains("wait"))
        let doc = try json(dir + "/r.json")
        #expect((doc["deployment"] as? [String: Any])?["waiting"] == nil)
        // The request at 23:56 was audited: its session (expiring 00:06,
        // after the cut) is carried, not left waiting as a record.
        let checkpoint = try Checkpoint.decode(Array(try Data(contentsOf: URL(fileURLWithPath: dir + "/cp"))))
        #expect(checkpoint.waiting.isEmpty && checkpoint.sessions.map(\.state) == ["late-one"])
        #expect(checkpoint.watermark == AuditConfiguration.parseTime("2026-11-22T00:00:00Z")!)
    }

    @Test("--cut-at: a clock time is its last occurrence before the run's start, in --tz; nonsense and the future are refused")
    func cutAtValues() throws {
        let now = AuditConfiguration.parseTime("2026-11-22T02:00:00Z")!
        #expect(AuditConfiguration.cutTime("00:00", now: now, zone: nil) == AuditConfiguration.parseTime("2026-11-22T00:00:00Z"))
        #expect(AuditConfiguration.cutTime("02:00", now: now, zone: nil) == now)
        #expect(AuditConfiguration.cutTime("23:30:15", now: now, zone: nil) == AuditConfiguration.parseTime("2026-11-21T23:30:15Z"))
        let berlin = try #require(AuditConfiguration.zone(named: "+01:00"))
        #expect(AuditConfiguration.cutTime("00:00", now: now, zone: berlin) == AuditConfiguration.parseTime("2026-11-21T23:00:00Z"))
        #expect(
            AuditConfiguration.cutTime("2026-11-21T23:00:00Z", now: now, zone: nil) == AuditConfiguration.parseTime("2026-11-21T23:00:00Z"))
        for bad in ["24:00", "7", "noon", "00:60"] { #expect(AuditConfiguration.cutTime(bad, now: now, zone: nil) == nil, "\(bad)") }
        let dir = temporaryDirectory()
        let log = writeLog([line("21/Nov/2026:23:00:00", "/")], named: "a.log", in: dir)
        let nonsense = try runCLI([log, "--cut-at", "noon", "--now", "2026-11-22T02:00:00Z"])
        #expect(nonsense.status == 2 && nonsense.stderr.contains("--cut-at: \"noon\" is neither a clock time such as 00:00 nor an ISO 8601 time"))
        let later = try runCLI([log, "--cut-at", "2026-11-22T03:00:00Z", "--now", "2026-11-22T02:00:00Z"])
        #expect(later.status == 2 && later.stderr.contains("is after the run's start (2026-11-22T02:00:00.000Z)"), "\(later.stderr)")
    }

    @Test("a file seen before among new ones is skipped and named, the verdict partial; only a run with no new input is refused")
    func seenBefore() throws {
        let dir = temporaryDirectory()
        let now = ["--now", "2026-11-23T02:00:00Z", "--client-id", googleClient]
        // lighttpd had no traffic on night 2: logrotate's notifempty left
        // its access.log.1 as it was.
        let quiet = writeLog(
            [line("21/Nov/2026:22:00:00", authorize(state: "q"), 302, "\(opa)?code=qc&state=q")], named: "lighttpd/access.log.1", in: dir)
        let web1 = writeLog(
            [line("21/Nov/2026:22:00:00", authorize(state: "a"), 302, "\(opa)?code=ac&state=a"), line("21/Nov/2026:23:59:00", "/")],
            named: "n1/access.log.1", in: dir)
        let first = try runCLI([web1, quiet, "--checkpoint", dir + "/cp", "--quiet"] + now)
        #expect(first.status == 0, "\(first.stderr)")
        let web2 = writeLog(
            [line("22/Nov/2026:01:00:00", authorize(state: "b"), 302, "\(opa)?code=bc&state=b"), line("22/Nov/2026:23:59:00", "/")],
            named: "n2/access.log.1", in: dir)
        try FileManager.default.copyItem(atPath: dir + "/cp", toPath: dir + "/cp-alone")
        let second = try runCLI([web2, quiet, "--checkpoint", dir + "/cp", "--csv", dir + "/with", "--no-color"] + now)
        #expect(second.status == 0, "\(second.stderr)")
        let told = "\(quiet) was audited already, as \(quiet) by run 1 of this checkpoint"
        #expect(second.stderr.contains(told) && second.stderr.contains("; skipped, the other inputs are audited"), "\(second.stderr)")
        #expect(second.stdout.hasPrefix("COVERAGE  partial: some checks did not run\n"))
        #expect(flat(second.stdout).contains(": skipped, not audited again"))
        let alone = try runCLI([web2, "--checkpoint", dir + "/cp-alone", "--csv", dir + "/alone", "--quiet"] + now)
        #expect(alone.status == 0)
        for file in ["sessions.csv", "findings.csv"] { #expect(try rows(dir + "/with/" + file) == rows(dir + "/alone/" + file)) }
        // Only the stale file: nothing new, refused, nothing written.
        let before = try Data(contentsOf: URL(fileURLWithPath: dir + "/cp"))
        let stale = try runCLI([quiet, "--checkpoint", dir + "/cp", "--csv", dir + "/stale"] + now)
        #expect(stale.status == 2 && stale.stderr.contains(told) && stale.stderr.contains("no new input: nothing written"), "\(stale.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/cp")) == before && !FileManager.default.fileExists(atPath: dir + "/stale"))
    }

    @Test("one line dated 2099 in an extra file: understood, not blind; the chain goes on as without it")
    func strayFuture() throws {
        let dir = temporaryDirectory()
        let now = ["--now", "2026-11-22T02:00:00Z", "--client-id", googleClient]
        let night = [
            line("21/Nov/2026:22:00:00", authorize(state: "a"), 302, "\(opa)?code=ac&state=a"),
            line("21/Nov/2026:23:58:00", authorize(state: "b"), 200), line("21/Nov/2026:23:59:00", "/"),
        ]
        let log = writeLog(night, named: "srv/access.log.1", in: dir)
        let stray = writeLog([line("01/Jan/2099:00:00:00", "/")], named: "stray/other.log", in: dir)
        let with = try runCLI([log, stray, "--checkpoint", dir + "/cp-with", "--no-color", "--json", dir + "/r.json"] + now)
        #expect(with.status == 0, "\(with.stderr)")
        #expect(with.stdout.hasPrefix("COVERAGE  partial: some checks did not run\n"), "\(with.stdout)")
        #expect(flat(with.stdout).contains("1 record is dated more than an hour after the run's start (not audited)"))
        let files = try #require(try json(dir + "/r.json")["files"] as? [[String: Any]])
        let strayFile = try #require(files.first { $0["name"] as? String == stray })
        #expect(strayFile["format"] as? String == "combined" && strayFile["refused_lines"] as? Int == 1)
        let without = try runCLI([log, "--checkpoint", dir + "/cp-without", "--quiet"] + now)
        #expect(without.status == 0)
        // The next night reads the same from both chains.
        let next = writeLog(
            [line("22/Nov/2026:00:01:00", "/consent", 302, "\(opa)?code=bc&state=b"), line("22/Nov/2026:23:59:00", "/")],
            named: "srv/access.log", in: dir)
        let later = ["--now", "2026-11-23T02:00:00Z", "--client-id", googleClient]
        let a = try runCLI([next, "--checkpoint", dir + "/cp-with", "--csv", dir + "/a", "--quiet"] + later)
        let b = try runCLI([next, "--checkpoint", dir + "/cp-without", "--csv", dir + "/b", "--quiet"] + later)
        #expect(a.status == 0 && b.status == 0)
        for file in ["sessions.csv", "findings.csv"] { #expect(try rows(dir + "/a/" + file) == rows(dir + "/b/" + file)) }
        #expect(try rows(dir + "/a/sessions.csv").contains { $0.hasPrefix("b,") && $0.contains(",code,") })
    }

    @Test("a client field of - (an X-Forwarded-For the request did not carry) is written empty, never '-")
    func dashClient() {
        let line = combined(1, authorize(state: "d1"), 302, location: opa + "?code=k&state=d1").replacingOccurrences(of: "203.0.113.9 ", with: "- ")
        let run = audit([line])
        #expect(run.sessions.map(\.clientIP) == [""])
        #expect(!run.csv[0].contains(",'-,"))
    }

    @Test("a server's notices (HAProxy's messages, nginx and Apache error logs) are counted apart, understood: never a blind night")
    func notices() throws {
        let dir = temporaryDirectory()
        let access = writeLog(CoverageTests.good, named: "logs/access.log", in: dir)
        writeLog(
            [
                "2026/11/22 10:00:01 [error] 1234#1234: *1 open() \"/srv/www/favicon.ico\" failed (2: No such file or directory), client: 203.0.113.9",
                "2026/11/22 10:00:02 [notice] 1234#1234: signal process started",
            ], named: "logs/nginx-error.log", in: dir)
        writeLog(
            [
                "[Sun Nov 22 10:00:01.123456 2026] [mpm_event:notice] [pid 1234:tid 5678] AH00489: Apache/2.4.62 (Debian) configured -- resuming normal operations",
                "[Sun Nov 22 10:00:02.000001 2026] [core:error] [pid 1235:tid 5679] [client 203.0.113.9:5555] AH00126: Invalid URI in request",
            ], named: "logs/apache-error.log", in: dir)
        writeLog(
            [
                "Proxy flip started.", "<133>Nov 22 10:00:00 lb haproxy[812]: Server oauth/stub is DOWN, reason: Layer4 connection problem",
                "Proxy flip stopped (cumulated conns: FE: 12, BE: 0).",
            ], named: "logs/haproxy.log", in: dir)
        let run = try runCLI([dir + "/logs", "--client-id", googleClient, "--now", CoverageTests.now, "--no-color", "--json", dir + "/r.json"])
        #expect(run.status == 0, "\(run.stdout)")
        #expect(run.stdout.hasPrefix("COVERAGE  complete: every check ran on every input\n"), "\(run.stdout)")
        #expect(run.stdout.contains("malformed 0, notices 7, blank 0)"))
        #expect(run.stdout.contains("    notices: HAProxy notice 3, Apache error log 2, nginx error log 2 (a server's own lines, not requests; not audited)"))
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/r.json"))) as? [String: Any])
        let files = try #require(doc["files"] as? [[String: Any]])
        #expect(files.filter { $0["format"] as? String == "notices" }.count == 3)
        #expect((doc["input"] as? [String: Any])?["notices"] as? Int == 7)
        _ = access
    }
}
