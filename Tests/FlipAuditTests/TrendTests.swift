import Foundation
import Testing

@testable import Audit
@testable import Reports
@testable import Rules

@Suite("--checkpoint keeps each run's totals; the reports show the trends (docs/contract.md §9)")
struct TrendTests {
    /// Chains `nights` through checkpoints, as the nightly job does.
    private func chain(_ nights: [[String]]) throws -> [AuditResult] {
        var config = AuditConfiguration()
        config.fingerprint = .keyed(Fingerprint.newKey())
        var carried: Checkpoint?
        var results: [AuditResult] = []
        for night in nights {
            let result = try Analyzer(configuration: config).run(night, carry: true, carried: carried)
            // Through the bytes, as the next night reads it.
            carried = try Checkpoint.decode(try #require(result.checkpoint).encoded())
            results.append(result)
        }
        return results
    }

    @Test("over the samples and the next night: each run's totals kept, read back, gone and new marked")
    func samples() throws {
        // A third night of one line after the second's end: it audits what
        // the second left waiting, so kinds of the second are gone.
        let quiet = writeLog(
            ["203.0.113.1 - - [22/Nov/2026:12:00:00 +0000] \"GET /healthz HTTP/1.1\" 200 2 \"-\" \"probe/1.0\" \"-\""],
            named: "quiet.log", in: temporaryDirectory())
        let results = try chain([[sampleLogs], [sampleLogs + "-next"], [quiet]])
        let (one, two, three) = (results[0], results[1], results[2])
        let totals = try #require(three.checkpoint?.totals)
        #expect(totals.map(\.run) == [1, 2, 3])
        #expect(try Checkpoint.decode(three.checkpoint!.encoded()).totals == totals)
        for (t, r) in zip(totals, results) {
            #expect(t.findings == Dictionary(uniqueKeysWithValues: r.statistics.findingsByKind.filter { $0.value > 0 }.map { ($0.key.rawValue, $0.value) }))
            #expect(t.outcomes.values.reduce(0, +) == r.statistics.sessions)
            #expect(t.severities.values.reduce(0, +) == r.findingCount)
            let errors = r.statistics.errorTotals
            #expect(t.errors.values.reduce(0, +) + t.otherErrors == errors.reduce(0) { $0 + $1.count })
        }
        // What a night lost and gained, from the runs' own counts.
        let kindsOne = Set(one.statistics.findingsByKind.filter { $0.value > 0 }.keys)
        let kindsTwo = Set(two.statistics.findingsByKind.filter { $0.value > 0 }.keys)
        let kindsThree = Set(three.statistics.findingsByKind.filter { $0.value > 0 }.keys)
        #expect(Set(two.newKinds) == kindsTwo.subtracting(kindsOne))
        let gone = kindsTwo.subtracting(kindsThree)
        #expect(!gone.isEmpty && !kindsThree.isEmpty)
        #expect(Set(three.newKinds) == kindsThree.subtracting(kindsTwo))
        let last = HTMLReport.render(three, failOn: nil)
        for kind in gone { #expect(last.contains("<tr data-trend-kind=\"\(kind.rawValue)\" data-trend=\"gone\">")) }
        for kind in kindsThree.intersection(kindsTwo) { #expect(last.contains("<tr data-trend-kind=\"\(kind.rawValue)\" data-trend=\"same\">")) }
        // Beside the verdict, every kind whose count moved, as the runs' own
        // counts say, and none that did not.
        for kind in FindingKind.allCases {
            let before = two.statistics.findingsByKind[kind] ?? 0
            let now = three.statistics.findingsByKind[kind] ?? 0
            let change = before == now ? nil : now == 0 ? "gone" : before == 0 ? "new" : now > before ? "up" : "down"
            #expect(
                last.contains("<li data-changed-kind=\"\(kind.rawValue)\" data-change=") == (change != nil)
                    && (change.map { last.contains("data-changed-kind=\"\(kind.rawValue)\" data-change=\"\($0)\"") } ?? true),
                "\(kind)")
        }
        let html = HTMLReport.render(two, failOn: nil)
        let errorsOne = Set(one.statistics.errorTotals.map(\.error))
        let newErrors = two.statistics.errorTotals.map(\.error).filter { !errorsOne.contains($0) }
        #expect(!newErrors.isEmpty)
        for e in newErrors { #expect(html.contains("data-trend-error=\"\(HTMLEscaping.escape(e, limit: HTMLReport.valueLimit))\" data-trend=\"new\"")) }
        // One line per kind: an SVG polyline through both runs, no script.
        #expect(html.contains("<polyline points="))
        #expect(!html.lowercased().contains("<script"))
        // The first run has nothing to compare with.
        #expect(one.newKinds.isEmpty)
        #expect(HTMLReport.render(one, failOn: nil).contains("nothing to compare with yet"))
        // Without a checkpoint: no trends section at all.
        let alone = try Analyzer(configuration: AuditConfiguration()).run([sampleLogs])
        #expect(!HTMLReport.render(alone, failOn: nil).contains("id=\"trends\""))
    }

    @Test("a kind found tonight and not last night is named new in the summary, JSON and HTML")
    func newKind() throws {
        let dir = temporaryDirectory()
        let night1 = writeLog(
            [combined(0, authorize(state: "n1"), 302, location: "\(opa)?code=C1&state=n1")], named: "night1.log", in: dir)
        let night2 = writeLog(
            [
                combined(0, authorize(state: "n2"), 302, location: "\(opa)?code=C2&state=n2", minute: 30),
                combined(10, authorize(state: "n3"), 302, location: "\(opa)?code=C3&state=WRONG", minute: 30),
            ], named: "night2.log", in: dir)
        let results = try chain([[night1], [night2]])
        #expect(results[0].findingCount == 0)
        #expect(results[1].newKinds == [.stateMismatch])
        let json = try JSONReport.render(results[1])
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(doc["new_kinds"] as? [String] == ["state-mismatch"])
        #expect(TerminalReport(color: false).render(results[1]).contains("new since the previous run: state-mismatch"))
        let html = HTMLReport.render(results[1], failOn: nil)
        #expect(html.contains("data-new-kinds=\"state-mismatch\""))
        // Next to the verdict, before the coverage and the findings: what
        // changed since the previous run.
        let changed = try #require(html.range(of: "<section id=\"changed\">"))
        let verdict = try #require(html.range(of: "<section id=\"verdict\""))
        let coverage = try #require(html.range(of: "<section id=\"coverage\""))
        #expect(verdict.upperBound < changed.lowerBound && changed.upperBound < coverage.lowerBound)
        #expect(html.contains("<li data-changed-kind=\"state-mismatch\" data-change=\"new\"><a href=\"#kind-state-mismatch\">"))
        #expect(html.contains("0 \u{2192} 1 (new)"))
        // The first night has no previous run: no such section.
        #expect(!HTMLReport.render(results[0], failOn: nil).contains("id=\"changed\""))
        #expect(html.contains("<tr data-trend-kind=\"state-mismatch\" data-trend=\"new\">"))
        // Without a checkpoint the JSON names none.
        let plain = try JSONReport.render(try Analyzer(configuration: AuditConfiguration()).run([night2]))
        #expect(plain.contains("\"new_kinds\" : [\n\n  ]"))
    }

    @Test("the last 60 runs are kept, oldest dropped first")
    func kept() throws {
        let dir = temporaryDirectory()
        let log = writeLog([combined(0, authorize(state: "k"), 302, location: "\(opa)?code=K&state=k")], named: "k.log", in: dir)
        var config = AuditConfiguration()
        config.fingerprint = .keyed(Fingerprint.newKey())
        var carried = try #require(try Analyzer(configuration: config).run([log], carry: true).checkpoint)
        let old = carried.totals[0]
        carried.run = 100
        carried.audited = []
        carried.totals = (41...100).map { n in
            var t = old; t.run = n; return t
        }
        let next = try Analyzer(configuration: config).run(
            [writeLog([combined(0, authorize(state: "k2"), 200, minute: 50)], named: "k2.log", in: dir)], carry: true, carried: carried)
        let totals = try #require(next.checkpoint?.totals)
        #expect(totals.count == RunTotals.kept)
        #expect(totals.first?.run == 42 && totals.last?.run == 101)
    }

    @Test("totals lines are checked when read: names, counts, order, number of runs")
    func damaged() throws {
        let dir = temporaryDirectory()
        // The first session expires before the watermark: its run counts it.
        let log = writeLog(
            [
                combined(0, authorize(state: "d"), 302, location: "\(opa)?error=cancelled&state=d"),
                combined(0, authorize(state: "e"), 200, minute: 50),
            ], named: "d.log", in: dir)
        var config = AuditConfiguration()
        config.fingerprint = .keyed(Fingerprint.newKey())
        let checkpoint = try #require(try Analyzer(configuration: config).run([log], carry: true).checkpoint)
        let text = String(decoding: checkpoint.encoded(), as: UTF8.self)
        let body = text.split(separator: "\n").dropLast().joined(separator: "\n") + "\n"
        let line = try #require(body.split(separator: "\n").first { $0.hasPrefix("totals\t") })
        #expect(line.contains("\"errors\":{\"cancelled\":1}"))
        for (bad, reason) in [
            (line.replacingOccurrences(of: "\"cancelled\":1", with: "\"cancelled\":-1"), "totals count out of range"),
            (line.replacingOccurrences(of: "\"outcomes\":{", with: "\"outcomes\":{\"lost\":1,"), "unknown name in totals"),
            (line.replacingOccurrences(of: "{\"errors\"", with: "[\"errors\""), "bad totals"),
            (line.replacingOccurrences(of: "totals\t1\t", with: "totals\t2\t"), "past the checkpoint's run"),
            (line + "\n" + line, "totals out of order"),
        ] {
            let damaged = Checkpoint.sealing(Array(body.replacingOccurrences(of: String(line), with: bad).utf8))
            #expect(throws: Checkpoint.Damaged.self) { try Checkpoint.decode(damaged) }
            do { _ = try Checkpoint.decode(damaged) } catch { #expect(error.description.contains(reason), "\(reason): \(error)") }
        }
        // A version 2 file without totals lines (written before trends) reads.
        let without = body.split(separator: "\n").filter { !$0.hasPrefix("totals\t") }.joined(separator: "\n") + "\n"
        #expect(try Checkpoint.decode(Checkpoint.sealing(Array(without.utf8))).totals.isEmpty)
    }
}
