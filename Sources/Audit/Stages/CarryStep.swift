import Parsing
import Reading
import Rules

/// Whether and from what a run hands on (`--checkpoint`), and the next
/// checkpoint assembled at the end of a pass: the tracker's open sessions
/// and memories, the records that wait past the watermark, the duplicate
/// filter's fingerprints, the files audited (no night twice) and the
/// run's totals (trends).
struct CarryStep {
    var on: Bool
    var from: Checkpoint?
    /// The digests of this run's regular files, by name.
    var digests: [String: FileDigest]
    /// When the run started (milliseconds of the wall clock).
    var started: Int64

    /// The next checkpoint once every input is audited; `newest` holds each
    /// input's newest audited record time (a file with none is not
    /// remembered), `waiting` the watermark and the records past it.
    func next(
        tracker: SessionTracker, duplicates: DuplicateFilter, waiting: Waiting, newest: [Int64?], inputs: [InputFile],
        streamName: (Int) -> String, names: [String], configuration: AuditConfiguration, warn: (String) -> Void
    ) -> Checkpoint {
        // The watermark never runs back: a run of late records only
        // leaves it where it was.
        let watermark = max(waiting.watermark ?? Checkpoint.noWatermark, from?.watermark ?? Checkpoint.noWatermark)
        var next = tracker.carry(watermark: watermark, names: names, waiting: waiting.held)
        if let holder = waiting.holder {
            warn(
                "\(waiting.held.count) flip \(waiting.held.count == 1 ? "record" : "records") after the watermark \(Timestamp.iso8601(watermark)), "
                    + "where \(streamName(holder.input)) ends, \(waiting.held.count == 1 ? "waits" : "wait") for the next run "
                    + "(carried in the checkpoint; --cut-at says when the logs were cut)"
            )
        }
        next.key = configuration.fingerprint.keyBytes ?? []
        next.legacyFingerprints = configuration.fingerprint.isLegacy
        next.run = (from?.run ?? 0) + 1
        next.records = duplicates.handedOn(watermark: watermark)
        let keep = watermark - Int64(configuration.reuseWindowSeconds) * 1000
        next.audited = (from?.audited ?? []).filter { $0.watermark >= keep }
        // A file with no audited record (empty, or every record late or
        // in the future) is not remembered: it blocks no later night.
        for (index, file) in inputs.enumerated() where newest[index] != nil {
            guard let digest = digests[file.displayName] else { continue }
            next.audited.append(
                Checkpoint.AuditedFile(digest: digest, name: file.displayName, run: next.run, started: started, watermark: watermark))
        }
        return next
    }

    /// The run's totals join the last runs' (trends in the report).
    func addTotals(of result: AuditResult, to next: inout Checkpoint) {
        next.totals = Array(((from?.totals ?? []) + [RunTotals(result.statistics, run: next.run, started: started)]).suffix(RunTotals.kept))
    }
}
