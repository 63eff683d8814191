import Audit
import Foundation
import Parsing
import Reading
import Reports
import Rules
import Writing

/// `flipaudit follow`: the third driver of the audit's rules, on logs
/// while they are written (docs/follow.md). One thread, one loop:
///
/// ```
/// wait (inotify, ≤ 250 ms, signals) → look at the names (new files,
/// rotations) → read what was appended → lines → events → rules →
/// findings written → quiet? the wall clock moves the rules' clock →
/// commit when due
/// ```
///
/// Exactly once across restarts: the checkpoint holds the read positions
/// and the rules' state at one moment, committed after the findings file is
/// fsynced; a restart reads again from those positions, and the findings
/// written after that commit (read back from the file) are not written
/// again (`FindingStream`).
package struct FollowRun {
    package var inputs: [String]
    package var configuration: AuditConfiguration
    package var checkpoint: String?
    package var findings: String?
    package var ocsf: Bool
    package var fromStart: Bool
    package var listen: String?
    /// Seconds between commits.
    package var commitInterval: Int

    package init(
        inputs: [String], configuration: AuditConfiguration, checkpoint: String?, findings: String?, ocsf: Bool, fromStart: Bool,
        listen: String?, commitInterval: Int
    ) {
        self.inputs = inputs
        self.configuration = configuration
        self.checkpoint = checkpoint
        self.findings = findings
        self.ocsf = ocsf
        self.fromStart = fromStart
        self.listen = listen
        self.commitInterval = commitInterval
    }

    /// Follows until SIGTERM or SIGINT (0), or a failure (its status).
    package func run() throws(ExitStatus) -> ExitStatus {
        guard let signals = Interruption.handOver() else {
            StandardError().write("flipaudit: follow: cannot set up signal handling")
            return .usage
        }
        // One life with the batch run's: the outputs checked against the
        // inputs before anything is read, the checkpoint taken by the one
        // loader (through a symbolic link, its target is locked and written).
        var run = self
        run.checkpoint = checkpoint.map(CheckpointLock.target)
        var plan: OutputPlan
        do { plan = try OutputPlan.follow(checkpoint: run.checkpoint, findings: findings, inputs: inputs) } catch {
            StandardError().write("flipaudit: follow: \(error)")
            return .usage
        }
        var configuration = self.configuration
        var carried: Checkpoint?
        // Its lock held until the last commit is made.
        var taken: CheckpointLoader.Taken?
        if let checkpoint = run.checkpoint {
            let loaded = try CheckpointLoader.take(checkpoint, for: .follow, plan: &plan)
            carried = loaded.carried
            configuration.fingerprint = loaded.fingerprint
            taken = consume loaded
        } else {
            configuration.fingerprint = CheckpointLoader.fingerprint(of: nil)
        }
        configuration.keysLines = true
        configuration.lateBefore = .min
        do { _ = try configuration.readers() } catch {
            StandardError().write("flipaudit: follow: \(TerminalText.escape("\(error)"))")
            plan.removeMadeFolders()
            return .usage
        }
        let metrics = FollowMetrics()
        var server: MetricsServer?
        if let listen {
            do { server = try MetricsServer(listen: listen, metrics: metrics) } catch {
                StandardError().write("flipaudit: follow: \(error)")
                plan.removeMadeFolders()
                return .usage
            }
        }
        var info = stat()
        let committedAt = run.checkpoint.map { stat($0, &info) == 0 ? Int64(info.st_mtim.tv_sec) * 1000 + Int64(info.st_mtim.tv_nsec) / 1_000_000 : 0 } ?? 0
        guard
            let follower = Follower(
                run: run, configuration: configuration, carried: carried, committedAt: committedAt, metrics: metrics, signals: signals,
                skipping: plan.ownOutputs)
        else {
            return .outputFailed
        }
        let status = follower.loop(server: server)
        _ = consume taken
        return status
    }
}
