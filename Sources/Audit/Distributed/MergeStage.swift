import Reading
import Rules

/// The distributed audit's last step: every stage's lines — `facts`,
/// `session`, `finding`, `tracker`, `reuse`, in any order — → the rows in
/// flipaudit's own order (`RowOrder`, spilling as in one process) and the
/// result the reports are written from, equal to one process's.
///
/// Before any result is made, it checks that the steps add up: every
/// `facts` and `tally` line is of the plan's job, and what each step read
/// is what the steps before it wrote (`TallyCheck`). A line missing,
/// repeated or of another job stops it with exit 3, naming the step.
package enum MergeStage {
    /// Reads `inputs` to their ends; rows go to `rows` in their final order.
    package static func run(
        plan: JobPlan, configuration: AuditConfiguration, inputs: [LineSource], rows: [RowSink],
        warn: @escaping (String) -> Void
    ) throws -> AuditResult {
        var results = ResultStep(inputs: plan.files.count, configuration: configuration, warn: warn)
        let marks = CodeReuseMarks(sinks: [results.collector] + rows)
        marks.start(inputs: plan.files)
        let order = RowOrder(sinks: [marks], budget: configuration.rowBudget, warn: warn)
        var facts = [FileFacts?](repeating: nil, count: plan.files.count)
        var unpinned = Set<String>()
        var unobservable = Set<Int32>()
        var duplicates = 0
        var tierTwins: [Tiers.Pair: Int] = [:]
        var tallies = TallyCheck(inputs: plan.files.count)
        // Tally lines of tasks that read something, to name a task's output given twice.
        var seenTallies: [[UInt8]: String] = [:]
        let job = plan.jobID
        func check(_ source: SourceRef, _ input: LineSource) throws(StageError) {
            guard plan.files.indices.contains(Int(source.file)) else {
                throw StageError(input, "no input of this plan has rank \(source.file) (a line of another job?)", status: .inputIncomplete)
            }
        }
        func check(job lineJob: String, _ what: String, _ input: LineSource) throws(StageError) {
            guard lineJob == job else {
                throw StageError(input, "\(what) of another job (job \(lineJob); this plan's is \(job)): nothing written", status: .inputIncomplete)
            }
        }
        for input in inputs {
            while let line = try input.next() {
                let tag = line[..<(line.firstIndex(of: .tab) ?? line.endIndex)]
                let rest = line[min(tag.endIndex + 1, line.endIndex)...]
                do {
                    switch String(decoding: tag, as: UTF8.self) {
                    case "session":
                        let row = try RowCodec.session(rest)
                        try check(row.source, input)
                        tallies.rowsRead.add(line)
                        order.sessionClosed(row)
                    case "finding":
                        let row = try RowCodec.finding(rest)
                        try check(row.source, input)
                        tallies.rowsRead.add(line)
                        order.finding(row)
                    case "reuse":
                        let (session, finding) = try ReuseLine.decode(line)
                        try check(session, input)
                        try check(finding.source, input)
                        tallies.reuseRead.add(line)
                        marks.add(finding, on: session)
                    case FileFacts.tag:
                        let f = try FileFacts.decode(line)
                        try check(job: f.job, "stage read: a facts line", input)
                        try check(SourceRef(file: f.rank, line: 0), input)
                        guard facts[Int(f.rank)] == nil else {
                            throw StageError(input, "stage read: a second facts line for rank \(f.rank)", status: .inputIncomplete)
                        }
                        facts[Int(f.rank)] = f
                        tallies.eventsWritten[Int(f.rank)] = f.events
                    case TrackerFacts.tag:
                        let t = try TrackerFacts.decode(line)
                        for rank in t.unobservableFiles { try check(SourceRef(file: rank, line: 0), input) }
                        tallies.rowsRead.add(line)
                        unpinned.formUnion(t.unpinnedProjectIDs)
                        unobservable.formUnion(t.unobservableFiles)
                        duplicates = min(duplicates + t.duplicateRecords, 1 << 62)
                        for (pair, n) in t.tierTwins ?? [:] {
                            let ranks = pair.split(separator: ",").compactMap { Int32($0) }
                            guard ranks.count == 2, ranks[0] < ranks[1] else { throw StageError(input, "tracker facts name a bad pair of tiers") }
                            for rank in ranks { try check(SourceRef(file: rank, line: 0), input) }
                            tierTwins[Tiers.Pair(ranks[0], ranks[1]), default: 0] += n
                        }
                    case StageTally.tag:
                        let t = try StageTally.decode(line)
                        try check(job: t.job, "stage \(t.stage.rawValue): a tally line", input)
                        if !(t.eventsRead ?? [:]).isEmpty || (t.codesRead?.lines ?? 0) > 0 {
                            if let first = seenTallies[Array(line)] {
                                throw StageError(
                                    input, "stage \(t.stage.rawValue): a task's output is given twice (its tally line is also \(first)): nothing written",
                                    status: .inputIncomplete)
                            }
                            seenTallies[Array(line)] = "\(input.name):\(input.lineNumber)"
                        }
                        try tallies.add(t)
                    default:
                        let hint =
                            tag.starts(with: "c:".utf8)
                            ? ": a code line (for the code stage)"
                            : tag.starts(with: "s:".utf8) || tag.starts(with: "r:".utf8) ? ": an event line (for the session stage)" : ""
                        throw StageError(input, "unknown line \(Quote.text(String(decoding: tag.prefix(40), as: UTF8.self)))\(hint)")
                    }
                } catch let error as StageError {
                    throw error
                } catch {
                    throw StageError(input, error)
                }
            }
        }
        if let missing = facts.firstIndex(where: { $0 == nil }) {
            throw StageError(
                "stage read: no facts for \(plan.files[missing].displayName) (rank \(missing)): its read stage did not finish; nothing written",
                status: .inputIncomplete)
        }
        if let problem = tallies.problem(names: plan.files.map(\.displayName)) {
            throw StageError("the steps do not add up: \(problem); nothing written", status: .inputIncomplete)
        }
        for finding in marks.findings { order.finding(finding) }
        order.releaseAll()

        for p in plan.problems {
            warn("\(p.name): \(p.message)")
            results.unreadable("\(p.name): \(p.message)")
        }
        for case let f? in facts {
            results.add(
                Int(f.rank),
                FileScan(
                    accounting: f.accounting, locationLines: f.locationLines, latestTime: f.latestTime, summary: f.summary,
                    error: f.error, warnings: f.warnings),
                warn: warn)
        }
        if let more = results.moreMalformed { warn(more) }
        var result = results.result(
            configuration: configuration, inputs: plan.files, duplicates: duplicates, evictedSessions: 0,
            unpinnedProjectIDs: Array(unpinned), unobservableFiles: Array(unobservable))
        // The deployment as one process reads it (`Streams`).
        let ends = Streams(inputs: plan.files).ends(
            first: facts.map { $0?.firstTime }, last: facts.map { $0?.latestTime }, cut: configuration.cutAt)
        result.tiers = tierTwins.keys.sorted().map { pair in
            TierPair(first: plan.files[Int(pair.a)].displayName, second: plan.files[Int(pair.b)].displayName, shared: tierTwins[pair]!)
        }
        result.offsets = ClockOffset.detect(
            facts.map { $0?.sample ?? TwinSample() }, names: plan.files.map(\.displayName), zoneless: facts.map { $0?.zoneless == true })
        for offset in result.offsets { warn(offset.sentence(zone: configuration.zone)) }
        result.streams = Streams.summaries(
            ends, names: plan.files.map(\.displayName), timeout: Int64(configuration.sessionTimeoutSeconds) * 1000)
        return result
    }
}

/// The `code-reuse` findings of the code stage, one per session (its
/// first, as one process raises it once), and the session rows amended to
/// name them in their `findings` cell on the way to the sinks.
final class CodeReuseMarks: RowSink {
    private let sinks: [RowSink]
    private var first: [SourceRef: Finding] = [:]

    init(sinks: [RowSink]) { self.sinks = sinks }

    func add(_ finding: Finding, on session: SourceRef) {
        if let known = first[session], (known.time, known.source) <= (finding.time, finding.source) { return }
        first[session] = finding
    }

    /// One finding per session.
    var findings: Dictionary<SourceRef, Finding>.Values { first.values }

    func start(inputs: [InputFile]) { for s in sinks { s.start(inputs: inputs) } }

    func session(_ row: SessionRecord) {
        var row = row
        if first[row.source] != nil && !row.findings.contains(.codeReuse) {
            var set = FindingKindSet()
            for kind in row.findings { set.insert(kind) }
            set.insert(.codeReuse)
            row.findings = set.kinds
        }
        for s in sinks { s.session(row) }
    }

    func finding(_ row: Finding) { for s in sinks { s.finding(row) } }
}
