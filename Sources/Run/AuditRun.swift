import Audit
import Foundation
import Reports
import Rules
import Writing

/// One audit's life in one process, from options to exit status: prepare
/// (every output checked and the CSV folder made before any input is read,
/// the checkpoint locked and loaded, a night seen before refused), audit
/// (`Analyzer`), deliver (the outputs and the next checkpoint staged and
/// committed, the status chosen: `Delivery`). The command only builds it
/// from its options; `stage merge` (`MergeRun`) and `explain`
/// (`ExplainRun`) go the same way.
package struct AuditRun {
    package var inputs: [String]
    /// Built once from the options; the checkpoint's fingerprint is added here.
    package var configuration: AuditConfiguration
    /// `--checkpoint` as given.
    package var checkpoint: String?
    package var delivery: Delivery
    /// A look by hand: audit as the next run would, write no file the
    /// chain owns, take no lock.
    package var dryRun: Bool

    package init(inputs: [String], configuration: AuditConfiguration, checkpoint: String?, delivery: Delivery, dryRun: Bool) {
        self.inputs = inputs
        self.configuration = configuration
        self.checkpoint = checkpoint
        self.delivery = dryRun ? delivery.dryRun : delivery
        self.dryRun = dryRun
    }

    /// Runs; the exit status. A refusal before any input is read says why
    /// and throws `ExitStatus.usage` (or the rules' `ConfigurationError`).
    package func run() throws -> ExitStatus {
        let started = ContinuousClock.now
        var config = configuration
        let checkpoint = self.checkpoint.map(CheckpointLock.target)
        var plan = try delivery.plan(inputs: inputs, checkpoint: dryRun ? nil : checkpoint)
        var carried: Checkpoint?
        // Its lock held until the outputs are committed.
        var taken: CheckpointLoader.Taken?
        if let checkpoint {
            let loaded = try CheckpointLoader.take(checkpoint, dryRun: dryRun, plan: &plan)
            carried = loaded.carried
            config.fingerprint = loaded.fingerprint
            taken = consume loaded
        }
        let meter: ProgressLine? =
            (delivery.quiet || delivery.noProgress || isatty(STDERR_FILENO) != 1) ? nil : ProgressLine()
        var onProgress: (@Sendable (Analyzer.Progress) -> Void)?
        if let meter { onProgress = { meter.update($0) } }
        let analyzer = Analyzer(
            configuration: config,
            warn: {
                meter?.clear(); Diagnostics.audit.say(TerminalText.escape($0))
            },
            progress: onProgress)
        // Output files are written through temporary files; a run ended by
        // a signal removes them and leaves no partial output.
        Interruption.removeTemporaryOutputs(onExit: { meter?.clear() })
        let writer = try delivery.csvWriter(plan)
        let result: AuditResult
        do {
            result = try analyzer.run(
                inputs, rows: writer.map { [$0] } ?? [], carry: checkpoint != nil, carried: carried,
                skipping: plan.ownOutputs)
        } catch {
            // Refused before any input was read (no night twice, a
            // log_format that cannot work): nothing left behind.
            writer?.discard()
            plan.removeMadeFolders()
            throw error
        }
        meter?.clear()
        let next = checkpoint != nil ? result.checkpoint.flatMap { cp in plan.files["--checkpoint"].map { (cp.encoded(), $0) } } : nil
        let status = delivery.write(result, plan: plan, writer: writer, started: started, checkpoint: next)
        _ = consume taken
        if dryRun {
            Diagnostics.audit.say("--dry-run: no file written\(checkpoint == nil ? "" : ", the checkpoint is as it was: the next run audits this night")")
        }
        return status
    }
}
