import Audit
import Reports
import Rules
import Writing

/// `flipaudit explain`'s life: the checkpoint replayed as it stood before
/// the night (`CheckpointLoader.forReplay`), the inputs audited with a
/// trace of the rules (`Analyzer.explain`), the story printed. It only
/// reads. Exit status as grep's: 0 found, 1 nothing matched (`findings`),
/// 3 an input not read completely, 4 standard output failed, 5 blind.
package struct ExplainRun {
    package var target: String
    package var inputs: [String]
    package var configuration: AuditConfiguration
    package var checkpoint: String?
    /// The story as JSON.
    package var json: Bool

    package init(target: String, inputs: [String], configuration: AuditConfiguration, checkpoint: String?, json: Bool) {
        self.target = target
        self.inputs = inputs
        self.configuration = configuration
        self.checkpoint = checkpoint
        self.json = json
    }

    package func run() throws -> ExitStatus {
        var config = configuration
        var carried: Checkpoint?
        if let checkpoint {
            let replay = try CheckpointLoader.forReplay(checkpoint, inputs: inputs)
            carried = replay.carried
            config.fingerprint = replay.fingerprint
        }
        let analyzer = Analyzer(configuration: config, warn: { Diagnostics.audit.say(TerminalText.escape($0)) })
        let explanation = try analyzer.explain(target, arguments: inputs, carried: carried)
        if !explanation.found {
            Diagnostics.explain.say("\(TerminalText.escape(target)) matches no session and no record")
        }
        do {
            if json {
                try StandardStreams.writeOutput(try ExplainReport.json(explanation))
            } else if explanation.found {
                try StandardStreams.writeOutput(ExplainReport.text(explanation))
            }
        } catch let error as OutputError {
            if !error.isBrokenPipe {
                Diagnostics.explain.say("\(error)")
                return .outputFailed
            }
        }
        // A blind replay explains nothing: said, and exit 5 as the run's.
        let coverage = explanation.result.coverage
        if coverage.verdict == .blind {
            for gap in coverage.gaps where gap.check == "read" {
                Diagnostics.explain.say("blind: " + TerminalText.escape(gap.detail))
            }
            return .blind
        }
        if explanation.result.hadInputErrors { return .inputIncomplete }
        return explanation.found ? .clean : .findings
    }
}
