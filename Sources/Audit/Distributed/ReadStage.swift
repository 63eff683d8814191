import Parsing
import Reading
import Rules
import Writing

/// The distributed audit's per-file stage (the map): reads the inputs the
/// plan's `file` lines name — opening each itself, so gzip detection,
/// damage rules and `FILE:LINE` are those of one process — and writes an
/// `EventLine` per flip event and a `FileFacts` line per input.
package enum ReadStage {
    /// Reads every `file` line of `input`; `warn` gets one process's
    /// messages about bad input.
    package static func run(
        plan: JobPlan, configuration: AuditConfiguration, input: LineSource, output: StageOutput,
        warn: (String) -> Void
    ) throws {
        var configuration = configuration
        configuration.fingerprint = .keyed(plan.key)
        configuration.keysLines = plan.files.count > 1
        while let line = try input.next() {
            guard let rank = plan.rank(ofFileLine: line) else {
                throw StageError(input, "not a file line of this plan")
            }
            let facts = try read(plan.files[rank], rank: rank, job: plan.jobID, configuration: configuration, output: output)
            for message in facts.warnings { warn(message) }
            facts.encode(into: &output.buffer)
            try output.flushIfFull()
        }
        try output.flush()
    }

    /// Reads standard input as the plan's input named `name` — its bytes
    /// fetched by the engine from a URI only the engine's file system layer
    /// can read — and writes its events and its facts line, as `run` does
    /// for a `file` line.
    package static func runStandardInput(
        named name: String, plan: JobPlan, configuration: AuditConfiguration, output: StageOutput, warn: (String) -> Void
    ) throws {
        guard let rank = plan.files.firstIndex(where: { $0.displayName == name }) else {
            throw StageError("\(Quote.text(name)): not an input of this plan")
        }
        var configuration = configuration
        configuration.fingerprint = .keyed(plan.key)
        configuration.keysLines = plan.files.count > 1
        let facts = try read(
            InputFile(displayName: name, path: nil), rank: rank, job: plan.jobID, configuration: configuration, output: output)
        for message in facts.warnings { warn(message) }
        facts.encode(into: &output.buffer)
        try output.flush()
    }

    /// Reads one input to its end, writing its events; its facts.
    static func read(
        _ file: InputFile, rank: Int, job: String, configuration: AuditConfiguration, output: StageOutput
    ) throws(OutputError) -> FileFacts {
        let inputs = FeedSetup.feed([file], configuration: configuration, alone: true, firstRank: rank, progress: nil)
        defer { inputs.stop() }
        let feed = InputFeed(inputs, index: 0, file: file, format: configuration.format(for: file.displayName), zone: configuration.zone?.name)
        var events = LineTally()
        let (scan, step) = try ReadStep.read(feed, twins: configuration.keysLines) { batch throws(OutputError) in
            for event in batch.events {
                events.add(appendedTo: &output.buffer) { EventLine.encode(event, into: &$0) }
            }
            try output.flushIfFull()
        }
        return FileFacts(
            rank: Int32(rank), accounting: scan.accounting, summary: scan.summary,
            locationLines: step.locationLines, latestTime: scan.latestTime, firstTime: scan.firstTime,
            sample: scan.sample.entries.isEmpty ? nil : scan.sample, zoneless: scan.zoneless ? true : nil, warnings: scan.warnings,
            error: scan.error,
            job: job, events: events)
    }
}
