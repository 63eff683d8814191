import Foundation
import Testing

@testable import Audit
@testable import Reports
@testable import Rules

/// The repository's SampleLogs/ folder.
let sampleLogs: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.appendingPathComponent("SampleLogs").path
}()

/// Runs the built `flipaudit` binary.
func runCLI(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
    let binary = Bundle.module.bundleURL.deletingLastPathComponent().appendingPathComponent("flipaudit")
    let p = Process()
    p.executableURL = binary
    p.arguments = arguments
    let out = Pipe(), err = Pipe()
    p.standardOutput = out
    p.standardError = err
    p.standardInput = FileHandle.nullDevice
    try p.run()
    let o = out.fileHandleForReading.readDataToEndOfFile()
    let e = err.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
}

func samplePaths() throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: sampleLogs).sorted().map { sampleLogs + "/" + $0 }
}

func csvFiles(_ audit: Audit) -> [String] { audit.csv }

@Suite("End to end over SampleLogs")
struct EndToEndTests {
    @Test("the three CSV files have docs/contract.md §7's exact headers and one row per session")
    func headers() throws {
        let dir = temporaryDirectory()
        let run = try runCLI([sampleLogs, "--csv", dir, "--quiet"])
        #expect(run.status == 0)
        let sessions = try String(contentsOfFile: dir + "/sessions.csv", encoding: .utf8)
        let findings = try String(contentsOfFile: dir + "/findings.csv", encoding: .utf8)
        let errors = try String(contentsOfFile: dir + "/error_distribution.csv", encoding: .utf8)
        #expect(
            sessions.hasPrefix(
                "state,first_seen,last_seen,flow,app,environment,variant,client_id,redirect_uri,outcome,error,error_description,latency_ms,findings,client_ip,source\n"
            ))
        #expect(findings.hasPrefix("time,severity,kind,state,client_id,redirect_uri,detail,source\n"))
        #expect(errors.hasPrefix("period,flow,app,environment,error,count,share\n"))
        let result = try Audit.run([sampleLogs], AuditConfiguration())
        #expect(sessions.split(separator: "\n").count == result.sessions.count + 1)
        #expect(result.sessions.count > 100)
        // Every outcome but closed-early (--max-sessions is not reached).
        #expect(Set(result.sessions.map(\.outcome)) == Set(Outcome.allCases).subtracting([.closedEarly]))
        #expect(!sessions.contains("\r\n"))
    }

    @Test("no authorization code from the logs appears in clear in any output")
    func noCodesInClear() throws {
        var codes = Set<String>()
        for path in try samplePaths() {
            for line in readLines(path).lines {
                var rest = line[...]
                while let r = rest.range(of: "code=") {
                    let value = rest[r.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
                    if value.count >= 16 { codes.insert(String(value)) }
                    rest = rest[r.upperBound...]
                }
            }
        }
        #expect(codes.count > 100)
        let dir = temporaryDirectory()
        let run = try runCLI([
            sampleLogs, "--csv", dir, "--json", dir + "/report.json", "--no-color", "--client-id", "1093874651234-flip.apps.googleusercontent.com",
        ])
        var outputs = [run.stdout, run.stderr]
        for name in ["sessions.csv", "findings.csv", "error_distribution.csv", "report.json"] {
            outputs.append(try String(contentsOfFile: dir + "/" + name, encoding: .utf8))
        }
        let leaked = codes.filter { code in outputs.contains { $0.contains(code) } }
        #expect(leaked.isEmpty, "codes in clear: \(leaked.prefix(3))")
        #expect(outputs[1].contains("sha256:") || outputs[3].contains("sha256:"))
    }

    @Test("the order of the file arguments does not change a byte of the CSV files")
    func argumentOrder() throws {
        let paths = try samplePaths()
        let forward = try Audit.run(paths, AuditConfiguration())
        let backward = try Audit.run(paths.reversed(), AuditConfiguration())
        let shuffled = try Audit.run([paths[2], paths[0], paths[3], paths[1]], AuditConfiguration())
        #expect(csvFiles(forward) == csvFiles(backward))
        #expect(csvFiles(forward) == csvFiles(shuffled))
    }

    @Test("reading in parallel gives exactly the single-threaded results, damaged inputs included")
    func parallelEqualsSequential() throws {
        let paths = try samplePaths() + [fixture("truncated.log.gz"), fixture("corrupt-middle.log.gz"), fixture("crlf.log.gz")]
        var sequential = AuditConfiguration()
        sequential.parallel = false
        let one = try Audit.run(paths, sequential)
        let two = try Audit.run(paths, AuditConfiguration())
        #expect(csvFiles(one) == csvFiles(two))
        #expect(one.accounting == two.accounting)
        #expect(one.inputErrors == two.inputErrors)
        #expect(one.inputErrors.count == 2)
        #expect(try JSONReport.render(one.result) == JSONReport.render(two.result))
        let single = try Audit.run([paths[0]], AuditConfiguration())
        let singleSequential = try Audit.run([paths[0]], sequential)
        #expect(csvFiles(single) == csvFiles(singleSequential))
    }

    @Test("splitting one log across files changes no session, only the sources")
    func splitAcrossFiles() throws {
        let lines = readLines(try samplePaths().first { $0.contains("web1") }!).lines
        let whole = audit(["all.log": lines])
        let even = lines.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
        let odd = lines.enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
        let split = audit(["part-a.log.gz": odd, "part-b.log": even])
        func strip(_ r: Audit) -> [String] {
            r.sessions.map { "\($0.state)|\($0.firstSeen)|\($0.outcome)|\($0.error)|\($0.latencyMs ?? -1)|\($0.findings)" }.sorted()
        }
        #expect(whole.sessions.count > 50)
        #expect(strip(whole) == strip(split))
        let wholeKinds: [String] = whole.findings.map { "\($0.kind.rawValue)|\($0.state)|\($0.time)" }.sorted()
        let splitKinds: [String] = split.findings.map { "\($0.kind.rawValue)|\($0.state)|\($0.time)" }.sorted()
        #expect(wholeKinds == splitKinds)
    }

    @Test("the JSON report is valid JSON with the summary sections")
    func json() throws {
        let run = try runCLI([sampleLogs, "--json", "-"])
        #expect(run.status == 0)
        let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        for key in ["input", "outcomes", "error_distribution", "latency_ms", "findings", "sessions"] {
            #expect(object?[key] != nil, "missing \(key)")
        }
        let input = object?["input"] as? [String: Any]
        #expect(input?["files"] as? Int == 4)
        #expect((input?["malformed_lines"] as? Int ?? 0) >= 2)
        #expect(input?["in_scope_flip_records"] as? Int ?? 0 > 100)
    }
}

@Suite("Command line and exit statuses")
struct CommandLineTests {
    @Test("0 when clean, 1 at or above --fail-on, 2 for usage errors")
    func statuses() throws {
        let dir = temporaryDirectory()
        let clean = writeLog([combined(1, authorize(), 302, location: "\(opa)?code=c&state=s1")], named: "clean.log", in: dir)
        #expect(try runCLI([clean, "--fail-on", "low"]).status == 0)
        #expect(try runCLI([sampleLogs, "--fail-on", "critical", "--quiet"]).status == 1)
        #expect(try runCLI([sampleLogs, "--quiet"]).status == 0)
        #expect(try runCLI([sampleLogs, "--fail-on", "never", "--quiet"]).status == 0)
        let usage = try runCLI([sampleLogs, "--bucket", "week"])
        #expect(usage.status == 2)
        #expect(usage.stderr.contains("week"))
        #expect(try runCLI([]).status == 2)
        #expect(try runCLI([clean, "--format", "nginx"]).status == 2)
    }

    @Test("--help, -h and --version print on standard output and exit 0")
    func help() throws {
        for flag in ["--help", "-h"] {
            let run = try runCLI([flag])
            #expect(run.status == 0)
            #expect(run.stdout.contains("USAGE: flipaudit"))
            #expect(run.stdout.contains("--fail-on"))
            #expect(!run.stderr.contains("crashed"))
        }
        let version = try runCLI(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout.hasPrefix("0."))
    }

    @Test("3 when an input cannot be read completely, and the rest is still analysed; 3 wins over 1")
    func unreadable() throws {
        let run = try runCLI([sampleLogs, "/nonexistent/access.log.gz", "--fail-on", "critical", "--no-color"])
        #expect(run.status == 3)
        #expect(run.stderr.contains("/nonexistent/access.log.gz: no such file or directory"))
        #expect(run.stdout.contains("SESSIONS"))
        let truncated = try runCLI([fixture("truncated.log.gz"), "--quiet"])
        #expect(truncated.status == 3)
        #expect(truncated.stderr.contains("truncated.log.gz: gzip data is truncated at compressed byte offset"))
        let zstd = try runCLI([fixture("access.log.zst"), "--quiet"])
        #expect(zstd.status == 3)
        #expect(zstd.stderr.contains("zstd -dc \(fixture("access.log.zst")) | flipaudit -"))
    }

    @Test("an output folder that cannot be written is a usage error before any input is read")
    func unwritableOutput() throws {
        let file = writeLog(["x"], named: "not-a-dir", in: temporaryDirectory())
        let run = try runCLI([sampleLogs, "--csv", file])
        #expect(run.status == 2)
        #expect(run.stderr.contains("not a folder"))
    }

    @Test("hostile text is escaped on the terminal and neutralised in CSV cells")
    func hostileText() throws {
        let dir = temporaryDirectory()
        let state = "=HYPERLINK(\"x\")\u{1B}[2J\u{202E}"
        let log = writeLog(
            [
                combined(
                    1, authorize(state: state), 302,
                    location:
                        "\(opa)?error=\(enc("denied\u{1B}[31m"))&error_description=\(enc("\u{1B}]8;;https://evil.example\u{07}click"))&state=\(enc(state))")
            ],
            named: "hostile.log", in: dir)
        let run = try runCLI([log, "--csv", dir, "--no-color", "--fail-on", "never"])
        #expect(!run.stdout.contains("\u{1B}"))
        #expect(!run.stdout.unicodeScalars.contains("\u{202E}"))
        #expect(run.stdout.contains("\\x1b[2J\\u{202E}"))
        #expect(run.stdout.contains("denied\\x1b[31m"))
        let sessions = try String(contentsOfFile: dir + "/sessions.csv", encoding: .utf8)
        #expect(sessions.contains("\"'=HYPERLINK(\"\"x\"\")"))
    }
}
