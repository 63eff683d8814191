import Foundation
import Testing

@testable import Audit
@testable import Reading
@testable import Reports
@testable import Rules

/// A combined line at a full timestamp (`22/Nov/2026:10:00:00`).
private func at(_ time: String, _ target: String, _ status: Int, _ location: String = "-", ip: String = "203.0.113.9") -> String {
    "\(ip) - - [\(time) +0000] \"GET \(target) HTTP/1.1\" \(status) 0 \"-\" \"GoogleApp/1.0\" \"\(location)\""
}

/// CSV files with the test folder taken out of the source column.
private func portable(_ csv: [String]) -> [String] {
    csv.map { $0.replacingOccurrences(of: #"/[^,\n]*/flipaudit-tests-[^/]*/"#, with: "", options: .regularExpression) }
}

/// A chained run of `paths` on `carried`, rows and the checkpoint it hands on.
private func chained(_ paths: [String], carried: Checkpoint?, parallel: Bool = true) throws -> (Audit, Checkpoint) {
    var config = AuditConfiguration()
    config.fingerprint = .keyed(carried?.key ?? Array(repeating: 9, count: 32))
    config.parallel = parallel
    let rows = RowCollector()
    let result = try Analyzer(configuration: config).run(paths, rows: [rows], carry: true, carried: carried)
    let next = try Checkpoint.decode(result.checkpoint!.encoded())
    return (Audit(result: result, sessions: rows.sessions, findings: rows.findings, csv: []), next)
}

@Suite("Inputs ranked by first record time (docs/contract.md §3)")
struct InputRankTests {
    /// A rotation inside one logged second: the GET is the last line of
    /// the rotated file, its consent POST the first line of the new one.
    /// By name `access.log` sorts first; by first record time it comes
    /// after `access.log.1`.
    @Test("a rotation inside one second keeps the server's order: no false state-reuse or no-return")
    func rotation() {
        let second = "22/Nov/2026:10:00:05"
        let files = [
            "access.log.1": [
                at("22/Nov/2026:09:59:00", "/", 200),
                at(second, authorize(state: "rot"), 200),
            ],
            "access.log": [
                at(second, authorize(state: "rot"), 302, "\(opa)?code=c1&state=rot"),
                at("22/Nov/2026:10:03:00", "/", 200),
            ],
        ]
        for parallel in [true, false] {
            let a = audit(files) { $0.parallel = parallel }
            #expect(a.inputs.map { URL(fileURLWithPath: $0.displayName).lastPathComponent } == ["access.log.1", "access.log"])
            #expect(a.sessions.count == 1)
            #expect(a.sessions.first?.outcome == .code)
            #expect(!a.kinds().contains(.stateReuse))
            #expect(!a.kinds().contains(.noReturn))
        }
    }

    @Test("ranking does not depend on the order of the arguments")
    func argumentOrder() {
        let files = [
            "b.log": [at("22/Nov/2026:10:00:00", authorize(state: "x"), 200)],
            "a.log": [at("22/Nov/2026:10:00:00", "/consent", 302, "\(opa)?code=c&state=x")],
            "c.log": [at("22/Nov/2026:09:00:00", "/", 200)],
        ]
        let one = audit(files, order: ["a.log", "b.log", "c.log"])
        let other = audit(files, order: ["c.log", "b.log", "a.log"])
        #expect(portable(one.csv) == portable(other.csv))
        // c first (earliest record), then a and b by name at equal times.
        #expect(one.inputs.map { URL(fileURLWithPath: $0.displayName).lastPathComponent } == ["c.log", "a.log", "b.log"])
    }
}

@Suite("Duplicate records (docs/contract.md §8)")
struct DuplicateTests {
    let lines = [
        at("22/Nov/2026:10:00:00", authorize(state: "d1"), 302, "\(opa)?code=dc1&state=d1"),
        at("22/Nov/2026:10:00:07", authorize(state: "d2"), 200),
        at("22/Nov/2026:10:00:09", "/consent", 302, "\(opa)?code=dc2&state=d2"),
    ]

    @Test("a file kept twice under two names is audited once: no code-reuse, no duplicate-return")
    func twoCopies() {
        for parallel in [true, false] {
            let once = audit(["a.log": lines]) { $0.parallel = parallel }
            let twice = audit(["a.log": lines, "copy.log": lines]) { $0.parallel = parallel }
            #expect(twice.findings.map(\.kind) == once.findings.map(\.kind))
            #expect(twice.sessions.map(\.state) == once.sessions.map(\.state))
            #expect(twice.accounting.duplicateRecords == 3)
            #expect(once.accounting.duplicateRecords == 0)
            #expect(!twice.kinds().contains(.codeReuse))
        }
    }

    @Test("identical lines within one input are all audited (a double tap is real)")
    func doubleTap() {
        let tap = at("22/Nov/2026:10:00:00", authorize(state: "t"), 302, "\(opa)?code=tc&state=t")
        let a = audit(["a.log": [tap, tap]])
        #expect(a.accounting.duplicateRecords == 0)
        #expect(a.sessions.count == 2)
    }

    @Test("the sorting pass and the streaming pass agree on duplicates")
    func passes() {
        let files = ["a.log": lines, "b.log": lines + [lines[0]]]
        let streaming = audit(files)
        let sorting = audit(files) { $0.alwaysSort = true }
        #expect(portable(streaming.csv) == portable(sorting.csv))
        #expect(streaming.accounting.duplicateRecords == sorting.accounting.duplicateRecords)
        // b.log holds lines[0] twice, a.log once: audited twice (max(n, m)).
        #expect(streaming.accounting.duplicateRecords == 3)
    }

    @Test("a line held twice by one input and once by another is audited twice, whichever ranks first")
    func doubleTapBesideACopy() {
        let request = at("22/Nov/2026:10:00:00", authorize(state: "t"), 200)
        let back = at("22/Nov/2026:10:00:04", "/consent", 302, "\(opa)?code=tc&state=t")
        let twice = [request, back, request, back]
        for parallel in [true, false] {
            let alone = audit(["c_twice.log": twice]) { $0.parallel = parallel }
            #expect(alone.kinds().contains(.duplicateReturn))
            for once in ["b_once.log", "d_once.log"] {
                let both = audit([once: [request, back], "c_twice.log": twice]) { $0.parallel = parallel }
                #expect(both.findings.map(\.kind.rawValue).sorted() == alone.findings.map(\.kind.rawValue).sorted(), "\(once)")
                #expect(both.sessions.count == alone.sessions.count, "\(once)")
                #expect(both.accounting.duplicateRecords == 2, "\(once)")
            }
        }
    }

    @Test("the end of a night fed again changes nothing but the duplicate count")
    func refed() throws {
        let dir = temporaryDirectory()
        let night = writeLog(lines, named: "night.log", in: dir)
        let tail = writeLog(Array(lines.suffix(2)), named: "tail.log", in: dir)
        let (_, checkpoint) = try chained([night], carried: nil)
        #expect(checkpoint.records.count == 3)
        let (again, _) = try chained([tail], carried: checkpoint)
        #expect(again.findings.isEmpty)
        #expect(again.sessions.isEmpty)
        #expect(again.accounting.duplicateRecords == 2)
    }
}

@Suite("The watermark, late and future records (docs/contract.md §8, §9)")
struct WatermarkTests {
    @Test("the watermark is the least of the inputs' newest times; a session expired within the window before it is carried")
    func watermark() throws {
        let dir = temporaryDirectory()
        // Server a ends at 10:20, server b at 10:25 (within the session
        // timeout: a is not quiet): the watermark is 10:20.
        let a = writeLog(
            [at("22/Nov/2026:10:00:00", authorize(state: "w"), 200), at("22/Nov/2026:10:20:00", "/", 200)], named: "a.log", in: dir)
        let b = writeLog([at("22/Nov/2026:10:25:00", "/", 200)], named: "b.log", in: dir)
        let (first, checkpoint) = try chained([a, b], carried: nil)
        #expect(checkpoint.watermark == AuditConfiguration.parseTime("2026-11-22T10:20:00Z")!)
        // Expired at 10:10, within the window before 10:20? No: 10 minutes
        // before, beyond 300 s: closed as no-return now.
        #expect(first.sessions.map(\.outcome) == [.noReturn])
        // Expiring 10:16:40, within the 300 s before 10:20: carried.
        let c = writeLog(
            [at("22/Nov/2026:10:06:40", authorize(state: "v"), 200), at("22/Nov/2026:10:20:00", "/", 200)], named: "c.log", in: dir)
        let (second, carried) = try chained([c], carried: nil)
        #expect(second.sessions.isEmpty)
        #expect(carried.openSessions == 1)
        // A late-arriving return (10:16:00, after the watermark less the
        // window) still joins it in the next run.
        let d = writeLog(
            [at("22/Nov/2026:10:16:00", "/consent", 302, "\(opa)?code=lc&state=v"), at("22/Nov/2026:10:40:00", "/", 200)],
            named: "d.log", in: dir)
        let (third, _) = try chained([d], carried: carried)
        #expect(third.sessions.map(\.outcome) == [.code])
        #expect(third.accounting.lateRecords == 0)
    }

    @Test("records older than the watermark less the window are late: counted, listed, left out; the watermark stays")
    func late() throws {
        let dir = temporaryDirectory()
        let n1 = writeLog([at("22/Nov/2026:10:00:00", "/", 200), at("22/Nov/2026:11:00:00", "/", 200)], named: "n1.log", in: dir)
        let (_, checkpoint) = try chained([n1], carried: nil)
        let old = writeLog(
            [
                at("22/Nov/2026:10:54:00", authorize(state: "old"), 302, "\(opa)?code=oc&state=old"),
                at("22/Nov/2026:10:56:00", authorize(state: "ok"), 302, "\(opa)?code=okc&state=ok"),
            ], named: "n2.log", in: dir)
        for parallel in [true, false] {
            let (run, next) = try chained([old], carried: checkpoint, parallel: parallel)
            #expect(run.accounting.lateRecords == 1)
            #expect(
                run.accounting.lateExamples.first?.hasSuffix(
                    "n2.log:1: late record (2026-11-22T10:54:00.000Z lies before the checkpoint's watermark less 300 s); left out of the audit") == true)
            #expect(run.sessions.isEmpty)
            #expect(next.sessions.map(\.state) == ["ok"])
            #expect(next.watermark == checkpoint.watermark)
            #expect(!run.result.mostlyLate)
        }
        let older = writeLog([at("22/Nov/2026:09:00:00", "/", 200)], named: "n0.log", in: dir)
        let (mostly, _) = try chained([older], carried: checkpoint)
        #expect(mostly.result.mostlyLate)
        // Said first in the summary after the coverage, and in the HTML,
        // JSON and metrics.
        let summary = TerminalReport(color: false).render(mostly.result)
        let afterCoverage = summary.components(separatedBy: "\n\n").dropFirst().first ?? ""
        #expect(afterCoverage.hasPrefix("MOSTLY LATE: 1 of 1 records lie before the checkpoint's watermark 2026-11-22T11:00:00.000Z"))
        let html = HTMLReport.render(mostly.result, failOn: nil)
        #expect(html.contains("<strong>Mostly late:</strong>") && html.contains("<span data-total=\"late_records\">1</span>"))
        let json = try JSONReport.render(mostly.result)
        #expect(json.contains("\"mostly_late\" : {") && json.contains("\"watermark\" : \"2026-11-22T11:00:00.000Z\""))
        let metrics = MetricsReport.render(mostly.result, exitStatus: 0, duration: 1, now: 0)
        #expect(metrics.contains("\nflipaudit_mostly_late 1\n") && metrics.contains("\nflipaudit_late_records 1\n"))
    }

    @Test("a record more than an hour after the run's start is malformed: time in the future")
    func future() {
        let a = audit([at("22/Nov/2026:10:00:00", "/", 200), at("22/Nov/2099:10:00:00", "/", 200)])
        #expect(a.accounting.records == 1)
        #expect(a.accounting.malformedByReason["time in the future"] == 1)
        let b = audit([at("22/Nov/2026:10:00:00", "/", 200), at("22/Nov/2026:10:59:00", "/", 200), at("22/Nov/2026:11:01:00", "/", 200)]) {
            $0.futureAfter = AuditConfiguration.futureLimit(now: AuditConfiguration.parseTime("2026-11-22T10:00:00Z")!)
        }
        #expect(b.accounting.records == 2)
        #expect(b.accounting.malformedLines == 1)
    }
}
