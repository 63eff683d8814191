import Foundation
import Synchronization
import Testing

@testable import Parsing
@testable import Rules
@testable import Run

/// Clean is not blind, live (docs/follow.md): what a follower can see now,
/// the words it says, `/healthz` and the gauges, and a real follower that
/// says it on standard error.
@Suite("flipaudit follow: coverage now")
struct LiveCoverageTests {
    private static func accounting(lines: Int, malformed: Int) -> (InputAccounting, FormatTally) {
        var a = InputAccounting()
        a.lines = lines
        a.records = lines - malformed
        a.malformedLines = malformed
        a.malformedByReason = malformed > 0 ? ["does not match the log format": malformed] : [:]
        var t = FormatTally()
        t.unparsed = malformed
        return (a, t)
    }

    @Test("complete, partial for an input not seen, blind for a file not understood or nothing followed")
    func verdicts() {
        let (good, goodTally) = Self.accounting(lines: 100, malformed: 3)
        let (bad, badTally) = Self.accounting(lines: 10, malformed: 8)
        let complete = LiveCoverage.judge(unseen: [], followed: [("a.log", good, goodTally)], format: .auto)
        #expect(complete.verdict == .complete && complete.reasons.isEmpty && complete.sentence == "coverage complete")
        let partial = LiveCoverage.judge(
            unseen: [("ngnix/*.log", "matches no file (yet)")], followed: [("a.log", good, goodTally)], format: .auto)
        #expect(partial.verdict == .partial && partial.unseen == 1 && partial.blind == 0)
        #expect(partial.sentence == "coverage partial: ngnix/*.log matches no file (yet)")
        let blind = LiveCoverage.judge(unseen: [], followed: [("a.log", good, goodTally), ("b.log", bad, badTally)], format: .auto)
        #expect(blind.verdict == .blind && blind.blind == 1)
        let share = "read in every format flipaudit knows (each line on its own), 80% of its lines (8 of 10) are malformed"
        #expect(blind.sentence.hasPrefix("coverage blind: b.log: \(share)"))
        let unobservable = LiveCoverage.judge(unseen: [], followed: [("a.log", good, goodTally)], unobservable: ["a.log"], format: .auto)
        #expect(unobservable.verdict == .partial && unobservable.names == ["a.log"])
        #expect(unobservable.sentence.hasPrefix("coverage partial: a.log: returns to Google not observable (no Location logged)"))
        let nothing = LiveCoverage.judge(unseen: [("access.log", "does not exist (yet)")], followed: [], format: .auto)
        #expect(nothing.verdict == .blind && nothing.sentence == "coverage blind: access.log does not exist (yet)")
        // A change is a change of verdict or of the inputs named, not of the shares.
        let (worse, worseTally) = Self.accounting(lines: 20, malformed: 19)
        #expect(blind.sameAs(LiveCoverage.judge(unseen: [], followed: [("a.log", good, goodTally), ("b.log", worse, worseTally)], format: .auto)))
        #expect(!blind.sameAs(partial) && !partial.sameAs(complete))
    }

    @Test("/healthz is 503 and says why while the coverage is not complete; the gauges carry it")
    func healthAndGauges() {
        let metrics = FollowMetrics()
        let now = Date().timeIntervalSince1970
        metrics.publish(healthy: true, now: now)
        #expect(metrics.published.health(now: now) == (200, "ok\n"))
        metrics.coverage = LiveCoverage.judge(unseen: [("ngnix/*.log", "matches no file (yet)")], followed: [], format: .auto)
        metrics.newestRecordOrStart = Int64(now * 1000) - 90_000
        metrics.publish(healthy: true, now: now)
        #expect(metrics.published.health(now: now) == (503, "degraded: coverage blind: ngnix/*.log matches no file (yet)\n"))
        let text = metrics.published.state.withLock { $0.text }
        #expect(text.contains("flipaudit_follow_coverage{verdict=\"blind\"} 1\n"))
        #expect(text.contains("flipaudit_follow_coverage{verdict=\"complete\"} 0\n"))
        #expect(text.contains("flipaudit_follow_unseen_inputs 1\n"))
        // Finite from the start: no record yet is the time since the start.
        #expect(text.contains("flipaudit_follow_newest_record_age_seconds 90."))
        #expect(!text.contains("NaN"))
    }

    @Test("a real follower says a blind file and an input it cannot see, first")
    func said() throws {
        let dir = temporaryDirectory()
        let log = writeLog((1...10).map { "hello \($0), not a log line" }, named: "app.log", in: dir)
        let follower = try FollowerProcess(["--from-start", log, dir + "/ngnix/*.log"])
        let sentence = "flipaudit: follow: coverage blind: \(dir)/ngnix/*.log matches no file (yet); \(log): read in every format"
        #expect(waitUntil(60) { follower.stderr.contains(sentence) }, "\(follower.stderr)")
        #expect(follower.stop() == 0)
    }

    @Test("a log too many for the descriptors is not opened but said, as not seen; the rest are followed")
    func descriptorReserve() throws {
        let dir = temporaryDirectory()
        for i in 1...40 { _ = writeLog([combined(1, "/healthz", 200)], named: "app\(i).log", in: dir) }
        let follower = try FollowerProcess(["--from-start", dir + "/*.log"], descriptors: 48)
        #expect(waitUntil(60) { follower.stderr.contains("coverage partial: ") }, "\(follower.stderr)")
        #expect(follower.process.isRunning)
        #expect(follower.stop() == 0)
        let said = follower.stderr
        // 48 allowed, 32 kept: 16 logs followed, 24 said not opened.
        let notOpened = said.split(separator: "\n").filter {
            $0.hasPrefix("flipaudit: follow: \(dir)/app") && $0.contains(" not opened: 16 files open, 48 descriptors allowed (ulimit -n), 32 kept")
        }
        #expect(notOpened.count == 24, "\(said)")
        #expect(said.contains("; and 19 more"))
        #expect(!said.contains("Too many open files"))
    }

    @Test("a followed log without a Location: its returns cannot be seen, said once its sessions close")
    func unobservable() throws {
        let dir = temporaryDirectory()
        let then = logTime(Date().addingTimeInterval(-400))
        // Plain combined: no field after the User-Agent, so no Location.
        let line = "203.0.113.9 - - [\(then)] \"GET \(authorize(state: "s1")) HTTP/1.1\" 302 0 \"-\" \"GoogleApp/1.0\""
        let log = writeLog([line], named: "access.log", in: dir)
        let follower = try FollowerProcess(["--from-start", "--session-timeout", "5", log])
        let said = "flipaudit: follow: coverage partial: \(log): returns to Google not observable (no Location logged)"
        #expect(waitUntil(60) { follower.stderr.contains(said) }, "\(follower.stderr)")
        #expect(follower.stop() == 0)
    }

    @Test("a pattern that matches nothing, then a file: blind said, then complete again")
    func completeAgain() throws {
        let dir = temporaryDirectory()
        let pattern = dir + "/*.log"
        let follower = try FollowerProcess([pattern])
        #expect(waitUntil(60) { follower.stderr.contains("flipaudit: follow: coverage blind: \(pattern) matches no file (yet)") }, "\(follower.stderr)")
        _ = writeLog([combined(1, "/healthz", 200)], named: "app.log", in: dir)
        #expect(waitUntil(60) { follower.stderr.contains("flipaudit: follow: coverage complete again") }, "\(follower.stderr)")
        #expect(follower.stop() == 0)
    }
}
