import Foundation
import Testing

/// A follower loses no file to a rotation (docs/follow.md, "Rotation"):
/// a file rotated in and out while it was stopped is read on restart, and
/// a rotated file is kept while its server may still write to it. Both
/// lost every finding of that file before.
@Suite("flipaudit follow: rotations")
struct FollowRotationTests {
    /// Two authorize requests of one state, logged now: one `state-reuse`.
    private static func reuse(_ state: String) -> String {
        let time = logTime(Date())
        return (1...2).map { n in
            "203.0.113.9 - - [\(time)] \"GET \(authorize(state: state)) HTTP/1.1\" 302 0 \"-\" \"GoogleApp/1.0\" \"\(opa)?code=\(state)c\(n)&state=\(state)\"\n"
        }.joined()
    }

    /// A chain's files in `dir`, and a follower's arguments for `log`:
    /// checkpoint, findings, a commit a second.
    private static func chain(_ dir: String, _ log: String) -> (checkpoint: String, findings: String, arguments: [String]) {
        let checkpoint = dir + "/follow.ckpt"
        let findings = dir + "/findings.ndjson"
        return (checkpoint, findings, ["--checkpoint", checkpoint, "--findings", findings, "--commit-interval", "1", log])
    }

    /// The states of the `state-reuse` findings written, in order.
    private static func reused(_ findings: String) -> [String] {
        fileText(findings).split(separator: "\n").compactMap { line in
            guard line.contains("\"kind\":\"state-reuse\""), let r = line.range(of: "\"state\":\"") else { return nil }
            return String(line[r.upperBound...].prefix { $0 != "\"" })
        }
    }

    @Test("stopped, the log rotated twice: the middle file is read on restart, each finding once")
    func rotatedInAndOutWhileStopped() throws {
        let dir = temporaryDirectory()
        let log = dir + "/access.log"
        let (_, findings, arguments) = Self.chain(dir, log)
        try appendText(Self.reuse("first"), to: log)
        let first = try FollowerProcess(["--from-start"] + arguments)
        #expect(waitUntil(60) { Self.reused(findings) == ["first"] })
        #expect(first.stop() == 0)
        // logrotate `create`, twice, while it is stopped.
        let fm = FileManager.default
        try fm.moveItem(atPath: log, toPath: log + ".1")
        try appendText(Self.reuse("middle"), to: log)
        try fm.moveItem(atPath: log + ".1", toPath: log + ".2")
        try fm.moveItem(atPath: log, toPath: log + ".1")
        try appendText(Self.reuse("last"), to: log)
        let second = try FollowerProcess(arguments)
        #expect(waitUntil(60) { Set(Self.reused(findings)) == ["first", "middle", "last"] }, "\(Self.reused(findings))")
        #expect(second.stop() == 0)
        #expect(Self.reused(findings).sorted() == ["first", "last", "middle"])
        #expect(second.stderr.contains("access.log.1 was rotated in and out while the follower was stopped: read from its start"), "\(second.stderr)")
    }

    @Test("a write to the renamed file after a pause is read: the file is kept until its name's new file is written to")
    func lateWriteToRenamedFile() throws {
        let dir = temporaryDirectory()
        let log = dir + "/access.log"
        let findings = dir + "/findings.ndjson"
        try appendText(Self.reuse("before"), to: log)
        let follower = try FollowerProcess(["--from-start", "--findings", findings, log])
        #expect(waitUntil(60) { Self.reused(findings) == ["before"] })
        // Renamed; the server has not reopened its log yet (an empty new
        // file, as logrotate's `create` leaves), and writes late to the
        // old one, after the 2 s a rotated file that does not grow was
        // kept before.
        try FileManager.default.moveItem(atPath: log, toPath: log + ".1")
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        sleep(3)
        try appendText(Self.reuse("late"), to: log + ".1")
        try appendText(Self.reuse("after"), to: log)
        #expect(waitUntil(60) { Set(Self.reused(findings)) == ["before", "late", "after"] }, "\(Self.reused(findings))")
        #expect(follower.stop() == 0)
        #expect(Self.reused(findings).sorted() == ["after", "before", "late"])
    }

    @Test("a rotated file read under .1 at the commit and moved to .2 while stopped is found by its inode, its late lines read")
    func movedOnWhileStopped() throws {
        let dir = temporaryDirectory()
        let log = dir + "/access.log"
        let (checkpoint, findings, arguments) = Self.chain(dir, log)
        try appendText(Self.reuse("first"), to: log)
        let first = try FollowerProcess(["--from-start"] + arguments)
        #expect(waitUntil(60) { Self.reused(findings) == ["first"] })
        // Renamed, the new file not written yet: the follower keeps reading
        // access.log.1, and a commit records it under that name.
        try FileManager.default.moveItem(atPath: log, toPath: log + ".1")
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        #expect(waitUntil(60) { committedCheckpoint(checkpoint).contains("access.log.1") })
        #expect(first.stop() == 0)
        // Stopped: the server writes late to it, then the next rotation
        // moves it on to .2.
        try appendText(Self.reuse("late"), to: log + ".1")
        try FileManager.default.moveItem(atPath: log + ".1", toPath: log + ".2")
        try FileManager.default.moveItem(atPath: log, toPath: log + ".1")
        try appendText(Self.reuse("last"), to: log)
        let second = try FollowerProcess(arguments)
        #expect(waitUntil(60) { Set(Self.reused(findings)) == ["first", "late", "last"] }, "\(Self.reused(findings)) \(second.stderr)")
        #expect(second.stop() == 0)
        #expect(!second.stderr.contains("possible gap"), "\(second.stderr)")
    }

    @Test("a symbolic link retargeted while stopped: the old target's tail is read, found by its inode")
    func linkRetargetedWhileStopped() throws {
        let dir = temporaryDirectory()
        let link = dir + "/current.log"
        let (_, findings, arguments) = Self.chain(dir, link)
        try appendText(Self.reuse("monday"), to: dir + "/app-monday.log")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "app-monday.log")
        let first = try FollowerProcess(["--from-start"] + arguments)
        #expect(waitUntil(60) { Self.reused(findings) == ["monday"] })
        #expect(first.stop() == 0)
        // Stopped: Monday's file gets its last lines, the link moves on.
        try appendText(Self.reuse("mondaylate"), to: dir + "/app-monday.log")
        try appendText(Self.reuse("tuesday"), to: dir + "/app-tuesday.log")
        try FileManager.default.removeItem(atPath: link)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "app-tuesday.log")
        let second = try FollowerProcess(arguments)
        #expect(waitUntil(60) { Set(Self.reused(findings)) == ["monday", "mondaylate", "tuesday"] }, "\(Self.reused(findings)) \(second.stderr)")
        #expect(second.stop() == 0)
        #expect(!second.stderr.contains("possible gap"), "\(second.stderr)")
    }

    @Test("copytruncate while stopped: the rest read from the copy, the new lines from the start, the possible gap said")
    func copyTruncatedWhileStopped() throws {
        let dir = temporaryDirectory()
        let log = dir + "/access.log"
        let (_, findings, arguments) = Self.chain(dir, log)
        try appendText(Self.reuse("first"), to: log)
        let first = try FollowerProcess(["--from-start"] + arguments)
        #expect(waitUntil(60) { Self.reused(findings) == ["first"] })
        #expect(first.stop() == 0)
        // Stopped: more lines, then logrotate's copytruncate, then new lines.
        try appendText(Self.reuse("copied"), to: log)
        try FileManager.default.copyItem(atPath: log, toPath: log + ".1")
        let truncate = open(log, O_WRONLY | O_TRUNC)
        close(truncate)
        try appendText(Self.reuse("after"), to: log)
        let second = try FollowerProcess(arguments)
        #expect(waitUntil(60) { Set(Self.reused(findings)) == ["first", "copied", "after"] }, "\(Self.reused(findings)) \(second.stderr)")
        #expect(second.stop() == 0)
        #expect(Self.reused(findings).count == 3)
        #expect(
            second.stderr.contains(
                "access.log was truncated in place (copytruncate) while the follower was stopped; the rest read from its copy \(log).1; possible gap"),
            "\(second.stderr)")
    }

    /// Open sessions in a follow checkpoint (its `session` lines).
    private static func openSessions(_ checkpoint: String) -> Int {
        committedCheckpoint(checkpoint).split(separator: "\n").filter { $0.hasPrefix("session\t") }.count
    }

    private static func inode(_ path: String) -> UInt64? {
        var info = stat()
        return stat(path, &info) == 0 ? UInt64(info.st_ino) : nil
    }

    /// SIGHUP (a commit: appended to the journal, or a new snapshot), and
    /// whether it came.
    private static func commit(_ follower: FollowerProcess, _ checkpoint: String) -> Bool {
        let before = commitMark(checkpoint)
        kill(follower.process.processIdentifier, SIGHUP)
        return waitUntil(60) { commitMark(checkpoint) != before }
    }

    @Test("a no-return whose requests span longer than the window ids are kept by is not written twice after a SIGKILL")
    func longSessionNotRepeated() throws {
        let dir = temporaryDirectory()
        let log = dir + "/access.log"
        let checkpoint = dir + "/follow.ckpt"
        let findings = dir + "/findings.ndjson"
        // One state asked for every 50 s from 1,100 s ago to 100 s ago, and
        // no return: with a 60 s timeout one session, open at a commit
        // (the clock is its last request; the wall less 300 s lies
        // before), and closed as no-return only when a later record moves
        // the clock: no race with the commit. Its no-return is dated by
        // its first request, 1,100 s ago: more than the timeout and twice
        // the reorder window before the commit's clock (a restored clock
        // lies a window before it).
        let time = { (ago: Double) in logTime(Date().addingTimeInterval(-ago)) }
        let request = { (ago: Double) in "203.0.113.9 - - [\(time(ago))] \"GET \(authorize(state: "long")) HTTP/1.1\" 200 0 \"-\" \"G\" \"-\"" }
        let whole = { (state: String, ago: Double) in
            "203.0.113.9 - - [\(time(ago))] \"GET \(authorize(state: state)) HTTP/1.1\" 302 0 \"-\" \"G\" \"\(opa)?code=c1&state=\(state)\""
        }
        _ = writeLog([whole("seen", 1100)] + stride(from: 1100.0, through: 100, by: -50).map(request), named: "access.log", in: dir)
        let arguments = ["--checkpoint", checkpoint, "--findings", findings, "--session-timeout", "60", "--commit-interval", "86400", log]
        let noReturn = { fileText(findings).components(separatedBy: "\"kind\":\"no-return\"").count - 1 }
        let first = try FollowerProcess(["--from-start"] + arguments)
        // Committed with the session open, then the finding written, then
        // killed before any other commit. (Signals only once its first
        // commit shows it handles them.)
        #expect(waitUntil(60) { FileManager.default.fileExists(atPath: checkpoint) })
        #expect(waitUntil(60) { Self.commit(first, checkpoint) && Self.openSessions(checkpoint) == 1 })
        try appendText(whole("later", 0) + "\n", to: log)
        #expect(waitUntil(90) { noReturn() == 1 })
        kill(first.process.processIdentifier, SIGKILL)
        first.process.waitUntilExit()
        // Restarted from that commit: the session closes again; its finding,
        // read back from the file, is not written again.
        let killed = Self.inode(checkpoint)
        let second = try FollowerProcess(arguments)
        #expect(waitUntil(60) { Self.inode(checkpoint) != killed })
        // Committed once the whole log is read (and so audited).
        let size = (try? FileManager.default.attributesOfItem(atPath: log)[.size] as? Int) ?? -1
        #expect(
            waitUntil(90) {
                Self.commit(second, checkpoint)
                    && committedCheckpoint(checkpoint).split(separator: "\n").contains {
                        $0.hasPrefix("position\t") && $0.split(separator: "\t")[4] == "\(size)"
                    }
            })
        #expect(second.stop() == 0)
        #expect(noReturn() == 1, "\(fileText(findings)) \(second.stderr) \(first.stderr)")
    }

    @Test("the file read is gone while stopped, a plain copy of it left: the rest read from the copy, not called a truncation")
    func goneWithACopy() throws {
        let dir = temporaryDirectory()
        let log = dir + "/access.log"
        let (_, findings, arguments) = Self.chain(dir, log)
        try appendText(Self.reuse("first"), to: log)
        let first = try FollowerProcess(["--from-start"] + arguments)
        #expect(waitUntil(60) { Self.reused(findings) == ["first"] })
        #expect(first.stop() == 0)
        // Stopped: more lines, a copy kept by hand, the log removed.
        try appendText(Self.reuse("copied"), to: log)
        try FileManager.default.copyItem(atPath: log, toPath: dir + "/saved.txt")
        try FileManager.default.removeItem(atPath: log)
        let second = try FollowerProcess(arguments)
        #expect(waitUntil(60) { Set(Self.reused(findings)) == ["first", "copied"] }, "\(second.stderr)")
        #expect(second.stop() == 0)
        #expect(second.stderr.contains("\(log): the file read up to byte"), "\(second.stderr)")
        #expect(second.stderr.contains("is gone; the rest read from its copy \(dir)/saved.txt; possible gap (lines written after the copy)"))
        #expect(!second.stderr.contains("truncated in place"))
    }
}
