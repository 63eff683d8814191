import Foundation
import Testing

@testable import Audit
@testable import Parsing
@testable import Reports
@testable import Rules

/// The repository's docs/ folder.
let docsFolder: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.appendingPathComponent("docs").path
}()

@Suite("HTML report (--html)")
struct HTMLReportTests {
    static let payloads = [#""><img src=x onerror=alert(1)>"#, "<script>alert(1)</script>", "<svg onload=alert(1)>", "'single' & <b>"]

    @Test("escaping covers the five characters, in text and attributes alike")
    func escaping() {
        #expect(HTMLEscaping.escape(#"<a href="x" title='y'>&amp;</a>"#) == "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;")
        #expect(HTMLEscaping.escape("plain text") == "plain text")
        #expect(HTMLEscaping.escape("rtl\u{202E}txt\u{1B}[2J") == "rtl\\u{202E}txt\\x1b[2J")
        #expect(HTMLEscaping.escape(String(repeating: "<", count: 10), limit: 4) == "&lt;&lt;&lt;&lt;…")
        #expect(HTMLEscaping.prose("use `a<b` here") == "use <code>a&lt;b</code> here")
    }

    @Test("markup in state, error, redirect_uri and file name stays text")
    func hostileLog() throws {
        let dir = temporaryDirectory()
        var lines: [String] = []
        for (i, p) in Self.payloads.enumerated() {
            lines.append(combined(i, authorize(state: p), 302, location: "\(opa)?error=\(enc(p))&state=\(enc(p))"))
            lines.append(combined(10 + i, authorize(state: "r\(i)", redirect: "https://oauth-redirect.googleusercontent.com@e.x/" + p), 400))
        }
        let path = writeLog(lines, named: "<svg onload=alert(1)>.log", in: dir)
        let result = try Audit.run([path]).result
        #expect(result.statistics.errorTotals.count == Self.payloads.count)
        let html = HTMLReport.render(result, failOn: .high)
        for p in Self.payloads {
            #expect(!html.contains(p), "\(p) unescaped")
            #expect(html.contains(HTMLEscaping.escape(p)), "\(p) not shown")
        }
        #expect(!html.lowercased().contains("<script"))
        #expect(!html.contains("<img"))
        #expect(!html.contains("<svg onload"))
    }

    @Test("no script, no external resource, a CSP that forbids them")
    func selfContained() throws {
        let html = HTMLReport.render(try Audit.run(samplePaths()).result, failOn: nil)
        #expect(html.contains(#"<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">"#))
        #expect(!html.lowercased().contains("<script"))
        for attribute in [" src=", "url(", "@import", "<link", "<iframe", "<object"] {
            #expect(!html.contains(attribute), "\(attribute) in the page")
        }
        // Links only within the page.
        #expect(html.components(separatedBy: " href=").dropFirst().allSatisfy { $0.hasPrefix("\"#") })
        #expect(html.contains("<svg"))
        #expect(html.hasPrefix("<!DOCTYPE html>"))
    }

    @Test("findings come first, reached from the verdict and the severity counts; the page says what was audited")
    func findingsFirst() throws {
        let result = try Audit.run(samplePaths()).result
        let html = HTMLReport.render(result, failOn: .high, runDate: Date(timeIntervalSince1970: 1_795_500_000))
        let findings = try #require(html.range(of: "<section id=\"findings\">"))
        for later in ["<section id=\"inputs\">", "<section id=\"sessions\">", "<section id=\"errors\">", "<section id=\"latency\">"] {
            #expect(try #require(html.range(of: later)).lowerBound > findings.lowerBound, "\(later) before the findings")
        }
        #expect(html.contains("<a href=\"#findings\">"))
        for severity in Severity.allCases {
            let n = result.statistics.findingsBySeverity[severity] ?? 0
            // A count above zero links to its heading; zero has nothing to reach.
            #expect(html.contains("href=\"#sev-\(severity.rawValue)\"") == (n > 0), "\(severity)")
            #expect(html.contains("id=\"sev-\(severity.rawValue)\"") == (n > 0), "\(severity)")
        }
        // Time range of the flip records (the earliest and latest session
        // or finding times), run date, version, the options that change results.
        let first = try #require(result.statistics.firstTime), last = try #require(result.statistics.lastTime)
        #expect(html.contains("<time data-time=\"first\">\(Timestamp.iso8601(first))</time>"))
        #expect(html.contains("<time data-time=\"last\">\(Timestamp.iso8601(last))</time>"))
        #expect(first <= last)
        #expect(html.contains("run <time>2026-11-24T06:00:00.000Z") && html.contains("flipaudit \(FlipAuditVersion.current)"))
        #expect(html.contains("<code>--format auto</code>") && html.contains("<code>--session-timeout 600</code>"))
    }

    @Test("the verdict follows --fail-on and input errors")
    func verdict() throws {
        let result = try Audit.run(samplePaths()).result
        let bySeverity = result.statistics.findingsBySeverity
        #expect(HTMLReport.verdict(result, failOn: nil).status == "info")
        for threshold in Severity.allCases {
            let above = bySeverity.filter { $0.key >= threshold }.values.reduce(0, +)
            let v = HTMLReport.verdict(result, failOn: threshold)
            #expect(v.status == (above > 0 ? "fail" : "pass"))
            if above > 0 { #expect(v.text.contains("\(above) findings at or above \(threshold.rawValue)")) }
        }
        let broken = try Audit.run(samplePaths() + [fixture("truncated.log.gz")]).result
        #expect(HTMLReport.verdict(broken, failOn: .critical).status == "incomplete")
        let html = HTMLReport.render(broken, failOn: .critical)
        #expect(html.contains("data-total=\"files_with_errors\">1<"))
        #expect(html.contains("truncated.log.gz"))
    }

    @Test("examples and long log values are capped, so the size is bounded")
    func bounded() throws {
        let long = String(repeating: "<x>", count: 2000)
        var lines: [String] = []
        for i in 0..<400 {
            lines.append(
                combined(
                    i % 60, authorize(state: "\(i)" + long), 302,
                    location: "\(opa)?error=\(enc("e\(i)" + long))&state=\(enc("\(i)" + long))", minute: i / 60))
        }
        let result = audit(lines).result
        #expect(result.statistics.findingsByKind[.nonstandardError] == 400)
        let html = HTMLReport.render(result, failOn: nil)
        #expect(html.utf8.count < 400_000, "\(html.utf8.count) bytes")
        let article = html.components(separatedBy: "id=\"kind-nonstandard-error\"")[1].components(separatedBy: "</article>")[0]
        #expect(article.components(separatedBy: "<tr>").count - 2 == HTMLReport.examplesPerKind)
        #expect(article.contains("\(400 - HTMLReport.examplesPerKind) more in findings.csv"))
        #expect(!html.contains(String(repeating: "&lt;x&gt;", count: HTMLReport.valueLimit)))
    }

    @Test("the totals marked data-total equal the JSON summary of the same result")
    func totalsMatchJSON() throws {
        let result = try Audit.run(samplePaths()).result
        let html = HTMLReport.render(result, failOn: .high)
        let json = try JSONSerialization.jsonObject(with: Data(JSONReport.render(result).utf8)) as! [String: Any]
        var shown: [String: String] = [:]
        for part in html.components(separatedBy: "data-total=\"").dropFirst() {
            let key = String(part.prefix { $0 != "\"" })
            let value = part.drop { $0 != ">" }.dropFirst().prefix { $0 != "<" }
            shown[key] = String(value)
        }
        let input = json["input"] as! [String: Any]
        let findings = json["findings"] as! [String: Any]
        var want: [String: Int] = [
            "files": input["files"] as! Int, "lines": input["lines"] as! Int, "records": input["records"] as! Int,
            "malformed_lines": input["malformed_lines"] as! Int, "in_scope_flip_records": input["in_scope_flip_records"] as! Int,
            "sessions": json["sessions"] as! Int, "findings": findings["total"] as! Int,
            "error_sessions": (json["error_totals"] as! [[String: Any]]).reduce(0) { $0 + ($1["count"] as! Int) },
            "latency_count": (json["latency_ms"] as! [String: Any])["count"] as! Int,
            "streams": ((json["deployment"] as! [String: Any])["streams"] as! [Any]).count,
        ]
        for (severity, n) in findings["by_severity"] as! [String: Int] { want["findings-" + severity] = n }
        for (outcome, n) in json["outcomes"] as! [String: Int] where n > 0 { want["outcome-" + outcome] = n }
        for (key, value) in want { #expect(shown[key] == String(value), "\(key)") }
        #expect(Set(shown.keys) == Set(want.keys))
        for kind in findings["by_kind"] as! [[String: Any]] {
            #expect(html.contains("data-kind=\"\(kind["kind"] as! String)\">\(kind["count"] as! Int)<"))
        }
    }

    @Test("the unobservable note gives the nginx line to add")
    func unobservable() throws {
        let result = try Audit.run(samplePaths()).result
        #expect(!result.unobservableFiles.isEmpty)
        let html = HTMLReport.render(result, failOn: nil)
        #expect(html.contains(HTMLEscaping.escape(FormatTable.nginxLine)))
        #expect(html.contains("$sent_http_location"))
    }
}

@Suite("Finding advice and docs/findings.md")
struct FindingAdviceTests {
    @Test("every kind has a meaning and a fix of one or two sentences")
    func advice() {
        for kind in FindingKind.allCases {
            #expect(!kind.meaning.isEmpty)
            let sentences = kind.fix.split(separator: ". ").count
            #expect(kind.fix.hasSuffix(".") && (1...2).contains(sentences), "\(kind.rawValue): \(sentences) sentences")
            #expect(!kind.fix.contains("|"), "a | would break the Markdown table")
        }
    }

    /// Set FLIPAUDIT_WRITE_DOCS=1 to rewrite docs/findings.md's table.
    @Test("docs/findings.md holds each kind's fix text and the generated table exactly")
    func docsMatch() throws {
        let path = docsFolder + "/findings.md"
        var text = try String(contentsOfFile: path, encoding: .utf8)
        let begin = "<!-- table generated from FindingKind: begin -->\n", end = "<!-- table generated from FindingKind: end -->"
        if ProcessInfo.processInfo.environment["FLIPAUDIT_WRITE_DOCS"] == "1" {
            let head = text.components(separatedBy: begin)[0], tail = text.components(separatedBy: end)[1]
            text = head + begin + FindingAdvice.markdownTable + end + tail
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        }
        for kind in FindingKind.allCases {
            #expect(text.contains("| `\(kind.rawValue)` | \(kind.severity.rawValue) | \(kind.meaning) | \(kind.fix) |"), "\(kind.rawValue)")
        }
        #expect(text.contains(begin + FindingAdvice.markdownTable + end), "run FLIPAUDIT_WRITE_DOCS=1 swift test --filter FindingAdviceTests")
    }
}
