import Audit
import Foundation
import Reports
import Rules
import Writing

/// A run's last step, for every driver (the audit, `flipaudit stage
/// merge`): where its results go and when it fails, frozen from the
/// options; each output written whatever happened to the others, and the
/// exit status chosen — the highest of 5 (blind), 4 (an output failed),
/// 3 (input not read completely) and 1 (a finding at or above
/// `--fail-on`): `ExitStatus`.
package struct Delivery: Sendable {
    /// `--csv`'s folder (or template), `--json` (`-`: standard output),
    /// `--html`, `--metrics`.
    package var csv: String?
    package var json: String?
    package var html: String?
    package var metrics: String?
    /// `--fail-on` (nil: never).
    package var failOn: Severity?
    /// No summary and no progress.
    package var quiet = false
    /// No progress line.
    package var noProgress = false
    /// The summary in color.
    package var color = false

    package init(
        csv: String?, json: String?, html: String?, metrics: String?, failOn: Severity?, quiet: Bool, noProgress: Bool, color: Bool
    ) {
        self.csv = csv
        self.json = json
        self.html = html
        self.metrics = metrics
        self.failOn = failOn
        self.quiet = quiet
        self.noProgress = noProgress
        self.color = color
    }

    /// A look by hand (`--dry-run`): no file the chain owns is written
    /// (CSV, HTML, metrics, a JSON file); the summary (or `--json -`) is.
    package var dryRun: Delivery {
        var out = self
        out.csv = nil
        out.html = nil
        out.metrics = nil
        if out.json != "-" { out.json = nil }
        out.quiet = out.quiet && out.json == "-"
        return out
    }

    /// Every output checked, and the CSV folder made, before any input is
    /// read; a problem is a usage error (exit 2). `inputs` are the paths
    /// read, which no output may be.
    func plan(inputs: [String], checkpoint: String? = nil) throws(ExitStatus) -> OutputPlan {
        do {
            let files = [("--html", html), ("--metrics", metrics), ("--checkpoint", checkpoint)].compactMap { option, path in
                path.map { (option: option, path: $0) }
            }
            return try OutputPlan.make(
                csv: csv, json: json, files: files, regularOnly: ["--checkpoint"],
                arguments: inputs, usesStandardOutput: json == "-" || !quiet)
        } catch {
            Diagnostics.audit.say("\(error)")
            throw .usage
        }
    }

    /// The CSV writer, when --csv is given.
    func csvWriter(_ plan: OutputPlan) throws(ExitStatus) -> CSVWriter? {
        guard csv != nil else { return nil }
        do {
            return try CSVWriter(
                directory: plan.csvDirectory ?? ".", targets: OutputPlan.csvNames.map { plan.csvFiles[$0]! })
        } catch {
            Diagnostics.audit.say("--csv: \(error)")
            throw .usage
        }
    }

    /// Writes every output of `result`; the exit status. Files are staged
    /// under temporary names, then renamed in one step (`OutputCommit`)
    /// with `checkpoint` last: it is staged only when no input failed
    /// (exit 3) and no output failed (exit 4), so such a run leaves the
    /// chain where it was and the night can be run again
    /// (docs/contract.md §9).
    func write(
        _ result: AuditResult, plan: OutputPlan, writer: CSVWriter?, started: ContinuousClock.Instant,
        checkpoint: (bytes: [UInt8], target: OutputTarget)? = nil
    ) -> ExitStatus {
        // Standard output closed or broken (its reader left) is an output
        // not written completely, as a full disk is (docs/contract.md §6):
        // exit 4, and the checkpoint stays, so the night can be run again.
        var outputFailed = false
        func failed(_ error: OutputError, option: String) {
            outputFailed = true
            Diagnostics.audit.say("\(option): \(error)")
        }
        if let writer {
            do {
                // `{date}`, `{run}`: the files move into the night's folder.
                if let folder = try plan.csvFolder(for: result) { writer.retarget(folder: folder) }
                for error in writer.stageAll(statistics: result.statistics) { failed(error, option: "--csv") }
            } catch {
                writer.discard()
                outputFailed = true
                Diagnostics.audit.say("\(error)")
            }
        }
        if let target = plan.json {
            do {
                let text = try JSONReport.render(result)
                try OutputWriter.stage(text, to: target)
            } catch let error as OutputError { failed(error, option: "--json") } catch {
                Diagnostics.audit.say("--json: \(error)")
                outputFailed = true
            }
        }
        if !quiet && json != "-" {
            do { try StandardStreams.writeOutput(TerminalReport(color: color).render(result)) } catch { failed(error, option: "summary") }
        }
        var status = ExitStatus.of(result, failOn: failOn)
        if outputFailed { status = max(status, .outputFailed) }
        // An output failure after this point is 4, unless the run is blind.
        func outputFailure() { status = max(status, .outputFailed) }
        if let target = plan.files["--html"] {
            let text = HTMLReport.render(result, failOn: failOn)
            if !Self.stageOutput(text, to: target) { outputFailure() }
        }
        if let metrics {
            let elapsed = ContinuousClock.now - started
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            // The previous run's file, when it is one (never a FIFO's reader's data).
            let previous =
                plan.files["--metrics"]?.method == .replace
                ? (try? String(contentsOfFile: metrics, encoding: .utf8)).flatMap(MetricsReport.lastSuccess(in:)) : nil
            let text = MetricsReport.render(
                result, exitStatus: status.rawValue, duration: seconds,
                now: Date().timeIntervalSince1970, previousSuccess: previous,
                carriedIn: result.carriedIn, carriedOut: result.carriedOut)
            if let target = plan.files["--metrics"], !Self.stageOutput(text, to: target) { outputFailure() }
        }
        if let checkpoint {
            let blind = result.coverage.verdict == .blind
            if result.hadInputErrors || blind || status == .outputFailed {
                let why =
                    blind
                    ? "the run was blind (give the format that reads the input)"
                    : result.hadInputErrors ? "some input could not be read completely" : "an output could not be written"
                Diagnostics.audit.say(
                    "--checkpoint \(TerminalText.escape(checkpoint.target.given)) left as it was: \(why) (run this night again once it is mended)"
                )
            } else {
                do {
                    try AtomicFile.stage(
                        bytes: checkpoint.bytes, to: checkpoint.target.path, mode: 0o600, shownAs: checkpoint.target.given,
                        option: "--checkpoint", isCheckpoint: true)
                } catch {
                    Diagnostics.audit.say("--checkpoint: \(error)")
                    outputFailure()
                }
            }
        }
        for (option, error) in OutputCommit.shared.apply() {
            Diagnostics.audit.say("\(option): \(error)")
            outputFailure()
        }
        return status
    }

    /// Stages one output file as its target wants it; on failure says so
    /// on standard error and returns false (the other outputs are still
    /// written).
    static func stageOutput(_ text: String, to target: OutputTarget) -> Bool {
        do { try OutputWriter.stage(text, to: target) } catch {
            Diagnostics.audit.say("\(target.option): \(error)")
            return false
        }
        return true
    }
}
