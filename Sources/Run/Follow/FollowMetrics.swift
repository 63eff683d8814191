import Foundation
import Reports
import Rules
import Synchronization

/// A follower's figures since it started, and their Prometheus text for
/// `--listen` (docs/follow.md): the batch run's families as counters
/// (`_total`), and the follower's own. Every finding kind and outcome has
/// its series from the start, at 0, so alerts and dashboards can name them.
///
/// The follow loop writes the figures and publishes the text once a turn;
/// the HTTP server only reads what was published (`published`).
final class FollowMetrics {
    /// Findings by "severity\tkind", sessions by outcome.
    var findings: [String: Int] = [:]
    var sessions: [String: Int] = [:]
    var lines = 0
    var records = 0
    var malformedLines = 0
    var flipRecords = 0
    var duplicateRecords = 0
    var bytesRead = 0
    var bytesUnread: Int64 = 0
    var files = 0
    var rotations = 0
    var gaps = 0
    var gapBytes: Int64 = 0
    var commits = 0
    /// Snapshots written: whole commits (the first, one after a failure) and compactions of the journal.
    var snapshots = 0
    /// Bytes the commits wrote (checkpoint and journal).
    var commitBytes = 0
    var lastCommit: Double = 0
    var openSessions = 0
    /// The newest record time read (milliseconds), if any.
    var newestRecord: Int64?
    /// The newest record time, or the follower's start before the first.
    var newestRecordOrStart: Int64 = 0
    /// What the follower can see now.
    var coverage = LiveCoverage.complete

    /// What the server answers: the text of `/metrics`, and whether
    /// `/healthz` is 200.
    final class Board: Sendable {
        let state = Mutex<(text: String, healthy: Bool, at: Double, degraded: String?)>(("", false, 0, nil))

        /// Healthy as last published, and published within `stall`
        /// seconds: a loop that stopped turning is not healthy.
        func healthy(now: Double) -> Bool {
            state.withLock { $0.healthy && now - $0.at < Board.stall }
        }

        /// `/healthz`: 200 `ok`; 503 `starting` (no first commit yet, or
        /// the loop stopped turning), or `degraded: ` and the coverage
        /// when an input cannot be seen or read.
        func health(now: Double) -> (status: UInt32, body: String) {
            let degraded = state.withLock { $0.degraded }
            guard healthy(now: now) else { return (503, "starting\n") }
            if let degraded { return (503, "degraded: \(degraded)\n") }
            return (200, "ok\n")
        }

        /// Seconds without a turn after which `/healthz` says 503.
        static let stall = 10.0
    }
    let published = Board()

    func publish(healthy: Bool, now: Double) {
        let text = render(now: now)
        let degraded = coverage.verdict == .complete ? nil : coverage.sentence
        published.state.withLock { $0 = (text, healthy, now, degraded) }
    }

    func render(now: Double) -> String {
        var out = MetricsText()
        func counter(_ name: String, _ help: String, _ value: some BinaryInteger) { out.single(name, "counter", help, "\(value)") }
        func gauge(_ name: String, _ help: String, _ value: String) { out.single(name, "gauge", help, value) }
        out.family(
            "flipaudit_findings_total", "counter", "Findings written since start, by kind and severity.",
            FindingKind.allCases.map { kind in
                ([("kind", kind.rawValue), ("severity", kind.severity.rawValue)], "\(findings[kind.severity.rawValue + "\t" + kind.rawValue] ?? 0)")
            })
        out.family(
            "flipaudit_sessions_total", "counter", "Sessions closed since start, by outcome.",
            Outcome.allCases.map { ([("outcome", $0.rawValue)], "\(sessions[$0.rawValue] ?? 0)") })
        counter("flipaudit_input_lines_total", "Lines read since start.", lines)
        counter("flipaudit_input_records_total", "Records read since start.", records)
        counter("flipaudit_input_malformed_lines_total", "Malformed lines since start.", malformedLines)
        counter("flipaudit_input_flip_records_total", "App Flip records read since start.", flipRecords)
        counter("flipaudit_duplicate_records_total", "Flip records left out as copies of records already audited.", duplicateRecords)
        counter("flipaudit_follow_lines_read_total", "Lines read since start.", lines)
        counter("flipaudit_follow_bytes_read_total", "Bytes read since start.", bytesRead)
        gauge("flipaudit_follow_bytes_unread", "Bytes written to the followed files and not read yet.", "\(bytesUnread)")
        gauge("flipaudit_follow_files", "Files open: followed, and rotated ones still being read.", "\(files)")
        counter("flipaudit_follow_rotations_total", "Rotations seen: renamed, truncated in place or deleted.", rotations)
        counter("flipaudit_follow_gaps_total", "Truncations in place (copytruncate) that may have lost lines.", gaps)
        counter("flipaudit_follow_gap_bytes_total", "Bytes known to be lost to a truncation before they were read.", gapBytes)
        gauge("flipaudit_follow_open_sessions", "Sessions open now.", "\(openSessions)")
        counter("flipaudit_follow_commits_total", "Checkpoint commits since start.", commits)
        counter(
            "flipaudit_follow_snapshots_total",
            "Snapshots of the checkpoint written: whole commits (the first, one after a failure) and compactions of the journal.", snapshots)
        counter("flipaudit_follow_commit_bytes_total", "Bytes the commits wrote to the checkpoint and its journal.", commitBytes)
        gauge("flipaudit_follow_last_commit_timestamp_seconds", "When the checkpoint was last committed (0: never).", String(format: "%.3f", lastCommit))
        gauge(
            "flipaudit_follow_newest_record_age_seconds", "Wall-clock time since the newest record read (since the start before the first).",
            String(format: "%.3f", max(0, now - Double(newestRecordOrStart) / 1000)))
        out.family(
            "flipaudit_follow_coverage", "gauge",
            "1 for what the follower can see now: complete, partial (an input not seen), blind (a file not understood, or none followed).",
            Coverage.Verdict.allCases.map { ([("verdict", $0.rawValue)], coverage.verdict == $0 ? "1" : "0") })
        gauge(
            "flipaudit_follow_unseen_inputs", "Inputs not seen now: a pattern that matches no file, a name missing or not readable.",
            "\(coverage.unseen)")
        gauge("flipaudit_follow_blind_files", "Files followed whose lines are mostly not understood (their format).", "\(coverage.blind)")
        return out.text
    }
}
