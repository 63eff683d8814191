import Foundation
import Testing

@testable import Audit
@testable import Reports
@testable import Rules

/// One sample of a Prometheus text file: name, labels (unescaped), value.
struct MetricSample {
    var name: String
    var labels: [String: String]
    var value: Double
}

/// Reads the samples of a text exposition file the way Prometheus does
/// (label values unescaped); comment lines are checked apart.
func parseMetrics(_ text: String) throws -> [MetricSample] {
    struct Bad: Error { var line: String }
    var samples: [MetricSample] = []
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) where !line.isEmpty && !line.hasPrefix("#") {
        var i = line.startIndex
        while i < line.endIndex && line[i] != "{" && line[i] != " " { i = line.index(after: i) }
        let name = String(line[line.startIndex..<i])
        var labels: [String: String] = [:]
        if i < line.endIndex && line[i] == "{" {
            i = line.index(after: i)
            while line[i] != "}" {
                guard let eq = line[i...].firstIndex(of: "=") else { throw Bad(line: String(line)) }
                let key = String(line[i..<eq])
                var j = line.index(eq, offsetBy: 2)  // past ="
                var value = ""
                while line[j] != "\"" {
                    if line[j] == "\\" {
                        j = line.index(after: j)
                        switch line[j] {
                        case "n": value += "\n"
                        case "\\": value += "\\"
                        case "\"": value += "\""
                        default: throw Bad(line: String(line))
                        }
                    } else {
                        value.append(line[j])
                    }
                    j = line.index(after: j)
                }
                labels[key] = value
                i = line.index(after: j)
                if line[i] == "," { i = line.index(after: i) }
            }
            i = line.index(after: i)
        }
        guard let value = Double(line[line.index(after: i)...]) else { throw Bad(line: String(line)) }
        samples.append(MetricSample(name: name, labels: labels, value: value))
    }
    return samples
}

@Suite("Prometheus metrics (--metrics)")
struct MetricsTests {
    @Test("the SampleLogs metrics equal the JSON summary of the same run")
    func matchesJSON() throws {
        let dir = temporaryDirectory()
        let run = try runCLI([sampleLogs, "--json", dir + "/report.json", "--metrics", dir + "/flipaudit.prom", "--quiet"])
        #expect(run.status == 0)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/report.json"))) as! [String: Any]
        let samples = try parseMetrics(String(contentsOfFile: dir + "/flipaudit.prom", encoding: .utf8))
        func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
            samples.first { $0.name == name && $0.labels == labels }?.value
        }
        func sum(_ name: String, where match: [String: String] = [:]) -> Double {
            samples.filter { s in s.name == name && match.allSatisfy { s.labels[$0.key] == $0.value } }.reduce(0) { $0 + $1.value }
        }
        let input = json["input"] as! [String: Any]
        #expect(value("flipaudit_input_files") == Double(input["files"] as! Int))
        #expect(value("flipaudit_input_files_with_errors") == Double(input["files_with_errors"] as! Int))
        #expect(value("flipaudit_input_lines") == Double(input["lines"] as! Int))
        #expect(value("flipaudit_input_records") == Double(input["records"] as! Int))
        #expect(value("flipaudit_input_malformed_lines") == Double(input["malformed_lines"] as! Int))
        #expect(value("flipaudit_input_compressed_bytes") == Double(input["compressed_bytes"] as! Int))
        #expect(value("flipaudit_input_uncompressed_bytes") == Double(input["uncompressed_bytes"] as! Int))
        #expect(value("flipaudit_input_flip_records") == Double(input["in_scope_flip_records"] as! Int))
        #expect(value("flipaudit_sessions_closed_early") == Double(json["evicted_sessions"] as! Int))
        #expect(value("flipaudit_sessions_carried_in") == 0)
        #expect(value("flipaudit_sessions_carried_out") == 0)

        // Sessions: by outcome overall, and per group.
        #expect(sum("flipaudit_sessions") == Double(json["sessions"] as! Int))
        for (outcome, count) in json["outcomes"] as! [String: Int] {
            #expect(sum("flipaudit_sessions", where: ["outcome": outcome]) == Double(count), "\(outcome)")
        }
        for group in json["outcomes_by_group"] as! [[String: Any]] {
            for (outcome, count) in group["outcomes"] as! [String: Int] {
                let labels = [
                    "outcome": outcome, "flow": group["flow"] as! String, "app": group["app"] as! String,
                    "environment": group["environment"] as! String,
                ]
                #expect(value("flipaudit_sessions", labels) == Double(count))
            }
        }

        // Findings: every kind present, counts as in the JSON.
        let findings = json["findings"] as! [String: Any]
        #expect(samples.filter { $0.name == "flipaudit_findings" }.count == FindingKind.allCases.count)
        #expect(sum("flipaudit_findings") == Double(findings["total"] as! Int))
        for (severity, count) in findings["by_severity"] as! [String: Int] {
            #expect(sum("flipaudit_findings", where: ["severity": severity]) == Double(count), "\(severity)")
        }
        let byKind = findings["by_kind"] as! [[String: Any]]
        #expect(!byKind.isEmpty)
        for kind in byKind {
            #expect(value("flipaudit_findings", ["kind": kind["kind"] as! String, "severity": kind["severity"] as! String]) == Double(kind["count"] as! Int))
        }

        // Errors by value.
        let errorTotals = json["error_totals"] as! [[String: Any]]
        #expect(!errorTotals.isEmpty && errorTotals.count <= MetricsReport.errorValueLimit)
        for e in errorTotals {
            #expect(value("flipaudit_error_sessions", ["error": TerminalText.escape(e["error"] as! String)]) == Double(e["count"] as! Int))
        }

        // The run itself.
        #expect(value("flipaudit_last_run_exit_status") == 0)
        let now = Date().timeIntervalSince1970
        let ended = try #require(value("flipaudit_last_run_timestamp_seconds"))
        #expect(abs(ended - now) < 600)
        #expect(value("flipaudit_last_success_timestamp_seconds") == ended)
        let duration = try #require(value("flipaudit_last_run_duration_seconds"))
        #expect(duration > 0 && duration < 600)
    }

    @Test("each family has HELP and TYPE gauge lines before its samples, names flipaudit_ and no _total")
    func families() throws {
        let result = try Audit.run(samplePaths()).result
        let text = MetricsReport.render(result, exitStatus: 0, duration: 1.5, now: 1_700_000_000.25)
        var typed: Set<String> = []
        var helped: Set<String> = []
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ")
            if line.hasPrefix("# HELP ") {
                helped.insert(String(parts[2]))
            } else if line.hasPrefix("# TYPE ") {
                #expect(parts[3] == "gauge"); typed.insert(String(parts[2]))
            } else {
                let name = String(line.prefix { $0 != "{" && $0 != " " })
                #expect(typed.contains(name) && helped.contains(name), "\(name) before its HELP/TYPE")
                #expect(name.hasPrefix("flipaudit_") && !name.hasSuffix("_total"))
            }
        }
        // Every family is in docs/outputs.md's table.
        let docs = try String(contentsOfFile: docsFolder + "/outputs.md", encoding: .utf8)
        for name in typed { #expect(docs.contains("| `\(name)`") || docs.contains(", `\(name)`"), "\(name) is not in docs/outputs.md") }
        let samples = try parseMetrics(text)
        #expect(samples.first { $0.name == "flipaudit_last_run_duration_seconds" }?.value == 1.5)
        #expect(samples.first { $0.name == "flipaudit_last_run_timestamp_seconds" }?.value == 1_700_000_000.25)
    }

    @Test("label values from the logs are escaped and read back unchanged")
    func hostileLabels() throws {
        let error = "evil\"} 1\nflipaudit_fake 9\\\u{1B}[2J"
        let run = audit([combined(1, authorize(), 302, location: "\(opa)?error=\(enc(error))&state=s1")])
        let text = MetricsReport.render(run.result, exitStatus: 0, duration: 0, now: 0)
        let samples = try parseMetrics(text)
        #expect(!samples.contains { $0.name == "flipaudit_fake" })
        #expect(!text.contains("\u{1B}"))
        #expect(samples.first { $0.name == "flipaudit_error_sessions" }?.labels["error"] == MetricsReport.shown(error))
        #expect(text.contains(#"error="evil\"} 1\\x0aflipaudit_fake 9\\\\\\x1b[2J""#))
        // A line feed and the text `\x0a` are two values, two series.
        let twins = audit([
            combined(1, authorize(state: "a"), 302, location: "\(opa)?error=x%0Ay&state=a"),
            combined(2, authorize(state: "b"), 302, location: "\(opa)?error=x%5Cx0ay&state=b"),
        ])
        let labels = try parseMetrics(MetricsReport.render(twins.result, exitStatus: 0, duration: 0, now: 0))
            .filter { $0.name == "flipaudit_error_sessions" }.compactMap { $0.labels["error"] }
        #expect(labels.count == 2 && Set(labels).count == 2)
        #expect(MetricsText.escapeLabel("a\\b\"c\nd") == #"a\\b\"c\nd"#)
    }

    @Test("past the cap, the rarest error values are summed as (other)")
    func errorCap() throws {
        var lines: [String] = []
        for i in 0..<(MetricsReport.errorValueLimit + 5) {
            lines.append(combined(i, authorize(state: "s\(i)"), 302, location: "\(opa)?error=e\(i)&state=s\(i)"))
        }
        let run = audit(lines)
        let samples = try parseMetrics(MetricsReport.render(run.result, exitStatus: 0, duration: 0, now: 0))
            .filter { $0.name == "flipaudit_error_sessions" }
        #expect(samples.count == MetricsReport.errorValueLimit)
        #expect(samples.reduce(0) { $0 + $1.value } == Double(lines.count))
        #expect(samples.last?.labels["error"] == MetricsReport.otherErrors)
        #expect(samples.last?.value == 6)
        // A value from the logs that is itself "(other)" joins the sum:
        // one series of that name, the counts all there.
        lines.append(combined(40, authorize(state: "o"), 302, location: "\(opa)?error=%28other%29&state=o"))
        let withOther = try parseMetrics(MetricsReport.render(audit(lines).result, exitStatus: 0, duration: 0, now: 0))
            .filter { $0.name == "flipaudit_error_sessions" }
        #expect(withOther.filter { $0.labels["error"] == MetricsReport.otherErrors }.count == 1)
        #expect(withOther.reduce(0) { $0 + $1.value } == Double(lines.count))
    }

    @Test("a failed run keeps the previous last-success time; a successful one sets its own")
    func lastSuccess() throws {
        let result = try Audit.run(samplePaths()).result
        let failed = MetricsReport.render(result, exitStatus: 3, duration: 1, now: 2000, previousSuccess: 1000)
        #expect(MetricsReport.lastSuccess(in: failed) == 1000)
        let first = MetricsReport.render(result, exitStatus: 3, duration: 1, now: 2000)
        #expect(MetricsReport.lastSuccess(in: first) == nil)
        let alerting = MetricsReport.render(result, exitStatus: 1, duration: 1, now: 3000, previousSuccess: 1000)
        #expect(MetricsReport.lastSuccess(in: alerting) == 3000)
    }

    @Test("a run with an unreadable input writes exit status 3 and keeps the earlier success time")
    func cliFailure() throws {
        let dir = temporaryDirectory()
        let path = dir + "/flipaudit.prom"
        #expect(try runCLI([sampleLogs, "--metrics", path, "--quiet"]).status == 0)
        let success = try #require(MetricsReport.lastSuccess(in: String(contentsOfFile: path, encoding: .utf8)))
        #expect(try runCLI([sampleLogs, "/nonexistent.log", "--metrics", path, "--quiet"]).status == 3)
        let samples = try parseMetrics(String(contentsOfFile: path, encoding: .utf8))
        #expect(samples.first { $0.name == "flipaudit_last_run_exit_status" }?.value == 3)
        #expect(samples.first { $0.name == "flipaudit_input_files_with_errors" }?.value == 1)
        #expect(samples.first { $0.name == "flipaudit_last_success_timestamp_seconds" }?.value == success)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["flipaudit.prom"])
    }
}
