import Foundation
import Testing

@testable import Audit
@testable import Reading
@testable import Reports
@testable import Rules

/// The distributed stages run in this process the way an engine runs them:
/// the plan's file lines split across mappers (in either order), the event
/// lines partitioned by key across `partitions` reducers and sorted as
/// bytes, then the code lines the same way, then the merge. The CSV files
/// and the JSON report must be those of one process.
struct StagePipeline {
    var partitions: Int
    var reversed = false

    /// Runs `body` with `lines` (newline-terminated) as its input; its output lines.
    static func filter(_ lines: [[UInt8]], _ body: (LineSource, StageOutput) throws -> Void) throws -> [[UInt8]] {
        let dir = temporaryDirectory()
        let input = writeBytes(lines.flatMap { $0 + [.newline] }, named: "in", in: dir)
        let outPath = dir + "/out"
        let fd = open(outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        defer { close(fd) }
        try body(try LineSource(path: input), StageOutput(descriptor: fd))
        let bytes = [UInt8](FileManager.default.contents(atPath: outPath)!)
        return bytes.split(separator: .newline, omittingEmptySubsequences: false).dropLast().map(Array.init)
    }

    /// Lines dealt to `partitions` parts by their first field, each part sorted as bytes.
    func shuffle(_ lines: [[UInt8]]) -> [[[UInt8]]] {
        var parts = [[[UInt8]]](repeating: [], count: partitions)
        for line in lines {
            var h: UInt32 = 2_166_136_261
            for b in line.prefix(while: { $0 != .tab }) { h = (h ^ UInt32(b)) &* 16_777_619 }
            parts[Int(h % UInt32(partitions))].append(line)
        }
        return parts.map { $0.sorted { $0.lexicographicallyPrecedes($1) } }
    }

    /// The CSV files and JSON report of a distributed audit of `paths`.
    func run(_ paths: [String], _ configuration: AuditConfiguration = AuditConfiguration()) throws -> (csv: [String], json: String) {
        let resolution = InputCatalog.resolve(paths)
        let plan = JobPlan(
            key: Fingerprint.newKey(), options: [], files: FirstRecord.rank(resolution.files, configuration: configuration),
            problems: resolution.problems.map { JobPlan.Problem(name: $0.name, message: "\($0.error)") })
        // Two mappers, each given every other file line.
        var fileLines = plan.files.indices.map { plan.fileLine($0) }
        if reversed { fileLines.reverse() }
        var mapped: [[UInt8]] = []
        for mapper in 0..<2 {
            let mine = fileLines.indices.filter { $0 % 2 == mapper }.map { fileLines[$0] }
            mapped += try Self.filter(mine) { try ReadStage.run(plan: plan, configuration: configuration, input: $0, output: $1, warn: { _ in }) }
        }
        let facts = mapped.filter { $0.starts(with: "facts\t".utf8) }
        let events = mapped.filter { !$0.starts(with: "facts\t".utf8) }
        let factsPath = writeBytes(facts.flatMap { $0 + [.newline] }, named: "facts", in: temporaryDirectory())
        let known = try SessionStage.facts(try LineSource(path: factsPath), plan: plan)
        var reduced: [[UInt8]] = []
        for part in shuffle(events) {
            reduced += try Self.filter(part) {
                try SessionStage.run(plan: plan, configuration: configuration, facts: known, input: $0, output: $1)
            }
        }
        var reuse: [[UInt8]] = []
        for part in shuffle(reduced.filter { $0.starts(with: "c:".utf8) }) {
            reuse += try Self.filter(part) { try CodeStage.run(plan: plan, configuration: configuration, input: $0, output: $1) }
        }
        let toMerge = (reduced.filter { !$0.starts(with: "c:".utf8) } + facts + reuse).reversed()
        let mergePath = writeBytes(toMerge.flatMap { $0 + [.newline] }, named: "merge", in: temporaryDirectory())
        let dir = temporaryDirectory()
        let writer = try CSVWriter(directory: dir)
        let result = try MergeStage.run(
            plan: plan, configuration: configuration, inputs: [try LineSource(path: mergePath)], rows: [writer], warn: { _ in })
        try writer.commit(statistics: result.statistics)
        let csv = try ["sessions.csv", "findings.csv", "error_distribution.csv"].map {
            try String(contentsOfFile: dir + "/" + $0, encoding: .utf8)
        }
        return (csv, try JSONReport.render(result))
    }
}

/// The repository's SampleLogs folders.
func sampleLogs(_ name: String = "SampleLogs") -> String {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent(name).path
}

@Suite("Distributed stages give the bytes of one process (docs/distributed.md)")
struct StageTests {
    /// One process's CSV files and JSON report.
    func single(_ paths: [String], _ configuration: AuditConfiguration = AuditConfiguration()) throws -> (csv: [String], json: String) {
        let audit = try Audit.run(paths, configuration)
        return (audit.csv, try JSONReport.render(audit.result))
    }

    @Test("SampleLogs and the next night: 1, 3 and 7 reducers, file lists either way")
    func samples() throws {
        let paths = [sampleLogs("SampleLogs-next"), sampleLogs()]
        let one = try single(paths)
        #expect(one.csv[1].contains("code-reuse"))
        #expect(one.csv[1].contains("state-reuse"))
        for (partitions, reversed) in [(1, false), (7, true)] {
            let many = try StagePipeline(partitions: partitions, reversed: reversed).run(paths)
            #expect(many.csv == one.csv, "\(partitions) reducers")
            #expect(many.json == one.json, "\(partitions) reducers")
        }
    }

    @Test("the stages judge coverage as one process: a blind input, client IDs seen and unseen, no Location")
    func coverage() throws {
        let dir = temporaryDirectory()
        let good = writeLog([combined(1, authorize(state: "v1"), 302, location: opa + "?code=k1&state=v1")], named: "good.log", in: dir)
        let stock = writeLog([combined(2, authorize(state: "v2"), 302, location: nil)], named: "stock.log", in: dir)
        let junk = writeLog(["hello", "world", "<html>"], named: "junk.log", in: dir)
        var configuration = AuditConfiguration()
        configuration.clientIDs = [googleClient, "G-typo"]
        for paths in [[good, junk], [good, stock]] {
            let one = try single(paths, configuration)
            let many = try StagePipeline(partitions: 3, reversed: true).run(paths, configuration)
            #expect(many.json == one.json && many.csv == one.csv)
            let verdict = paths[1] == junk ? "\"verdict\" : \"blind\"" : "\"verdict\" : \"partial\""
            #expect(many.json.contains(verdict), "\(many.json.prefix(400))")
            #expect(many.json.contains("\"unseen_client_ids\" : [\n      \"G-typo\""))
        }
    }

    /// Four servers' logs that exercise every input-wide rule: a code and a
    /// state reused across files, a file running back in time, Location
    /// logged only from mid-file, records without state, a damaged gzip.
    func hardCase() -> [String] {
        let dir = temporaryDirectory()
        let a = writeLog(
            [
                combined(1, authorize(state: "s1"), 302, location: "\(opa)?code=same&state=s1"),
                combined(3, authorize(state: nil), 400),
                combined(4, authorize(state: "late"), 200),
                combined(20, "/cb", 302, location: "\(opa)?code=lone"),
            ], named: "a.log.gz", in: dir)
        let b = writeLog(
            [
                combined(2, authorize(state: "s2"), 302, location: "\(opa)?code=same&state=s2"),
                combined(30, authorize(state: "s1"), 302, location: "\(opa)?code=other&state=s1"),
                combined(40, authorize(state: "s3"), 302, location: "\(opa)?code=same&state=s3", minute: 20),
                combined(5, authorize(state: "s4"), 200, minute: 2),
            ], named: "b.log", in: dir)
        // Runs back in time by more than the reorder window.
        let c = writeLog(
            [
                combined(50, authorize(state: "c1"), 200, minute: 30),
                combined(6, "/cb", 302, location: "\(opa)?error=access_denied&state=late"),
                combined(7, authorize(state: "c2"), 302, location: "\(opa)?error=odd&state=c2"),
                combined(8, "/cb", 302, location: "\(opa)?code=zz&state=ghost"),
            ], named: "c.log", in: dir)
        // No Location field until its third line.
        let d = writeLog(
            [
                combined(8, authorize(state: "d1"), 200, location: nil),
                combined(9, authorize(state: "d2"), 200, location: nil),
                combined(10, authorize(state: "d3"), 200),
                combined(11, authorize(state: "d2"), 200),
            ], named: "d.log", in: dir)
        let damaged = dir + "/truncated.log.gz"
        try? FileManager.default.copyItem(atPath: fixture("truncated.log.gz"), toPath: damaged)
        return [a, b, c, d, damaged, dir + "/missing.log"]
    }

    @Test("inputs an hour apart: the stages name the offset as one process does")
    func clockOffset() throws {
        let dir = temporaryDirectory()
        let (proxy, backend) = TierTests.logs()
        let paths = [
            writeLog(proxy, named: "proxy.log", in: dir), writeLog(backend.map(ClockOffsetTests.hourLater), named: "backend.log", in: dir),
        ]
        let one = try single(paths)
        #expect(one.json.contains("\"offset_seconds\" : 3600"), "\(one.json)")
        for (partitions, reversed) in [(1, false), (3, true)] {
            #expect(try StagePipeline(partitions: partitions, reversed: reversed).run(paths).json == one.json, "\(partitions) reducers")
        }
    }

    @Test("reuse across files, a late record, Location from mid-file, no state, a damaged gzip")
    func hard() throws {
        let paths = hardCase()
        let one = try single(paths)
        let findings = one.csv[1]
        for kind in ["code-reuse", "state-reuse", "no-return", "unknown-state", "missing-param", "code-without-state"] {
            #expect(findings.contains(kind), "\(kind)")
        }
        #expect(one.csv[0].contains("unobservable"))
        #expect(!one.json.contains("\"out_of_order_records\" : 0"))
        for (partitions, reversed) in [(1, true), (3, false), (7, true)] {
            let many = try StagePipeline(partitions: partitions, reversed: reversed).run(paths)
            #expect(many.csv == one.csv, "\(partitions) reducers")
            #expect(many.json == one.json, "\(partitions) reducers")
        }
        // A short reuse window and timeout change the answer the same way.
        var short = AuditConfiguration()
        short.reuseWindowSeconds = 60
        short.sessionTimeoutSeconds = 5
        short.bucket = .hour
        let oneShort = try single(paths, short)
        #expect(oneShort.csv != one.csv)
        #expect(try StagePipeline(partitions: 3).run(paths, short).csv == oneShort.csv)
    }

    @Test("duplicates: a file kept twice, stateless lines in two inputs, a double tap; as one process counts and drops them")
    func duplicates() throws {
        let dir = temporaryDirectory()
        let lines = [
            combined(1, authorize(state: "d1"), 302, location: "\(opa)?code=dup1&state=d1"),
            combined(2, authorize(state: nil), 400),
            combined(3, "/cb", 302, location: "\(opa)?code=stateless"),
            combined(4, authorize(state: "tap"), 200),
            combined(4, authorize(state: "tap"), 200),
        ]
        let a = writeLog(lines, named: "a.log", in: dir)
        let copy = writeLog(lines, named: "copy.log.gz", in: dir)
        let paths = [a, copy]
        let one = try single(paths)
        // Every line of the copy is a duplicate, the double tap's second
        // line included (it is in the first input too).
        #expect(one.json.contains("\"duplicate_records\" : 5"))
        #expect(!one.csv[1].contains("code-reuse"))
        for (partitions, reversed) in [(1, false), (3, true)] {
            let many = try StagePipeline(partitions: partitions, reversed: reversed).run(paths)
            #expect(many.csv == one.csv, "\(partitions) reducers")
            #expect(many.json == one.json, "\(partitions) reducers")
        }
    }

    @Test("a session given two reused codes names one code-reuse, as one process does")
    func twoReusedCodes() throws {
        let dir = temporaryDirectory()
        let path = writeLog(
            [
                combined(1, authorize(state: "s1"), 302, location: "\(opa)?code=x&state=s1"),
                combined(2, authorize(state: "s2"), 302, location: "\(opa)?code=y&state=s2"),
                combined(3, authorize(state: "s3"), 302, location: "\(opa)?code=y&state=s3"),
                combined(4, "/cb", 302, location: "\(opa)?code=x&state=s3"),
            ], named: "access.log", in: dir)
        let one = try single([path])
        #expect(one.csv[1].components(separatedBy: "code-reuse").count == 2)
        for partitions in [1, 2, 5] {
            #expect(try StagePipeline(partitions: partitions).run([path]).csv == one.csv)
        }
    }
}

@Suite("Stage lines are read back as bad input")
struct StageInputTests {
    func plan(_ paths: [String]) -> JobPlan {
        JobPlan(
            key: Array(repeating: 7, count: 32), options: [],
            files: FirstRecord.rank(InputCatalog.resolve(paths).files, configuration: AuditConfiguration()), problems: [])
    }

    func mapped(_ plan: JobPlan) throws -> [[UInt8]] {
        try StagePipeline.filter(plan.files.indices.map { plan.fileLine($0) }) {
            try ReadStage.run(plan: plan, configuration: AuditConfiguration(), input: $0, output: $1, warn: { _ in })
        }
    }

    @Test("a changed byte or a cut in the plan is refused, naming the line")
    func planDamage() throws {
        let p = plan([sampleLogs()])
        let bytes = p.encoded()
        #expect(try JobPlan.decode(bytes, name: "job.plan") == p)
        var changed = bytes
        changed[40] ^= 1
        #expect(throws: StageError.self) { try JobPlan.decode(changed, name: "job.plan") }
        #expect(throws: StageError.self) { try JobPlan.decode(Array(bytes.dropLast(3)), name: "job.plan") }
        // A file line that is not the plan's own is not read.
        #expect(p.rank(ofFileLine: p.fileLine(0)[...]) == 0)
        #expect(p.rank(ofFileLine: ("12\t".utf8 + p.fileLine(0))[...]) == 0)
        #expect(p.rank(ofFileLine: Array("file\t0\t/etc/passwd\t/etc/passwd".utf8)[...]) == nil)
    }

    @Test("a plan of version 1 (HMAC fingerprints) is refused, naming its version")
    func planVersion() throws {
        let bytes = plan([sampleLogs()]).encoded()
        #expect(bytes.starts(with: "flipaudit plan 2\n".utf8))
        // The same plan as an older flipaudit sealed it: only the version differs.
        let lines = bytes.split(separator: .newline)
        let body = Array("flipaudit plan 1\n".utf8) + lines.dropFirst().dropLast().flatMap { Array($0) + [.newline] }
        let old = SealedText.seal(body, lines: lines.count - 1)
        do {
            _ = try JobPlan.decode(old, name: "job.plan")
            Issue.record("a version 1 plan was read")
        } catch {
            #expect(error.description == "job.plan:1: plan version 1; this flipaudit reads version 2 (make the plan again with its `stage plan`)")
        }
        for first in ["flipaudit checkpoint 3", "flipaudit plan \u{1B}[31m", "flipaudit plan 12345678901"] {
            let other = Array((first + "\n").utf8) + bytes.drop { $0 != .newline }.dropFirst()
            do {
                _ = try JobPlan.decode(other, name: "job.plan")
                Issue.record("\(first) was read as a plan")
            } catch {
                #expect(error.description == "job.plan:1: not a flipaudit plan")
            }
        }
    }

    @Test("unsorted, repeated or tampered event lines stop the session stage")
    func sessionInput() throws {
        let p = plan([sampleLogs()])
        let lines = try mapped(p)
        let facts = lines.filter { $0.starts(with: "facts\t".utf8) }
        let factsPath = writeBytes(facts.flatMap { $0 + [.newline] }, named: "facts", in: temporaryDirectory())
        let known = try SessionStage.facts(try LineSource(path: factsPath), plan: p)
        let events = lines.filter { !$0.starts(with: "facts\t".utf8) }.sorted { $0.lexicographicallyPrecedes($1) }
        func run(_ input: [[UInt8]]) throws -> [[UInt8]] {
            try StagePipeline.filter(input) { try SessionStage.run(plan: p, configuration: AuditConfiguration(), facts: known, input: $0, output: $1) }
        }
        #expect(try run(events).contains { $0.starts(with: "session\t".utf8) })
        var swapped = events
        swapped.swapAt(3, 4)
        #expect { try run(swapped) } throws: { ($0 as? StageError)?.description.contains(":5: not sorted") == true }
        #expect { try run(Array(events.prefix(3)) + [events[2]]) } throws: { ($0 as? StageError)?.description.contains("repeats") == true }
        // The key must be the event's own state.
        var forged = events[0]
        forged.replaceSubrange(0..<3, with: "s:Z".utf8)
        #expect(throws: StageError.self) { try run([forged]) }
        // Facts for a file the plan does not have, or missing facts.
        #expect(throws: StageError.self) { try SessionStage.facts(try LineSource(path: writeBytes([], named: "none", in: temporaryDirectory())), plan: p) }
    }

    @Test("event, code and facts lines round-trip; a raw CR or NUL is refused")
    func roundTrip() throws {
        let p = plan([sampleLogs()])
        let lines = try mapped(p)
        var codec = EventCodec(allowlist: AuditConfiguration().allowlist, fingerprint: .keyed(p.key))
        // The samples hold a state with a NUL (`%00`): written `\0`, so
        // `grep` reads the lines as text; the raw byte is refused.
        #expect(!lines.contains { $0.contains(0) })
        let escaped = Array("\\0".utf8)
        let nul = try #require(lines.first { line in line.indices.dropLast().contains { line[$0...].starts(with: escaped) } })
        let at = nul.indices.dropLast().first { nul[$0...].starts(with: escaped) }!
        var raw = Array(nul)
        raw.replaceSubrange((at - nul.startIndex)..<(at - nul.startIndex + 2), with: [0])
        #expect(throws: TextFields.Malformed.self) { try EventLine.decode(raw[...], codec: &codec) }
        for line in lines where !line.starts(with: "facts\t".utf8) {
            let event = try EventLine.decode(line[...], codec: &codec).event
            var again: [UInt8] = []
            EventLine.encode(event, into: &again)
            #expect(again.dropLast().elementsEqual(line))
        }
        for line in lines where line.starts(with: "facts\t".utf8) {
            var again: [UInt8] = []
            try FileFacts.decode(line[...]).encode(into: &again)
            #expect(again.dropLast().elementsEqual(line))
        }
        let code = CodeReturn(
            key: 0xdead_beef, digest: "sha256:0123456789ab", time: -5, source: SourceRef(file: 1, line: 2),
            session: SourceRef(file: 0, line: 9), state: "a\tb\r\\c\u{1}", clientID: "G", redirectURI: opa)
        var out: [UInt8] = []
        CodeLine.encode(code, into: &out)
        #expect(!out.dropLast().contains(.carriageReturn) && !out.dropLast().contains(.newline))
        #expect(try CodeLine.decode(out.dropLast()) == code)
        #expect(throws: TextFields.Malformed.self) { try TextFields.text(Array("a\rb".utf8)[...]) }
        // Negative and positive times sort as bytes as they do as numbers.
        var early: [UInt8] = []
        var late: [UInt8] = []
        SortFields.time(-1, &early)
        SortFields.time(1, &late)
        #expect(early.lexicographicallyPrecedes(late))
        #expect(try SortFields.time(early[...]) == -1)
    }

    @Test("times and counts that would overflow the audit's arithmetic are refused")
    func outOfRange() throws {
        let p = plan([sampleLogs()])
        let lines = try mapped(p)
        // An event at the far end of Int64 time.
        var codec = EventCodec(allowlist: AuditConfiguration().allowlist, fingerprint: .keyed(p.key))
        let event = lines.first { !$0.starts(with: "facts\t".utf8) }!
        var far: [UInt8] = []
        SortFields.time(.max - 5, &far)
        var forged = Array(event)
        let timeField = forged.firstIndex(of: .tab)! + 1
        forged.replaceSubrange(timeField..<(timeField + 20), with: far)
        #expect(throws: TextFields.Malformed.self) { try EventLine.decode(forged[...], codec: &codec) }
        #expect(throws: TextFields.Malformed.self) { try TextFields.time(Array("9223372036854775000".utf8)[...], "time") }
        #expect(try TextFields.time(Array("-62135596800000".utf8)[...], "time") == -62_135_596_800_000)
        // Facts whose counts would overflow once added up.
        var facts = try FileFacts.decode(lines.first { $0.starts(with: "facts\t".utf8) }![...])
        facts.accounting.lines = .max
        var out: [UInt8] = []
        facts.encode(into: &out)
        #expect(throws: TextFields.Malformed.self) { try FileFacts.decode(out.dropLast()) }
        // Sums stop at the largest value.
        var total = InputAccounting()
        var big = InputAccounting()
        big.lines = .max - 1
        big.compressedBytes = .max
        total.add(big)
        total.add(big)
        #expect(total.lines == .max && total.compressedBytes == .max)
    }

    @Test("lines missing, repeated or of another job stop the merge with exit 3, naming the step")
    func tallies() throws {
        let p = plan([sampleLogs()])
        let config = AuditConfiguration()
        let lines = try mapped(p)
        let facts = lines.filter { $0.starts(with: "facts\t".utf8) }
        let events = lines.filter { !$0.starts(with: "facts\t".utf8) }.sorted { $0.lexicographicallyPrecedes($1) }
        let factsPath = writeBytes(facts.flatMap { $0 + [.newline] }, named: "facts", in: temporaryDirectory())
        let known = try SessionStage.facts(try LineSource(path: factsPath), plan: p)
        let reduced = try StagePipeline.filter(events) {
            try SessionStage.run(plan: p, configuration: config, facts: known, input: $0, output: $1)
        }
        let codes = reduced.filter { $0.starts(with: "c:".utf8) }.sorted { $0.lexicographicallyPrecedes($1) }
        let reuse = try StagePipeline.filter(codes) { try CodeStage.run(plan: p, configuration: config, input: $0, output: $1) }
        #expect(reuse.contains { $0.starts(with: "reuse\t".utf8) } && reuse.last?.starts(with: "tally\t".utf8) == true)
        let rows = reduced.filter { !$0.starts(with: "c:".utf8) }
        #expect(rows.last?.starts(with: "tally\t".utf8) == true)
        func merge(_ lines: [[UInt8]], plan: JobPlan? = nil) throws {
            let path = writeBytes(lines.flatMap { $0 + [.newline] }, named: "m", in: temporaryDirectory())
            _ = try MergeStage.run(plan: plan ?? p, configuration: config, inputs: [try LineSource(path: path)], rows: [], warn: { _ in })
        }
        func refused(_ lines: [[UInt8]], plan: JobPlan? = nil, _ text: String) -> Bool {
            do { try merge(lines, plan: plan) } catch let error as StageError {
                return error.status == .inputIncomplete && error.description.contains(text)
            } catch {}
            return false
        }
        try merge(facts + rows + reuse)
        let session = rows.firstIndex { $0.starts(with: "session\t".utf8) }!
        #expect(refused(facts + rows + reuse + [rows[session]], "stage merge: "))
        #expect(refused(facts + rows.enumerated().filter { $0.offset != session }.map(\.element) + reuse, "stage merge: "))
        #expect(refused(facts + rows + reuse.filter { !$0.starts(with: "reuse\t".utf8) }, "reuse lines"))
        #expect(refused(facts + rows, "stage codes: "))
        #expect(refused(facts + rows.filter { !$0.starts(with: "tally\t".utf8) } + reuse, "stage sessions: "))
        // A changed line: same count, another sum.
        var changed = rows
        changed[session].append(UInt8(ascii: "x"))
        #expect(throws: (any Error).self) { try merge(facts + changed + reuse) }
        // The plan of another job (another key).
        let other = JobPlan(key: Array(repeating: 8, count: 32), options: [], files: p.files, problems: [])
        #expect(other.jobID != p.jobID)
        #expect(refused(facts + rows + reuse, plan: other, "another job"))
    }

    @Test("the merge refuses lines it does not know and missing facts")
    func mergeInput() throws {
        let p = plan([sampleLogs()])
        func merge(_ lines: [[UInt8]]) throws {
            let path = writeBytes(lines.flatMap { $0 + [.newline] }, named: "m", in: temporaryDirectory())
            _ = try MergeStage.run(plan: p, configuration: AuditConfiguration(), inputs: [try LineSource(path: path)], rows: [], warn: { _ in })
        }
        let lines = try mapped(p)
        #expect { try merge(lines) } throws: { ($0 as? StageError)?.description.contains("an event line") == true }
        #expect { try merge([]) } throws: { ($0 as? StageError)?.description.contains("no facts") == true }
        let facts = lines.filter { $0.starts(with: "facts\t".utf8) }
        // Facts alone: the read stage wrote event lines no session stage read.
        #expect { try merge(facts) } throws: {
            ($0 as? StageError).map { $0.status == .inputIncomplete && $0.description.contains("stage sessions: 0 event lines") } == true
        }
        #expect { try merge(facts + [facts[0]]) } throws: { ($0 as? StageError)?.status == .inputIncomplete }
    }
}
