import Reading
import Rules

/// The distributed audit's session stage (a reduce): the event lines of
/// some states, sorted, and the facts of every input → session rows,
/// findings, a `CodeLine` per code returned to a session, and one
/// `TrackerFacts` line.
///
/// Each state's events are audited alone, from a clock of their own: every
/// decision of the session tracker but `code-reuse` and the
/// `--max-sessions` guard depends on one state's events and on the
/// input-wide end clock, so this gives what one process gives.
package enum SessionStage {
    package static func run(
        plan: JobPlan, configuration: AuditConfiguration, facts: [FileFacts], input: LineSource, output: StageOutput
    ) throws {
        var configuration = configuration
        configuration.fingerprint = .keyed(plan.key)
        // The flood guard is per process; a stage holds one state's sessions.
        configuration.maxSessions = .max
        let rows = RowLines(output: output)
        var codesWritten = LineTally()
        let tracker = SessionTracker(
            configuration: configuration, files: plan.files.count, sink: rows,
            codeReturns: { code in codesWritten.add(appendedTo: &output.buffer) { CodeLine.encode(code, into: &$0) } })
        for f in facts { tracker.markLogsLocation(file: f.rank, lines: f.locationLines) }
        let end = facts.compactMap(\.latestTime).max() ?? 0
        var codec = EventCodec(allowlist: configuration.allowlist, fingerprint: configuration.fingerprint)
        let lines = SortedLines(input)
        var eventsRead: [Int: LineTally] = [:]
        // Identical lines share a key (their state, or their line's
        // fingerprint), so one key's events decide duplicates as one
        // process does.
        var rules = RuleStep(
            tracker: tracker, duplicates: DuplicateFilter(retention: nil, on: plan.files.count > 1),
            tiers: Tiers(
                known: Tiers.named(configuration.tiers, names: plan.files.map(\.displayName))
                    .union(Tiers.detect(Self.samples(facts, count: plan.files.count))),
                inputs: plan.files.count),
            sources: plan.files.count)
        var any = false
        while let (line, newKey) = try lines.next() {
            let event: FlipEvent
            do { event = try EventLine.decode(line, codec: &codec).event } catch { throw StageError(input, error) }
            guard plan.files.indices.contains(Int(event.source.file)) else { throw StageError(input, "no input of this plan has rank \(event.source.file)") }
            eventsRead[Int(event.source.file), default: LineTally()].add(line)
            if newKey && any { rules.endKey(at: end) }
            any = true
            rules.take(event)
            try output.flushIfFull()
        }
        if any {
            rules.flush()
            tracker.finish(endTime: end)
        }
        rows.written.add(appendedTo: &output.buffer) {
            TrackerFacts(
                unpinnedProjectIDs: tracker.unpinnedProjectIDs.sorted(), unobservableFiles: tracker.unobservableFiles.sorted(),
                duplicateRecords: rules.duplicates.count,
                tierTwins: Dictionary(uniqueKeysWithValues: rules.tiers.known.map { ("\($0.a),\($0.b)", rules.tiers.paired[$0] ?? 0) })
            )
            .encode(into: &$0)
        }
        // Last: what this task read and wrote, for the merge to add up.
        StageTally(stage: .sessions, job: plan.jobID, eventsRead: eventsRead, forMerge: rows.written, codesWritten: codesWritten)
            .encode(into: &output.buffer)
        try output.flush()
    }

    /// Each input's twin sample, by rank (empty for an input without one).
    static func samples(_ facts: [FileFacts], count: Int) -> [TwinSample] {
        var samples = [TwinSample](repeating: TwinSample(), count: count)
        for f in facts where samples.indices.contains(Int(f.rank)) { samples[Int(f.rank)] = f.sample ?? TwinSample() }
        return samples
    }

    /// Reads the facts of every input of `plan` from `source` (their
    /// `facts` lines, in any order).
    package static func facts(_ source: LineSource, plan: JobPlan) throws(StageError) -> [FileFacts] {
        var byRank = [FileFacts?](repeating: nil, count: plan.files.count)
        while let line = try source.next() {
            let f: FileFacts
            do { f = try FileFacts.decode(line) } catch { throw StageError(source, error) }
            guard f.job == plan.jobID else { throw StageError(source, "a facts line of another job (\(f.job); this plan's is \(plan.jobID))") }
            guard byRank.indices.contains(Int(f.rank)) else { throw StageError(source, "no input of this plan has rank \(f.rank)") }
            guard byRank[Int(f.rank)] == nil else { throw StageError(source, "a second facts line for rank \(f.rank)") }
            byRank[Int(f.rank)] = f
        }
        if let missing = byRank.firstIndex(where: { $0 == nil }) {
            throw StageError("\(source.name): no facts for \(plan.files[missing].displayName) (rank \(missing)): its read stage did not finish")
        }
        return byRank.map { $0! }
    }
}

/// Writes the rows the tracker decides as `session` and `finding` lines.
final class RowLines: AuditSink {
    private let output: StageOutput
    /// The lines written for the merge.
    var written = LineTally()

    init(output: StageOutput) { self.output = output }

    func finding(_ finding: consuming Finding) {
        written.add(appendedTo: &output.buffer) {
            $0.append(contentsOf: "finding\t".utf8)
            RowCodec.encode(finding, into: &$0)
        }
    }

    func sessionClosed(_ session: consuming SessionRecord) {
        written.add(appendedTo: &output.buffer) {
            $0.append(contentsOf: "session\t".utf8)
            RowCodec.encode(session, into: &$0)
        }
    }
}
