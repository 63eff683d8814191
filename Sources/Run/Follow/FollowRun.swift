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
    /// A journal this large (bytes) is compacted even when its snapshot
    /// is larger (`CommitWriter`); the tests make it 0.
    package var compactAt = 1 << 20

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
            Diagnostics.follow.say("cannot set up signal handling")
            return .usage
        }
        return try follower(signals: signals, metrics: FollowMetrics()).loop()
    }

    /// The follower this run's life makes, ready for its first turn:
    /// outputs checked against the inputs before anything is read, the
    /// checkpoint taken by the one loader (through a symbolic link, its
    /// target is locked and written; the lock is the follower's until it
    /// ends), --listen's server started. `fs`: where logs are read, and the
    /// clock; `committedAt`: when the checkpoint was committed (nil: its
    /// file's time).
    func follower(
        signals: Int32, metrics: FollowMetrics, fs: any FileSystem = LocalFileSystem(), committedAt: Int64? = nil,
        say: @escaping (String) -> Void = { Diagnostics.follow.say($0) }
    ) throws(ExitStatus) -> Follower {
        var run = self
        run.checkpoint = checkpoint.map(CheckpointLock.target)
        var plan: OutputPlan
        do { plan = try OutputPlan.follow(checkpoint: run.checkpoint, findings: findings, inputs: inputs) } catch {
            say("\(error)")
            throw .usage
        }
        var configuration = self.configuration
        var taken: CheckpointLoader.Taken?
        if let checkpoint = run.checkpoint {
            let loaded = try CheckpointLoader.take(checkpoint, for: .follow, plan: &plan, say: say)
            configuration.fingerprint = loaded.fingerprint
            taken = consume loaded
        } else {
            configuration.fingerprint = CheckpointLoader.fingerprint(of: nil)
        }
        configuration.keysLines = true
        configuration.lateBefore = .min
        do { _ = try configuration.readers() } catch {
            say("\(TerminalText.escape("\(error)"))")
            plan.removeMadeFolders()
            throw .usage
        }
        var server: MetricsServer?
        if let listen {
            do { server = try MetricsServer(listen: listen, metrics: metrics) } catch {
                say("\(error)")
                plan.removeMadeFolders()
                throw .usage
            }
        }
        var info = stat()
        let committed =
            committedAt ?? run.checkpoint.map { stat($0, &info) == 0 ? Int64(info.st_mtim.tv_sec) * 1000 + Int64(info.st_mtim.tv_nsec) / 1_000_000 : 0 } ?? 0
        guard
            let follower = Follower(
                run: run, configuration: configuration, taken: taken, committedAt: committed, metrics: metrics, signals: signals,
                skipping: plan.ownOutputs, server: server, fs: fs, say: say)
        else {
            throw .outputFailed
        }
        return follower
    }
}
