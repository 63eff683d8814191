import Foundation
import Testing

@testable import Audit
@testable import Parsing
@testable import Reading
@testable import Reports
@testable import Rules
@testable import Writing

/// One case of docs/contract.md §8's bad-input battery, run through the built binary:
/// its arguments, and what must come out.
struct BadInputCase: CustomTestStringConvertible, Sendable {
    var name: String
    /// Writes the input into the folder and returns the arguments.
    var setup: @Sendable (String) -> [String]
    var status: Int32
    /// Fragments standard error must contain (the one-line messages).
    var messages: [String]
    /// Input accounting counts the JSON report must show.
    var counts: [String: Int]
    /// States that must be in sessions.csv (the data around the damage).
    var sessions: [String] = []

    var testDescription: String { name }
}

/// A few flip lines around the damage, so that "the data around it" is
/// checkable: each opens and closes one session with the given state.
func flipLine(_ state: String, second: Int = 1) -> String {
    combined(second, authorize(state: state), 302, location: "\(opa)?code=code-\(state)&state=\(state)")
}

let badInputCases: [BadInputCase] = [
    BadInputCase(
        name: "gzip truncated mid-member: lines before the cut still audited",
        setup: { dir in [fixture("truncated.log.gz")] }, status: 3,
        messages: ["truncated.log.gz: gzip data is truncated at compressed byte offset"],
        counts: ["files_with_errors": 1], sessions: ["t1"]),
    BadInputCase(
        name: "corrupt member in the middle of a multi-member file: the members before it kept",
        setup: { _ in [fixture("corrupt-middle.log.gz")] }, status: 3,
        messages: ["corrupt-middle.log.gz: ", "offset"],
        counts: ["files_with_errors": 1], sessions: ["c1"]),
    BadInputCase(
        name: "zero-byte .gz is an empty input, not an error, and said so",
        setup: { _ in [fixture("zero-byte.log.gz")] }, status: 0, messages: ["zero-byte.log.gz: empty (0 bytes, no line)"],
        counts: ["files": 1, "lines": 0, "files_with_errors": 0]),
    BadInputCase(
        name: "empty file is an empty input, not an error, and said so",
        setup: { _ in [fixture("empty-file.log")] }, status: 0, messages: ["empty-file.log: empty (0 bytes, no line)"],
        counts: ["files": 1, "lines": 0, "files_with_errors": 0]),
    BadInputCase(
        name: "zstd input is named, with the command to pipe it",
        setup: { _ in [fixture("access.log.zst")] }, status: 3,
        messages: ["access.log.zst: ", "zstd -dc " + fixture("access.log.zst") + " | flipaudit -"], counts: ["files_with_errors": 1]),
    BadInputCase(
        name: "bzip2 input is named, with the command to pipe it",
        setup: { _ in [fixture("access.log.bz2")] }, status: 3,
        messages: ["access.log.bz2: ", "bzip2 -dc " + fixture("access.log.bz2") + " | flipaudit -"], counts: ["files_with_errors": 1]),
    BadInputCase(
        name: "xz input is named, with the command to pipe it",
        setup: { _ in [fixture("access.log.xz")] }, status: 3,
        messages: ["access.log.xz: ", "xz -dc " + fixture("access.log.xz") + " | flipaudit -"], counts: ["files_with_errors": 1]),
    BadInputCase(
        name: "a missing path is named; the other inputs are still audited",
        setup: { dir in [dir + "/missing.log.gz", writeLog([flipLine("ok1")], named: "good.log", in: dir)] }, status: 3,
        messages: ["missing.log.gz: no such file or directory"], counts: ["files_with_errors": 1], sessions: ["ok1"]),
    BadInputCase(
        name: "a directory means every file inside it, recursively",
        setup: { dir in
            let sub = dir + "/logs/nested"
            try! FileManager.default.createDirectory(atPath: sub, withIntermediateDirectories: true)
            writeLog([flipLine("d1")], named: "a.log.gz", in: dir + "/logs")
            writeLog([flipLine("d2", second: 2)], named: "b.log", in: sub)
            return [dir + "/logs"]
        }, status: 0, messages: [], counts: ["files": 2], sessions: ["d1", "d2"]),
    BadInputCase(
        name: "a 1 MiB line is counted as malformed and skipped; its neighbours are intact",
        setup: { dir in
            [
                writeLog(
                    [
                        flipLine("before"),
                        "203.0.113.9 - - [22/Nov/2026:10:00:01 +0000] \"GET /" + String(repeating: "a", count: 1 << 20) + " HTTP/1.1\" 200 1 \"-\" \"x\"",
                        flipLine("after", second: 2),
                    ], named: "long.log.gz", in: dir)
            ]
        }, status: 0, messages: ["long.log.gz:2: malformed line (line longer than --max-line, 1048"],
        counts: ["malformed_lines": 1, "lines": 3], sessions: ["before", "after"]),
    BadInputCase(
        name: "NUL bytes make a line malformed, not the file",
        setup: { dir in
            [
                writeLog(
                    [flipLine("n1"), "203.0.113.9 - - [22/Nov/2026:10:00:01 +0000] \"GET /\u{0}x HTTP/1.1\" 200 1 \"-\" \"x\"", flipLine("n2", second: 2)],
                    named: "nul.log", in: dir)
            ]
        },
        status: 0, messages: ["nul.log:2: malformed line (NUL byte in line)"], counts: ["malformed_lines": 1], sessions: ["n1", "n2"]),
    BadInputCase(
        name: "invalid UTF-8 makes a line malformed, not the file",
        setup: { dir in
            let path = dir + "/latin1.log"
            var bytes = Array((flipLine("u1") + "\n").utf8)
            bytes += Array("203.0.113.9 - - [22/Nov/2026:10:00:01 +0000] \"GET /caf".utf8) + [0xE9] + Array(" HTTP/1.1\" 200 1 \"-\" \"x\"\n".utf8)
            bytes += Array((flipLine("u2", second: 2) + "\n").utf8)
            _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
            return [path]
        }, status: 0, messages: ["latin1.log:2: malformed line (invalid UTF-8)"], counts: ["malformed_lines": 1], sessions: ["u1", "u2"]),
    BadInputCase(
        name: "CRLF line ends are read as line ends, and counted",
        setup: { dir in
            let path = dir + "/crlf.log"
            _ = FileManager.default.createFile(atPath: path, contents: Data((flipLine("r1") + "\r\n" + flipLine("r2", second: 2) + "\r\n").utf8))
            return [path]
        }, status: 0, messages: ["crlf.log: 2 lines end in CRLF; read as LF"], counts: ["malformed_lines": 0, "records": 2], sessions: ["r1", "r2"]),
    BadInputCase(
        name: "a JSON line that is not an object is malformed; the objects around it are read",
        setup: { dir in
            let object =
                #"{"time":"2026-11-22T10:00:01Z","remote_addr":"203.0.113.9","request":"GET /oauth/authorize?client_id=G123&redirect_uri=https%3A%2F%2Foauth-redirect.googleusercontent.com%2Fa%2Fcom.google.OPA&state=j1 HTTP/1.1","status":302,"sent_http_location":"https://oauth-redirect.googleusercontent.com/a/com.google.OPA?code=x&state=j1"}"#
            return [
                writeLog([object, #"["not","an","object"]"#, object.replacingOccurrences(of: "j1", with: "j2")], named: "app.json", in: dir), "--format",
                "json",
            ]
        }, status: 0, messages: ["app.json:2: malformed line (not a JSON object)"], counts: ["malformed_lines": 1, "records": 2], sessions: ["j1", "j2"]),
    BadInputCase(
        name: "a missing last newline still ends the last line, and is said",
        setup: { dir in
            let path = dir + "/no-newline.log"
            _ = FileManager.default.createFile(atPath: path, contents: Data((flipLine("l1") + "\n" + flipLine("l2", second: 2)).utf8))
            return [path]
        }, status: 0, messages: ["no-newline.log: its last line has no newline; read all the same"], counts: ["records": 2],
        sessions: ["l1", "l2"]),
]

@Suite("Bad input battery (docs/contract.md §8)")
struct BadInputTests {
    @Test(
        "each bad input gets its message, its count and its exit status; the data around it is kept",
        arguments: badInputCases)
    func battery(_ c: BadInputCase) throws {
        let dir = temporaryDirectory()
        let out = dir + "/out"
        let run = try runCLI(c.setup(dir) + ["--csv", out, "--json", out + "/report.json", "--no-color", "--client-id", googleClient])
        #expect(run.status == c.status, "stderr: \(run.stderr)")
        for message in c.messages {
            #expect(run.stderr.contains(message), "stderr lacks \(message): \(run.stderr)")
        }
        // Every message is one line that starts with the tool's name.
        for line in run.stderr.split(separator: "\n") { #expect(line.hasPrefix("flipaudit: ")) }
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/report.json"))) as? [String: Any]
        let input = report?["input"] as? [String: Any]
        for (key, value) in c.counts {
            #expect(input?[key] as? Int == value, "input.\(key) is \(String(describing: input?[key])), expected \(value)")
        }
        let sessions = try String(contentsOfFile: out + "/sessions.csv", encoding: .utf8)
        let states = Set(sessions.split(separator: "\n").dropFirst().map { String($0.prefix { $0 != "," }) })
        for state in c.sessions { #expect(states.contains(state), "no session \(state) in \(states)") }
    }

    @Test("CRLF lines and a missing last newline are counted per file in the JSON report, absent when none")
    func lineEndCounts() throws {
        let dir = temporaryDirectory()
        let crlf = dir + "/crlf.log", open = dir + "/open.log"
        _ = FileManager.default.createFile(atPath: crlf, contents: Data((flipLine("r1") + "\r\n" + flipLine("r2", second: 2) + "\r\n").utf8))
        _ = FileManager.default.createFile(atPath: open, contents: Data((flipLine("o1") + "\n" + flipLine("o2", second: 2)).utf8))
        let plain = writeLog([flipLine("p1")], named: "plain.log", in: dir)
        let run = try runCLI([crlf, open, plain, "--json", "-"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let files = try #require(report["files"] as? [[String: Any]])
        func file(_ path: String) -> [String: Any]? { files.first { ($0["name"] as? String) == path } }
        #expect(file(crlf)?["crlf_lines"] as? Int == 2 && file(crlf)?["no_final_newline"] == nil)
        #expect(file(open)?["no_final_newline"] as? Bool == true && file(open)?["crlf_lines"] == nil)
        #expect(file(plain)?["crlf_lines"] == nil && file(plain)?["no_final_newline"] == nil)
    }

    @Test("a file read again shorter than the run first saw it shrank: every reading stops at that first size")
    func shrankBetweenReadings() throws {
        let dir = temporaryDirectory()
        let path = writeLog((0..<200).map { flipLine("s\($0)", second: $0 % 60) }, named: "shrink.log", in: dir)
        let identity = try #require(FileIdentity.of(path: path))
        let size = try #require(identity.size)
        // Appended after the run looked: a second reading ends where the first did.
        let handle = try #require(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data((flipLine("late") + "\n").utf8))
        try handle.close()
        let grown = try LogFileReader(path: path, size: size)
        var total = 0
        while let chunk = try grown.nextChunk() { total += chunk.count }
        #expect(UInt64(total) == size)
        // Cut after the run looked (the sorting pass reads a file again):
        // an error naming the offset, not a quiet shorter input.
        truncate(path, 1000)
        let cut = try LogFileReader(path: path, size: size)
        var failure: InputError?
        do { while try cut.nextChunk() != nil {} } catch { failure = error }
        guard case .shrunk(let offset, let at)? = failure else {
            Issue.record("no shrunk error: \(String(describing: failure))")
            return
        }
        #expect(offset == 1000 && at == size)
    }

    @Test(
        "a path without read permission is named and counted (skipped as root, who may read anything)",
        .enabled(if: geteuid() != 0))
    func permissionDenied() throws {
        let dir = temporaryDirectory()
        let path = writeLog([flipLine("p1")], named: "secret.log", in: dir)
        chmod(path, 0)
        let run = try runCLI([path, "--json", "-"])
        #expect(run.status == 3)
        #expect(run.stderr.contains("secret.log: permission denied"))
    }

    @Test("a return on a record without any request state, an unknown state and CR/LF inside values do not crash the summary")
    func oddReturns() throws {
        let dir = temporaryDirectory()
        let log = writeLog(
            [
                combined(1, "/callback", 302, location: "\(opa)?code=abc"),
                combined(2, "/callback", 302, location: "\(opa)?error=access_denied&state=\(enc("line\r\nbreak"))"),
            ], named: "odd.log", in: dir)
        let run = try runCLI([log, "--no-color", "--csv", dir + "/out"])
        #expect(run.status == 0)
        #expect(run.stdout.contains("code-without-state"))
        #expect(run.stdout.contains("line\\x0d\\x0abreak"))
        // Written out in the CSV too: one row per finding, whatever a cell holds.
        let findings = try String(contentsOfFile: dir + "/out/findings.csv", encoding: .utf8)
        #expect(findings.contains(",line\\x0d\\x0abreak,") && !findings.contains("\r"))
    }
}

@Suite("Outputs a nightly job can trust")
struct OutputTrustTests {
    /// The signal handler's side of an interruption: files made before it
    /// are removed, and none can be made after it (a writer that is just
    /// opening its next file when the signal comes must not leave it).
    @Test("temporary outputs are removed on interruption, and none is created after")
    func temporaryOutputs() {
        let dir = temporaryDirectory()
        let outputs = TemporaryOutputs()
        let first = outputs.create(dir + "/.a.tmp"), second = outputs.create(dir + "/.b.tmp")
        #expect(first >= 0 && second >= 0)
        #expect(FileManager.default.fileExists(atPath: dir + "/.a.tmp"))
        close(first); close(second)
        outputs.removeAll()
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? ["?"]).isEmpty)
        let late = outputs.create(dir + "/.c.tmp")
        #expect(late == -1 && errno == EINTR)
        #expect(!FileManager.default.fileExists(atPath: dir + "/.c.tmp"))
    }

    @Test("an interrupted run (SIGINT, SIGTERM) leaves no output file, not even a temporary one", arguments: [SIGINT, SIGTERM])
    func interrupted(_ signalNumber: Int32) throws {
        let dir = temporaryDirectory()
        // Standard input that never ends keeps the run going until the signal.
        let binary = Bundle.module.bundleURL.deletingLastPathComponent().appendingPathComponent("flipaudit")
        let p = Process()
        p.executableURL = binary
        p.arguments = ["-", "--csv", dir + "/out", "--json", dir + "/report.json", "--quiet"]
        let input = Pipe()
        p.standardInput = input
        p.standardOutput = FileHandle.nullDevice
        let err = Pipe()
        p.standardError = err
        try p.run()
        input.fileHandleForWriting.write(Data((flipLine("i1") + "\n").utf8))
        // Wait until the temporary CSV files exist: the run has started.
        var started = false
        for _ in 0..<200 {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: dir + "/out")) ?? []
            if names.contains(where: { $0.hasSuffix(".tmp") }) { started = true; break }
            usleep(20_000)
        }
        #expect(started)
        kill(p.processIdentifier, signalNumber)
        p.waitUntilExit()
        #expect(p.terminationStatus == 128 + signalNumber)
        let left = (try? FileManager.default.contentsOfDirectory(atPath: dir + "/out")) ?? []
        #expect(left.isEmpty, "left behind: \(left)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/report.json"))
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(message.contains("interrupted"))
    }

    @Test("a second run replaces the CSV files whole; no temporary file stays")
    func replacedWhole() throws {
        let dir = temporaryDirectory()
        let one = writeLog([flipLine("a1"), flipLine("a2", second: 2)], named: "one.log", in: dir)
        let two = writeLog([flipLine("b1")], named: "two.log", in: dir)
        #expect(try runCLI([one, "--csv", dir + "/out", "--quiet"]).status == 0)
        #expect(try runCLI([two, "--csv", dir + "/out", "--quiet"]).status == 0)
        let sessions = try String(contentsOfFile: dir + "/out/sessions.csv", encoding: .utf8)
        #expect(sessions.split(separator: "\n").count == 2)
        #expect(sessions.contains("b1,"))
        let names = try FileManager.default.contentsOfDirectory(atPath: dir + "/out").sorted()
        #expect(names == ["error_distribution.csv", "findings.csv", "sessions.csv"])
    }
}

@Suite("Session flood")
struct SessionFloodTests {
    @Test("past --max-sessions the least recently active session is closed early and counted")
    func evictions() throws {
        var lines: [String] = []
        for i in 0..<50 { lines.append(combined(i % 60, authorize(state: "flood\(i)"), 200, location: "-")) }
        // The first state returns after the flood: its session was evicted.
        lines.append(combined(59, "/consent", 302, location: "\(opa)?code=late&state=flood0"))
        let result = audit(lines) { $0.maxSessions = 10 }
        #expect(result.evictedSessions == 40)
        #expect(result.sessions.count == 50)
        // Closed early, never no-return: its return came, after the eviction.
        #expect(result.sessions.first { $0.state == "flood0" }?.outcome == .closedEarly)
        #expect(result.sessions.filter { $0.outcome == .closedEarly }.count == 40)
        #expect(result.count(.noReturn) == 0)
        #expect(result.sessions.filter { $0.outcome == .pending }.count == 10)
        #expect(result.count(.unknownState) == 1)
        // Evicted sessions did not end: a new request with their state is not a replay.
        #expect(result.count(.stateReuse) == 0)
        // The same through the command line, as the JSON report counts it.
        let dir = temporaryDirectory()
        let run = try runCLI([writeLog(lines, named: "flood.log", in: dir), "--max-sessions", "10", "--json", "-"])
        let report = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        #expect(report?["evicted_sessions"] as? Int == 40)
        #expect(run.stderr.contains("40 session(s) closed early: more than 10 were open at once (--max-sessions)"))
        let roomy = audit(lines) { $0.maxSessions = 100 }
        #expect(roomy.evictedSessions == 0)
        #expect(roomy.sessions.first { $0.state == "flood0" }?.outcome == .code)
    }
}

/// Inputs the fuzzers found, kept as regression tests.
@Suite("Fuzzer findings")
struct FuzzRegressionTests {
    @Test(
        "a misaligned line that puts a quoted URL with a code where the client address goes: the code stays out",
        arguments: ["combined", "json", "nginx"])
    func codeInClientField(_ format: String) throws {
        let path = fixture("fuzz/records-code-in-client-field.log")
        let nginx = #"$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" "$sent_http_location""#
        let audit = try Audit.run(
            [path],
            {
                var c = AuditConfiguration()
                c.format = format == "nginx" ? .logFormat(nginx) : format == "json" ? .fixed(.json) : .fixed(.combined)
                return c
            }())
        let code = "vjQfOvS2HQKN728Qdo97LGUi"
        #expect(!audit.csv.contains { $0.contains(code) })
        #expect(!audit.sessions.contains { $0.clientIP.contains(" ") })
        #expect(!TerminalReport(color: false).render(audit.result).contains(code))
    }

    @Test(
        "a code in a URL's fragment, after a second `?`, or with an escaped name is redacted, and so are tokens",
        arguments: [
            ("https://x.example/cb#code=SECRETFRAG1&state=s", "SECRETFRAG1"),
            ("https://x.example/cb?next=/a?code=SECRETQ2&x=1", "SECRETQ2"),
            ("https://x.example/cb?c%6fde=SECRET3", "SECRET3"),
            ("https://x.example/cb#access_token=TOKEN4&token_type=bearer", "TOKEN4"),
            ("https://x.example/cb;code=SEMI5", "SEMI5"),
            ("https://x.example/cb?code=WITH?MARK6&state=s", "MARK6"),
        ])
    func redactionEverywhere(_ url: String, _ secret: String) {
        let redacted = CodeDigest.redact(url)
        #expect(!redacted.contains(secret), "\(redacted)")
        #expect(redacted.contains("sha256:"))
    }

    @Test("the fuzzers' code-leak inputs leak nothing")
    func fuzzLeaks() throws {
        let query = try Data(contentsOf: URL(fileURLWithPath: fixture("fuzz/query-code-in-fragment.txt")))
        #expect(!CodeDigest.redact(String(decoding: query, as: UTF8.self)).contains("Ax6ltlS6yNtE2"))
        let nginx = #"$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" "$sent_http_location""#
        for format in [AuditConfiguration.Format.fixed(.combined), .fixed(.json), .logFormat(nginx)] {
            var c = AuditConfiguration()
            c.format = format
            let audit = try Audit.run([fixture("fuzz/records-code-after-second-question-mark.log")], c)
            #expect(!audit.csv.contains { $0.contains("RbpreBHnjdWVw3WCWEE4S") })
            #expect(!TerminalReport(color: false).render(audit.result).contains("RbpreBHnjdWVw3WCWEE4S"))
            // The line the fuzzer built is not valid UTF-8: the pipeline
            // counts it as malformed before any parser sees it.
            #expect(audit.accounting.malformedByReason["invalid UTF-8"] == 1)
        }
    }
}
