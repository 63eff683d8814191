import Foundation
import Parsing
import Reading
import Rules

/// Runs the pipeline: inputs → flip events (per file, on threads of their
/// own) → one time-ordered stream → sessions and findings → rows in order
/// and statistics. Everything streams: memory follows the open sessions,
/// not the size of the input. Results do not depend on the order of the
/// arguments, on threads, or on how a session's records are split across
/// files.
package final class Analyzer {
    private let configuration: AuditConfiguration
    private let warn: (String) -> Void
    private let progress: (@Sendable (Progress) -> Void)?
    /// Malformed-line messages printed before they are only counted.

    /// Where the reading is, for a progress line.
    package struct Progress: Sendable {
        package var file: String
        package var fileNumber: Int
        package var fileCount: Int
        /// Bytes of this file read so far as stored (compressed for gzip).
        package var compressedBytes: UInt64
        /// Whether this file has been read to its end (or its error).
        package var finished: Bool
        /// The sizes of all inputs added up; nil when one is a stream
        /// (standard input, a FIFO), whose size is not known in advance.
        package var totalBytes: UInt64?
    }

    /// `warn` receives one-line messages about bad input (for standard
    /// error); `progress` is called once per decoded chunk and once per
    /// finished input.
    package init(
        configuration: AuditConfiguration, warn: @escaping (String) -> Void = { _ in },
        progress: (@Sendable (Progress) -> Void)? = nil
    ) {
        self.configuration = configuration
        self.warn = warn
        self.progress = progress
    }

    /// Audits the inputs named by `arguments`. Rows go to `rows` in their
    /// final order while the audit runs (a `CSVWriter`, a `RowCollector`);
    /// the result holds the summary. Directory walks skip `outputs`
    /// (this run's own output files and their temporary files).
    ///
    /// Events are audited in (time, file, line) order (docs/contract.md
    /// §3). Regular files are first read in one streaming pass that merges
    /// them by time, putting back in order what runs back a little
    /// (`TimeOrderedMerge`). If an input runs back further than that — logs
    /// of several servers concatenated, rotated files joined newest first —
    /// the pass stops, the row sinks start over, and every input is read
    /// again with all its flip events sorted (`EventSort`, spilling to
    /// temporary files). Streams (standard input, FIFOs) cannot be read
    /// twice: they go straight to the sorting pass.
    ///
    /// With `carry`, the run hands on to the next (`--checkpoint`): it
    /// takes in `carried` (the previous run's checkpoint, nil for a fresh
    /// start), sessions still open at the end are carried in the result's
    /// checkpoint instead of closing as `pending`, and an input that lies
    /// before the carried clock (beyond the reorder window) is refused.
    package func run(
        _ arguments: [String], rows: [RowSink] = [], carry: Bool = false,
        carried: Checkpoint? = nil, skipping outputs: OwnOutputs = OwnOutputs()
    ) throws(ConfigurationError) -> AuditResult {
        try run(arguments, rows: rows, carry: carry, carried: carried, skipping: outputs, explainer: nil)
    }

    /// `run`, with every decision of the rules told to `explainer`
    /// (`flipaudit explain`).
    func run(
        _ arguments: [String], rows: [RowSink], carry: Bool, carried: Checkpoint?, skipping outputs: OwnOutputs,
        explainer: Explainer?
    ) throws(ConfigurationError) -> AuditResult {
        // A log_format that cannot work is refused before any input is read.
        _ = try configuration.readers()
        let started = AuditConfiguration.wallClock()
        let resolution = InputCatalog.resolve(arguments, skipping: outputs, excluding: configuration.exclude)
        let problems = resolution.problems
        // No night twice: each regular file's digest, read before anything
        // else of it, against those the chain has audited. A file seen
        // before among new ones (logrotate's notifempty leaves a quiet
        // server's access.log.1 as it was) is skipped and named; only a
        // run with no new input is refused.
        var digests: [String: FileDigest] = [:]
        var files: [InputFile] = []
        var skipped: [String] = []
        var refusal: String?
        for file in resolution.files {
            guard carry, !file.isStream, let path = file.path, let digest = FileDigest.of(path: path) else {
                files.append(file)
                continue
            }
            if let seen = carried?.audited.first(where: { $0.digest == digest }) {
                let told =
                    "\(file.displayName) was audited already, as \(seen.name) by run \(seen.run) of this checkpoint "
                    + "(started \(Timestamp.iso8601(seen.started)))"
                // explain writes nothing in any case: it needs the
                // checkpoint as it stood before that run.
                if explainer != nil {
                    throw .checkpoint(told + "; give explain the checkpoint as it was before run \(seen.run) (the .prev file its next run keeps)")
                }
                refusal = refusal ?? told
                skipped.append(told)
                continue
            }
            digests[file.displayName] = digest
            files.append(file)
        }
        if let refusal, files.isEmpty, problems.isEmpty {
            let more = skipped.count > 1 ? " (and \(skipped.count - 1) more \(skipped.count == 2 ? "input was" : "inputs were"))" : ""
            throw .checkpoint(refusal + more + "; no new input: nothing written, the checkpoint is unchanged")
        }
        // Ranked by their first record, late or not: the rank is the
        // input's, not this chain's.
        let (inputs, startTimes) = FirstRecord.rank(
            files, configuration: configuration, scanners: ScannerPool(configuration: configuration))
        var configuration = self.configuration
        if let carried { configuration.lateBefore = carried.watermark - AuditConfiguration.reorderWindow }
        // One input and no checkpoint: no record can be a duplicate.
        configuration.keysLines = carry || inputs.count > 1
        for note in resolution.notes { warn(note) }
        for (name, error) in problems { warn("\(name): \(error)") }
        for told in skipped { warn(told + "; skipped, the other inputs are audited") }
        shown = []
        let handOn = CarryStep(on: carry, from: carried, digests: digests, started: started)
        var ranked = Ranked(
            inputs: inputs, startTimes: startTimes, skipped: skipped,
            tiers: Tiers.named(configuration.tiers, names: inputs.map(\.displayName)), configuration: configuration)
        // A pass that finds tiers nobody named (most of two inputs' flip
        // records twins of each other) ends, and the inputs are audited
        // again knowing them, so each request is audited once; only the
        // inputs that are tiers pay for it.
        var sorted = configuration.alwaysSort || !inputs.allSatisfy(FirstRecord.canReread)
        while true {
            switch pass(ranked, problems: problems, rows: rows, sorted: sorted, carry: handOn, explainer: explainer) {
            case .done(let result): return result
            case .outOfOrder:
                precondition(!sorted, "the sorting pass is never out of order")
                sorted = true
            case .tiers(let found): ranked.tiers.formUnion(found)
            }
        }
    }

    /// The inputs in rank order, and what reading them needs.
    private struct Ranked {
        var inputs: [InputFile]
        var startTimes: [Int64?]
        /// Inputs audited by an earlier run of the chain, left out.
        var skipped: [String]
        /// Pairs of inputs known to log the same requests.
        var tiers: Set<Tiers.Pair>
        var configuration: AuditConfiguration
    }

    /// How a pass ended.
    private enum PassEnd {
        case done(AuditResult)
        /// A streaming pass met an input out of time order.
        case outOfOrder
        /// Inputs turned out to be tiers of one another: audit again.
        case tiers(Set<Tiers.Pair>)
    }

    /// Inputs whose messages are already on standard error (a second
    /// pass does not repeat them); -1 for the count of the rest.
    private var shown = Set<Int>()

    /// One audit of every input.
    private func pass(
        _ ranked: Ranked, problems: [(name: String, error: InputError)], rows: [RowSink],
        sorted: Bool, carry: CarryStep, explainer: Explainer?
    ) -> PassEnd {
        let inputs = ranked.inputs
        var configuration = ranked.configuration
        // No tier known yet: each input's first flip records get twins (its
        // sample), the rest need none unless tiers turn up (then the pass
        // is read again with every twin). The sorting pass decides after
        // reading everything, so it takes every twin.
        if !sorted && ranked.tiers.isEmpty { configuration.twinsPerPiece = TwinSample.size }
        var results = ResultStep(inputs: inputs.count, configuration: configuration, warn: warn)
        for (name, error) in problems { results.unreadable("\(name): \(error)") }
        let carriedFiles = carry.from?.files ?? []
        let sourceFiles = inputs + carriedFiles.map { InputFile(displayName: $0, path: nil) }
        for sink in rows { sink.start(inputs: sourceFiles) }
        let progress = self.progress
        let totalBytes = progress == nil ? nil : FeedSetup.totalSize(inputs)
        let feed = FeedSetup.feed(
            inputs, configuration: configuration, alone: sorted || inputs.count == 1,
            progress: progress.map { p in
                { @Sendable (index: Int, bytes: UInt64) in
                    // A file read to the size it had is done, though the
                    // time-ordered merge ends every input near the end.
                    let size = inputs[index].identity?.size.flatMap { $0 } ?? 0
                    p(
                        Progress(
                            file: inputs[index].displayName, fileNumber: index + 1, fileCount: inputs.count,
                            compressedBytes: bytes, finished: size > 0 && bytes >= size, totalBytes: totalBytes))
                }
            })
        // Its threads end with the pass, whichever way it ends.
        defer { feed.stop() }
        func source(_ index: Int) -> InputFeed {
            InputFeed(feed, index: index, file: inputs[index], format: configuration.format(for: inputs[index].displayName), zone: configuration.zone?.name)
        }

        let order = RowOrder(sinks: [results.collector] + rows, budget: configuration.rowBudget, warn: warn)
        explainer?.start(names: sourceFiles.map(\.displayName), retention: Int64(configuration.reuseWindowSeconds) * 1000)
        let tracker = SessionTracker(
            configuration: configuration, files: inputs.count, sink: order, carried: carry.from, codeReturns: nil,
            trace: explainer.map { e in { e.step($0) } })
        var rules = RuleStep(
            tracker: tracker,
            duplicates: DuplicateFilter(
                carried: carry.from?.records ?? [],
                retention: carry.on ? max(Int64(configuration.reuseWindowSeconds) * 1000, AuditConfiguration.reorderWindow) : nil,
                on: configuration.keysLines),
            tiers: Tiers(known: ranked.tiers, inputs: inputs.count), sources: sourceFiles.count)
        var latest: Int64?
        /// Per input, its newest audited record time: the watermark is the
        /// smallest of them.
        var newest = [Int64?](repeating: nil, count: inputs.count)
        /// Per input, its first audited record time: where its stream
        /// takes it up.
        var first = [Int64?](repeating: nil, count: inputs.count)
        /// Per input, its first flip records that could have a twin.
        var samples = [TwinSample](repeating: TwinSample(), count: inputs.count)
        var zoneless = [Bool](repeating: false, count: inputs.count)
        let waiting = Waiting(
            on: carry.on, carried: carry.from, streams: Streams(inputs: inputs), starts: ranked.startTimes,
            configuration: configuration,
            codec: EventCodec(allowlist: configuration.allowlist, fingerprint: configuration.fingerprint))
        for (file, lines) in carry.from?.locations ?? [:] { tracker.markLogsLocation(file: Int32(inputs.count + file), lines: lines) }
        let warn = self.warn
        let window = AuditConfiguration.reorderWindow
        var reads = [ReadStep](repeating: ReadStep(twins: configuration.keysLines), count: inputs.count)
        func onBatch(_ index: Int, _ batch: EventBatch) {
            reads[index].see(batch)
            tracker.markLogsLocation(file: Int32(index), lines: batch.locationLines)
        }
        func onEnd(_ index: Int, _ scan: FileScan) {
            progress?(
                Progress(
                    file: inputs[index].displayName, fileNumber: index + 1, fileCount: inputs.count,
                    compressedBytes: scan.accounting.compressedBytes, finished: true, totalBytes: totalBytes))
            let scan = reads[index].finish(scan)
            results.add(index, scan, warn: self.shown.insert(index).inserted ? warn : nil)
            tracker.markLogsLocation(file: Int32(index), lines: scan.locationLines)
            if let t = scan.latestTime { latest = max(latest ?? t, t) }
            newest[index] = scan.latestTime
            first[index] = scan.firstTime
            samples[index] = scan.sample
            zoneless[index] = scan.zoneless
            waiting.ended(index, newest: scan.latestTime)
        }

        /// The events `waiting` lets through, to the rules.
        func audit() {
            while let event = waiting.ready() {
                rules.take(consume event)
                order.release(before: tracker.settledBefore)
            }
        }

        if sorted {
            let sort = EventSort(
                budget: configuration.sortBudget, allowlist: configuration.allowlist,
                fingerprint: configuration.fingerprint, warn: warn)
            for index in inputs.indices {
                // The next input is read ahead while this one is sorted.
                if index + 1 < inputs.count { feed.open(index + 1) }
                let (scan, step) = ReadStep.read(source(index), twins: configuration.keysLines) { batch in
                    tracker.markLogsLocation(file: Int32(index), lines: batch.locationLines)
                    for event in batch.events { sort.add(event) }
                }
                reads[index] = step
                onEnd(index, scan)
            }
            // Every input is read before the first event is audited: the
            // tiers are known from the start.
            rules.learn(Tiers.detect(samples))
            while let event = waiting.next(sort) {
                waiting.add(event)
                audit()
            }
            waiting.finish(first: first, last: newest)
            audit()
            rules.flush()
            order.release(before: tracker.settledBefore)
        } else {
            let merge = TimeOrderedMerge(
                feeds: inputs.indices.map(source), startTimes: ranked.startTimes,
                onBatch: onBatch, onEnd: onEnd)
            while let event = waiting.next(merge) {
                // Without a checkpoint nothing waits: straight to the rules.
                // The event is handed on, not copied (a copy costs two
                // atomic operations).
                if waiting.on {
                    waiting.add(consume event)
                    audit()
                } else {
                    rules.take(consume event)
                    order.release(before: tracker.settledBefore)
                }
            }
            waiting.finish(first: first, last: newest)
            audit()
            rules.flush()
            order.release(before: tracker.settledBefore)
            if let back = merge.outOfOrder {
                warn(
                    "\(inputs[Int(back.file)].displayName):\(back.line): the input runs back in time more than \(window / 1000) s; reading it again with every flip event sorted"
                )
                return .outOfOrder
            }
            // An event the merge let go before every input had read past
            // it may lie past the watermark: sorted, the watermark is known
            // before the first event is audited.
            if waiting.audited > waiting.bound { return .outOfOrder }
        }
        // Tiers found in the inputs' samples that the streaming pass did
        // not know: read again knowing them (the sorting pass knew them
        // before its first event).
        let found = Tiers.detect(samples).subtracting(rules.tiers.known)
        if !found.isEmpty { return .tiers(found) }
        var checkpoint: Checkpoint?
        waiting.carry { rules.carry($0) }
        if carry.on {
            checkpoint = carry.next(
                tracker: tracker, duplicates: rules.duplicates, waiting: waiting, newest: newest, inputs: inputs,
                streamName: { inputs[$0].displayName },
                names: sourceFiles.map(\.displayName), configuration: configuration, warn: warn)
        } else {
            tracker.finish(endTime: latest ?? 0)
        }
        order.releaseAll()

        if let more = results.moreMalformed, !shown.contains(-1) {
            shown.insert(-1)
            warn(more)
        }
        if tracker.evictedSessions > 0 {
            warn(
                "\(tracker.evictedSessions) session(s) closed early: more than \(configuration.maxSessions) were open at once (--max-sessions); results are not exact"
            )
        }
        var result = results.result(
            configuration: configuration, inputs: inputs, duplicates: rules.duplicates.count,
            evictedSessions: tracker.evictedSessions, unpinnedProjectIDs: Array(tracker.unpinnedProjectIDs),
            unobservableFiles: Array(tracker.unobservableFiles), carriedFiles: carriedFiles)
        result.carriedFiles = carriedFiles
        result.carriedIn = carry.from?.openSessions ?? 0
        result.previousWatermark = carry.from?.watermark
        result.tiers = rules.tiers.known.sorted().map { pair in
            TierPair(first: inputs[Int(pair.a)].displayName, second: inputs[Int(pair.b)].displayName, shared: rules.tiers.paired[pair] ?? 0)
        }
        result.offsets = ClockOffset.detect(samples, names: inputs.map(\.displayName), zoneless: zoneless)
        for offset in result.offsets { warn(offset.sentence(zone: configuration.zone)) }
        result.watermark = waiting.watermark
        result.skipped = ranked.skipped
        result.streams = Streams.summaries(
            waiting.ends, names: inputs.map(\.displayName), timeout: Int64(configuration.sessionTimeoutSeconds) * 1000)
        if let holder = waiting.holder {
            result.waiting = WaitingRecords(count: waiting.held.count, stream: inputs[holder.input].displayName, watermark: holder.end)
        }
        if var next = checkpoint {
            carry.addTotals(of: result, to: &next)
            result.trends = next.totals
            checkpoint = next
        }
        result.checkpoint = checkpoint
        return .done(result)
    }
}
