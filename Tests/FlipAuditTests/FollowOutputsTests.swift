import Foundation
import Testing

/// A follower's outputs go through the batch run's checks (docs/follow.md,
/// docs/contract.md §8 and §12): a checkpoint named through a symbolic link
/// is locked and written at its target, an output that is an input is
/// refused before anything is read, and a pattern never follows the
/// follower's own files. Each case ran wrong before (the link replaced and
/// a second follower let in; findings appended to the followed log; the
/// checkpoint read back as a rotated log).
@Suite("flipaudit follow: its outputs")
struct FollowOutputsTests {
    private static func inode(_ path: String) -> UInt64? {
        var info = stat()
        return stat(path, &info) == 0 ? UInt64(info.st_ino) : nil
    }

    private static func isLink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK
    }

    /// Two more of another state: another `state-reuse`.
    private static let more = [
        combined(3, authorize(state: "s2"), 302, location: "\(opa)?code=c3&state=s2"),
        combined(4, authorize(state: "s2"), 302, location: "\(opa)?code=c4&state=s2"),
    ].map { $0 + "\n" }.joined()

    /// Two authorize requests with one state: one `state-reuse`.
    private static let lines = [
        combined(1, authorize(state: "s1"), 302, location: "\(opa)?code=c1&state=s1"),
        combined(2, authorize(state: "s1"), 302, location: "\(opa)?code=c2&state=s1"),
    ]

    @Test("--checkpoint through a symbolic link: the target is locked and written, the link stays a link")
    func checkpointLink() throws {
        let dir = temporaryDirectory()
        let log = writeLog(Self.lines, named: "access.log", in: dir)
        try FileManager.default.createDirectory(atPath: dir + "/state", withIntermediateDirectories: true)
        let target = dir + "/state/follow.ckpt"
        let link = dir + "/follow.ckpt"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "state/follow.ckpt")
        let first = try FollowerProcess(["--checkpoint", link, "--commit-interval", "1", log])
        #expect(waitUntil(60) { FileManager.default.fileExists(atPath: target) }, "the first commit reaches the link's target")
        // A second follower on the target's own name is the same chain: refused.
        let second = try FollowerProcess(["--checkpoint", target, log])
        let refused = second.exit(within: 60)
        #expect(refused == 2, "a second follower on the same checkpoint runs beside the first")
        #expect(second.stderr.contains("is in use by another run"), "\(second.stderr)")
        #expect(first.stop() == 0)
        #expect(Self.isLink(link), "the link was replaced by a file")
        let text = try String(contentsOfFile: target, encoding: .utf8)
        #expect(text.hasPrefix("flipaudit follow checkpoint 1\n"))
        #expect(!FileManager.default.fileExists(atPath: link + ".lock"), "the link's name was locked, not its target's")
        #expect(FileManager.default.fileExists(atPath: target + ".lock"))
    }

    @Test("an output that is an input is refused before anything is read (exit 2)")
    func outputIsInput() throws {
        let dir = temporaryDirectory()
        let log = writeLog(Self.lines, named: "access.log", in: dir)
        let before = try Data(contentsOf: URL(fileURLWithPath: log))
        let findings = try FollowerProcess(["--findings", log, log])
        #expect(findings.exit(within: 60) == 2)
        #expect(findings.stderr.contains("flipaudit: follow: --findings \(log) is the input \(log); refusing to write into it"), "\(findings.stderr)")
        let checkpoint = try FollowerProcess(["--checkpoint", log, log])
        #expect(checkpoint.exit(within: 60) == 2)
        #expect(checkpoint.stderr.contains("refusing to overwrite it"), "\(checkpoint.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: log)) == before)
        // A checkpoint that is a directory: said as such, before anything is read.
        let folder = try FollowerProcess(["--checkpoint", dir, log])
        #expect(folder.exit(within: 60) == 2)
        #expect(folder.stderr.contains("flipaudit: follow: --checkpoint: \(dir) is a directory"), "\(folder.stderr)")
        // A pattern that matches a log named as --findings: refused too.
        let other = writeLog(Self.lines, named: "other.log", in: dir)
        let pattern = try FollowerProcess(["--findings", other, dir + "/*.log"])
        #expect(pattern.exit(within: 60) == 2)
        #expect(pattern.stderr.contains("is matched by the input pattern \(dir)/*.log and is not a flipaudit output"), "\(pattern.stderr)")
    }

    @Test("a pattern never follows the follower's checkpoint, its lock or its findings")
    func patternSkipsOwnFiles() throws {
        let dir = temporaryDirectory()
        let log = writeLog(Self.lines, named: "access.log", in: dir)
        let checkpoint = dir + "/follow.ckpt"
        let findings = dir + "/findings.ndjson"
        let follower = try FollowerProcess(
            ["--checkpoint", checkpoint, "--findings", findings, "--from-start", "--commit-interval", "1", dir + "/*"])
        // Three commits: the first renames a snapshot and its journal into
        // place, the others append to the journal; a pattern matching
        // either would open it on its next look.
        var seen: Set<String> = []
        #expect(
            waitUntil(60) {
                seen.insert(commitMark(checkpoint))
                return seen.count >= 3
            })
        #expect(follower.stop() == 0)
        #expect(!follower.stderr.contains("malformed"), "\(follower.stderr)")
        let written = try String(contentsOfFile: findings, encoding: .utf8).split(separator: "\n")
        #expect(written.count == 1 && written.allSatisfy { $0.contains("\"kind\":\"state-reuse\"") }, "\(written)")
        #expect(written.allSatisfy { $0.contains(log) && !$0.contains("follow.ckpt") && !$0.contains("findings.ndjson") })
        // Restarted: its own findings file, matched by the pattern, is
        // taken for what it is (a follower's NDJSON), not refused.
        let last = Self.inode(checkpoint)
        let again = try FollowerProcess(["--findings", findings, "--checkpoint", checkpoint, "--commit-interval", "1", dir + "/*"])
        #expect(waitUntil(60) { !again.process.isRunning || Self.inode(checkpoint) != last })
        #expect(again.process.isRunning, "\(again.stderr)")
        #expect(again.stop() == 0)
    }

    @Test("--findings deleted without a SIGHUP: made anew and written to, said")
    func findingsDeleted() throws {
        let dir = temporaryDirectory()
        let log = dir + "/access.log"
        let findings = dir + "/findings.ndjson"
        try Data(Self.lines.map { $0 + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: log))
        let follower = try FollowerProcess(["--from-start", "--findings", findings, log])
        #expect(waitUntil(60) { fileText(findings).contains("state-reuse") })
        try FileManager.default.removeItem(atPath: findings)
        // Another state used twice: another state-reuse.
        try appendText(Self.more, to: log)
        #expect(waitUntil(60) { fileText(findings).contains("\"state\":\"s2\"") }, "\(follower.stderr)")
        #expect(follower.stop() == 0)
        #expect(follower.stderr.contains("--findings \(findings) was renamed or deleted without a SIGHUP: reopened"), "\(follower.stderr)")
    }

    @Test("--findings renamed, then killed before the SIGHUP: the restart finds what it wrote there and repeats nothing")
    func findingsRenamedThenKilled() throws {
        let dir = temporaryDirectory()
        let log = dir + "/access.log"
        let checkpoint = dir + "/follow.ckpt"
        let findings = dir + "/findings.ndjson"
        try Data(Self.lines.map { $0 + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: log))
        // One commit, at the start: the s1 finding is written after it.
        let arguments = ["--checkpoint", checkpoint, "--findings", findings, "--commit-interval", "86400", log]
        let first = try FollowerProcess(["--from-start"] + arguments)
        #expect(waitUntil(60) { fileText(findings).contains("\"state\":\"s1\"") })
        // logrotate's create; the follower killed before its SIGHUP.
        try FileManager.default.moveItem(atPath: findings, toPath: findings + ".1")
        _ = FileManager.default.createFile(atPath: findings, contents: nil)
        kill(first.process.processIdentifier, SIGKILL)
        first.process.waitUntilExit()
        // Restarted from the start commit: s1 is read and decided again.
        try appendText(Self.more, to: log)
        let second = try FollowerProcess(arguments)
        #expect(waitUntil(60) { fileText(findings).contains("\"state\":\"s2\"") })
        #expect(second.stop() == 0)
        let now = try String(contentsOfFile: findings, encoding: .utf8)
        let renamed = try String(contentsOfFile: findings + ".1", encoding: .utf8)
        #expect(!now.contains("\"state\":\"s1\""), "s1's finding written again: \(now)")
        #expect(renamed.components(separatedBy: "\"state\":\"s1\"").count == 2)
    }

    @Test("--findings replaced without a SIGHUP (logrotate's create, no reload): the new file is written to, said")
    func findingsReplaced() throws {
        let dir = temporaryDirectory()
        let log = dir + "/access.log"
        let findings = dir + "/findings.ndjson"
        try appendText(Self.lines.map { $0 + "\n" }.joined(), to: log)
        let follower = try FollowerProcess(["--from-start", "--findings", findings, log])
        #expect(waitUntil(60) { fileText(findings).contains("\"state\":\"s1\"") })
        // Renamed, a new file made: never missing in between (a follower
        // looking in between would rightly say "renamed or deleted").
        #expect(link(findings, findings + ".1") == 0)
        _ = FileManager.default.createFile(atPath: findings + ".new", contents: nil)
        #expect(rename(findings + ".new", findings) == 0)
        // Once it has seen the new file: a finding decided in the turn that
        // looked just before the rename goes to the old one, as any
        // writer's line before its reopen does.
        #expect(waitUntil(60) { follower.stderr.contains("was replaced without a SIGHUP: reopened") }, "\(follower.stderr)")
        try appendText(Self.more, to: log)
        #expect(waitUntil(60) { fileText(findings).contains("\"state\":\"s2\"") }, "\(follower.stderr)")
        #expect(follower.stop() == 0)
        #expect(!fileText(findings + ".1").contains("\"state\":\"s2\""))
        #expect(follower.stderr.contains("--findings \(findings) was replaced without a SIGHUP: reopened"), "\(follower.stderr)")
    }
}
