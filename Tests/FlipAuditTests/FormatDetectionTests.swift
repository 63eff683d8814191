import Foundation
import Testing

@testable import Rules

/// docs/contract.md §2: under --format auto each line is read as JSON when
/// it starts with `{`, as combined otherwise; an input most of whose lines
/// are malformed gets one warning with the share and the format that fits.
@Suite("Per-line format detection and the wrong-format hint")
struct FormatDetectionTests {
    /// A JSON-lines record of a flip request answered with a code.
    func jsonLine(_ state: String, second: Int) -> String {
        #"{"time":"2026-11-22T10:00:\#(String(format: "%02d", second))Z","remote_addr":"203.0.113.9","request":"GET \#(authorize(state: state)) HTTP/1.1","status":302,"location":"\#(opa)?code=code-\#(state)&state=\#(state)"}"#
    }

    /// Runs `command` with /bin/sh; its status and standard output and error.
    func shell(_ command: String) throws -> (status: Int32, stdout: String, stderr: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", command]
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
    }

    @Test("JSON and combined lines of one input are each read in their own format, in any order")
    func mixedInput() throws {
        let dir = temporaryDirectory()
        // Alternating lines, starting with either format; a JSON line may
        // start with blanks.
        var lines: [String] = []
        for i in 0..<6 { lines.append(i % 2 == 0 ? flipLine("c\(i)", second: i + 1) : "  " + jsonLine("j\(i)", second: i + 1)) }
        for (name, order) in [("a.log", lines), ("b.log", lines.reversed())] {
            let log = writeLog(order, named: name, in: dir)
            let run = try runCLI([log, "--json", "-"])
            let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
            let input = try #require(json["input"] as? [String: Any])
            #expect(input["records"] as? Int == 6, "\(name)")
            #expect(input["malformed_lines"] as? Int == 0, "\(name)")
            #expect(json["sessions"] as? Int == 6, "\(name)")
            let files = try #require(json["files"] as? [[String: Any]])
            #expect(files.first?["format"] as? String == "mixed")
            #expect(!run.stderr.contains("malformed"))
        }
    }

    /// docs/contract.md §3: `unobservable` looks at the Location fields of
    /// the records of the session's own format (combined or JSON).
    @Test("unobservable is judged per format: in one mixed input, one format's Location says nothing of the other's")
    func unobservablePerFormat() {
        let jsonLogs = #"{"time":"2026-11-22T10:00:00Z","remote_addr":"203.0.113.9","request":"GET /healthz HTTP/1.1","status":200,"location":"-"}"#
        let late = #"{"time":"2026-11-22T10:30:00Z","remote_addr":"203.0.113.9","request":"GET /healthz HTTP/1.1","status":200}"#
        let combinedRequest = combined(1, authorize(state: "c1"), 200, location: nil)
        // A JSON server logs Location; a combined one (nine fields) does not.
        let mixed = audit([jsonLogs, combinedRequest, late])
        #expect(mixed.sessions.first { $0.state == "c1" }?.outcome == .unobservable)
        // The converse: the combined lines log it, a JSON request has none.
        let jsonRequest = #"{"time":"2026-11-22T10:00:02Z","remote_addr":"203.0.113.9","request":"GET \#(authorize(state: "j1")) HTTP/1.1","status":200}"#
        let converse = audit([combined(0, "/healthz", 200, location: "-"), jsonRequest, late])
        #expect(converse.sessions.first { $0.state == "j1" }?.outcome == .unobservable)
        // Its own format logging Location: judged.
        let judged = audit([combined(0, "/healthz", 200, location: "-"), combinedRequest, late])
        #expect(judged.sessions.first { $0.state == "c1" }?.outcome == .noReturn)
        let judgedJSON = audit([jsonLogs, jsonRequest, late])
        #expect(judgedJSON.sessions.first { $0.state == "j1" }?.outcome == .noReturn)
    }

    @Test("all the samples piped through one standard input give the findings of the folder")
    func samplesThroughStandardInput() throws {
        let binary = Bundle.module.bundleURL.deletingLastPathComponent().appendingPathComponent("flipaudit").path
        let folder = try runCLI([sampleLogs, "--json", "-"])
        let piped = try shell("gzip -dc '\(sampleLogs)'/*.gz | '\(binary)' - --json -")
        func summary(_ text: String) throws -> (Int, Int, Int, [String: Int]) {
            let json = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            let input = try #require(json["input"] as? [String: Any])
            let findings = try #require(json["findings"] as? [String: Any])
            let kinds = try #require(findings["by_kind"] as? [[String: Any]])
            return (
                try #require(input["malformed_lines"] as? Int), try #require(json["sessions"] as? Int),
                try #require(findings["total"] as? Int),
                Dictionary(uniqueKeysWithValues: kinds.map { ($0["kind"] as! String, $0["count"] as! Int) })
            )
        }
        let a = try summary(folder.stdout), b = try summary(piped.stdout)
        #expect(a.0 == b.0 && a.1 == b.1 && a.2 == b.2 && a.3 == b.3, "folder \(a), piped \(b)")
        // Sources name standard input as on the command line.
        #expect(piped.stdout.contains("\"source\" : \"-:"))
        #expect(!piped.stderr.contains("are malformed"))
    }

    @Test("an input read in the wrong format gets one warning: the share, and the format that reads it")
    func wrongFormatHint() throws {
        let dir = temporaryDirectory()
        // Three combined lines and one JSON line: as --format json, 3 of 4
        // lines (75%) are malformed and all three read as combined.
        let log = writeLog([flipLine("a1"), flipLine("a2", second: 2), flipLine("a3", second: 3), jsonLine("j1", second: 4)], named: "web.log", in: dir)
        let run = try runCLI([log, "--format", "json", "--no-color"])
        let hint =
            "web.log: read as --format json, 75% of its lines (3 of 4) are malformed; 3 of them read as combined: try --format auto (or --format combined)"
        #expect(run.stderr.components(separatedBy: hint).count == 2, "\(run.stderr)")
        #expect(run.stdout.contains("warning: " + log + ": read as --format json"))
        // Mostly not understood: blind, never a pass.
        #expect(run.status == 5)
        // Read as it is (auto), nothing is malformed and nothing is said.
        let auto = try runCLI([log, "--no-color"])
        #expect(!auto.stderr.contains("are malformed") && !auto.stdout.contains("warning:"))
        // Half or fewer malformed: no warning.
        let half = writeLog([flipLine("b1"), flipLine("b2", second: 2), jsonLine("k1", second: 3), jsonLine("k2", second: 4)], named: "half.log", in: dir)
        #expect(!(try runCLI([half, "--format", "json"])).stderr.contains("are malformed"))
        // Lines no format reads: the share, and no format named.
        let junk = writeLog(["hello", "world", flipLine("c1")], named: "junk.log", in: dir)
        let j = try runCLI([junk])
        #expect(j.stderr.contains("junk.log: read in every format flipaudit knows (each line on its own), 66% of its lines (2 of 3) are malformed"))
        #expect(j.stderr.contains("and no format flipaudit knows reads them; if the server writes its own layout, give it with --log-format"))
        // A byte order mark before a file's first line (or a cat'ed
        // file's) is not part of the record: JSON and combined alike.
        let bom = "\u{FEFF}"
        let marked = writeLog([bom + jsonLine("b1", second: 1), jsonLine("b2", second: 2), bom + flipLine("b3", second: 3)], named: "bom.log", in: dir)
        let b = try runCLI([marked, "--json", "-"])
        let bjson = try #require(try JSONSerialization.jsonObject(with: Data(b.stdout.utf8)) as? [String: Any])
        let binput = try #require(bjson["input"] as? [String: Any])
        #expect(binput["malformed_lines"] as? Int == 0 && binput["records"] as? Int == 3 && bjson["sessions"] as? Int == 3)
        // Lines that parse but lie in the future: no other format is
        // proposed, the clock and --now are.
        let future = (1...3).map { i in
            "203.0.113.9 - - [22/Nov/2099:10:00:0\(i) +0000] \"GET /x HTTP/1.1\" 200 1 \"-\" \"ua\" \"-\""
        }
        let f = try runCLI([writeLog(future + [flipLine("c2")], named: "future.log", in: dir)])
        #expect(f.stderr.contains("75% of its lines (3 of 4) are malformed (mostly: time in the future"), "\(f.stderr)")
        #expect(f.stderr.contains("--now") && !f.stderr.contains("--log-format") && !f.stderr.contains("no other format"))
    }
}
