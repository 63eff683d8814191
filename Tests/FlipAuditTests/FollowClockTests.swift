import Foundation
import Testing

/// The rules' clock of a follower follows the wall clock (less the reorder
/// window) on a busy log too (docs/follow.md, "The clock"): before, it
/// moved with the wall only on a turn that read nothing, so a log written
/// to all the time (health checks) held every timeout finding back.
@Suite("flipaudit follow: the clock")
struct FollowClockTests {
    private static func line(_ date: Date, _ target: String, _ status: Int, location: String = "-") -> String {
        "203.0.113.9 - - [\(logTime(date))] \"GET \(target) HTTP/1.1\" \(status) 0 \"-\" \"GoogleApp/1.0\" \"\(location)\"\n"
    }

    @Test("a request without its return is no-return while the log is busy with health checks")
    func busyLogTimesOut() throws {
        let dir = temporaryDirectory()
        let log = dir + "/access.log"
        let findings = dir + "/findings.ndjson"
        // 400 s ago: a whole flow (the log has Locations), and a consent
        // page shown whose return never comes.
        let then = Date().addingTimeInterval(-400)
        let opening =
            Self.line(then, authorize(state: "whole"), 302, location: "\(opa)?code=c1&state=whole")
            + Self.line(then, authorize(state: "open"), 200)
        try Data(opening.utf8).write(to: URL(fileURLWithPath: log))
        let follower = try FollowerProcess(["--from-start", "--session-timeout", "5", "--findings", findings, log])
        let handle = try #require(FileHandle(forWritingAtPath: log))
        try handle.seekToEnd()
        // A health check every 20 ms: every turn reads something.
        let timedOut = waitUntil(60) {
            try? handle.write(contentsOf: Data(Self.line(Date(), "/healthz", 200).utf8))
            let text = (try? String(contentsOfFile: findings, encoding: .utf8)) ?? ""
            return text.contains("\"kind\":\"no-return\"") && text.contains("\"state\":\"open\"")
        }
        try handle.close()
        #expect(follower.stop() == 0)
        #expect(timedOut, "no-return waited for the health checks to stop")
    }
}
