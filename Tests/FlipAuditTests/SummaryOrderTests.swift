import Foundation
import Testing

@testable import Audit
@testable import Reports
@testable import Rules

/// docs/contract.md §6: the summary shows findings first, then inputs,
/// outcomes and the error types, whose per-period part is one line per
/// period (the latest `periodLimit`) with its most frequent values.
@Suite("Summary order")
struct SummaryOrderTests {
    @Test("every line fits 120 columns: examples cut after FILE:LINE, prose wrapped; each kind says what to fix")
    func width() throws {
        var configuration = AuditConfiguration()
        configuration.bucket = .hour
        let result = try Audit.run(samplePaths(), configuration).result
        let text = TerminalReport(color: false).render(result)
        let lines = text.split(separator: "\n").map(String.init)
        // The samples have lines of up to 328 columns unwrapped.
        for line in lines { #expect(DisplayWidth.of(line) <= 120, "\(line)") }
        // Every example shown keeps its FILE:LINE whole.
        for examples in result.findingExamples.values {
            for f in examples.prefix(3) { #expect(text.contains("      " + result.describe(f.source) + (f.state.isEmpty ? ":" : " state"))) }
        }
        let cut = lines.filter { $0.hasSuffix("…") }
        #expect(!cut.isEmpty && cut.allSatisfy { $0.hasPrefix("      ") && $0.contains("SampleLogs/") })
        // What to fix, under each kind present.
        for kind in FindingKind.allCases where (result.statistics.findingsByKind[kind] ?? 0) > 0 {
            let heading = try #require(lines.firstIndex { $0.hasPrefix("    \(kind.rawValue) ×") })
            let fix = try #require(lines[heading...].firstIndex { $0.hasPrefix("      fix: ") })
            // Under its heading (wrapped or not), before any example.
            #expect(lines[(heading + 1)..<fix].allSatisfy { $0.hasPrefix("        ") })
            #expect(lines[fix].hasPrefix("      fix: " + kind.fix.replacingOccurrences(of: "`", with: "").prefix(40)), "\(kind)")
        }
        // The nginx advice still reads as one log_format, on two lines.
        #expect(text.contains("      log_format flip '$remote_addr - $remote_user [$time_local] \"$request\" $status $body_bytes_sent '\n"))
    }

    @Test("a cut never splits the kept part, counts wide characters twice and ignores colour codes")
    func cutting() {
        let keep = "      a.log:7"
        let cut = SummaryWidth.cut(keep, ": " + String(repeating: "界", count: 80))
        #expect(cut.hasPrefix(keep) && cut.hasSuffix("…") && DisplayWidth.of(cut) <= 120 && DisplayWidth.of(cut) >= 119)
        let painted = "\u{1B}[33m  warning: \u{1B}[0m" + Array(repeating: "word", count: 40).joined(separator: " ")
        let wrapped = SummaryWidth.wrap(painted).split(separator: "\n")
        #expect(wrapped.count == 2 && wrapped.allSatisfy { SummaryWidth.visible(String($0)) <= 120 })
        #expect(wrapped[1].hasPrefix("      word"))
        #expect(SummaryWidth.wrap("  - " + String(repeating: "x", count: 200)) == "  - " + String(repeating: "x", count: 200))
    }

    @Test("coverage first, then findings; error types per period in one line each; the verdict last")
    func order() throws {
        var configuration = AuditConfiguration()
        configuration.bucket = .hour
        let result = try Audit.run(samplePaths(), configuration).result
        var report = TerminalReport(color: false)
        // The samples span more hours than that: the latest 2 are shown.
        report.periodLimit = 2
        let text = report.render(result)
        let headings = text.split(separator: "\n").filter { $0.first.map { $0.isUppercase } ?? false }.map { String($0.prefix { $0 != " " }) }
        #expect(headings == ["COVERAGE", "FINDINGS", "INPUT", "SESSIONS", "ERROR", "LATENCY", "NOTES", "PARTIAL"])
        // Within a severity, what leaks a code to a foreign host first; each
        // kind says how many more it has than its examples.
        let leak = try #require(text.range(of: "code-to-unlisted-redirect ×"))
        let mismatch = try #require(text.range(of: "state-mismatch ×"))
        #expect(leak.lowerBound < mismatch.lowerBound)
        let examples = report.examplesPerKind
        let leaks = result.statistics.findingsByKind[.codeToUnlistedRedirect]!
        #expect(leaks > examples && text.contains("      … \(leaks - examples) more (findings.csv, or --json)\n"))

        // Totals per hour, from the error_distribution rows' `*` totals.
        var totals: [String: Int] = [:]
        for row in result.statistics.errorDistributionRows where row.error == "*" { totals[row.period, default: 0] += row.count }
        let periods = totals.keys.sorted()
        #expect(periods.count > report.periodLimit)
        let lines = text.split(separator: "\n").map(String.init)
        let start = try #require(lines.firstIndex { $0.contains("by period (UTC)") })
        let shown = lines[(start + 1)...].prefix { $0.hasPrefix("    2") }
        #expect(shown.count == report.periodLimit)
        for (line, period) in zip(shown, periods.suffix(report.periodLimit)) {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            #expect(fields[0] == Substring(period) && period.hasSuffix(":00:00Z"))
            #expect(Int(fields[1]) == totals[period])
        }
        #expect(lines[start + 1 + shown.count] == "    … \(periods.count - report.periodLimit) earlier periods")
        // The per-group detail rows are in error_distribution.csv, not here.
        #expect(!text.contains("by period, app and environment"))
    }
}
