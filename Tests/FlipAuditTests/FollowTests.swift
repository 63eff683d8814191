import Foundation
import Testing

@testable import Reading
@testable import Rules
@testable import Run

/// `flipaudit follow`'s parts that decide exactly once (docs/follow.md):
/// the follow checkpoint read back as written and refused by the other
/// kind, a followed file that hands on only whole lines and knows when it
/// was truncated in place, and finding ids that do not change with the
/// name a record was read under. The live loop itself (nginx, logrotate,
/// SIGKILL, Prometheus) is Tests/follow/run.sh.
@Suite("flipaudit follow")
struct FollowTests {
    private static func followCheckpoint() -> Checkpoint {
        var c = Checkpoint(
            watermark: 1_795_000_000_000, key: Array(repeating: 7, count: 32), serial: 3, files: ["access.log", "access.log.1"], sessions: [],
            endedStates: [], returnedCodes: [])
        c.run = 4
        c.follow = FollowState(
            positions: [
                FollowState.Position(device: 65024, inode: 99, fingerprint: 0xdead_beef, offset: 4096, lines: 17, name: "access.log"),
                FollowState.Position(device: 65024, inode: 98, fingerprint: 0xfeed, offset: 1 << 40, lines: 1 << 30, name: "a\tb.log"),
            ],
            sources: [0: 0xdead_beef, 1: 0xfeed], findings: FollowState.FindingsMark(device: 1, inode: 2, size: 300),
            written: [0x0123_4567_89ab_cdef: 1_794_999_000_000])
        return c
    }

    @Test("a follow checkpoint reads back as it was written")
    func roundTrip() throws {
        let c = Self.followCheckpoint()
        let bytes = c.encoded()
        #expect(bytes.starts(with: Array("flipaudit follow checkpoint 1\n".utf8)))
        #expect(try Checkpoint.decode(bytes) == c)
        // A nightly checkpoint has no follow state.
        var nightly = c
        nightly.follow = nil
        #expect(try Checkpoint.decode(nightly.encoded()).follow == nil)
    }

    @Test("a damaged follow line is refused, naming its line")
    func damaged() throws {
        let text = String(decoding: Self.followCheckpoint().encoded(), as: UTF8.self)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines.removeLast(2)  // the end line, and the empty rest
        for (bad, reason) in [
            ("position\t1\t2\tnothex\t0\t0\tx", "bad fingerprint"), ("position\t1\t2\t00000000000000ff\t-5\t0\tx", "offset out of range"),
            ("source\t9\t00000000000000ff", "source names no listed file"), ("written\t0123456789abcdef\t5", "a finding id twice"),
            ("findings\t1\t2\t3", "a second findings line"), ("tailed\t1", "unknown record"),
        ] {
            let body = Array((lines + [bad]).joined(separator: "\n").utf8) + [.newline]
            #expect(throws: Checkpoint.Damaged.self) { try Checkpoint.decode(Checkpoint.sealing(body)) }
            do {
                _ = try Checkpoint.decode(Checkpoint.sealing(body))
            } catch {
                #expect(error.description.contains("line \(lines.count + 1)") && error.description.contains(reason), "\(error)")
            }
        }
    }

    @Test("a nightly run refuses a follow checkpoint, and a follower a nightly one (exit 2)")
    func kindsRefuseEachOther() throws {
        let dir = temporaryDirectory()
        let log = writeLog([combined(1, authorize(state: "s1"), 302, location: "\(opa)?code=c1&state=s1")], named: "a.log", in: dir)
        let follow = dir + "/follow.checkpoint"
        try Data(Self.followCheckpoint().encoded()).write(to: URL(fileURLWithPath: follow))
        let nightlyRun = try runCLI([log, "--checkpoint", follow, "--quiet"])
        #expect(nightlyRun.status == 2)
        #expect(nightlyRun.stderr.contains("is a follower's checkpoint"))
        // A nightly checkpoint, written by a nightly run, is refused by follow
        // before anything is read.
        let nightly = dir + "/nightly.checkpoint"
        #expect(try runCLI([log, "--checkpoint", nightly, "--quiet"]).status == 0)
        let followRun = try runCLI(["follow", "--checkpoint", nightly, log])
        #expect(followRun.status == 2)
        #expect(followRun.stderr.contains("is a nightly run's checkpoint"))
    }

    @Test("a followed file hands on whole lines only, counts them, and knows a truncation in place")
    func followedFile() throws {
        let dir = temporaryDirectory()
        let path = dir + "/access.log"
        let first = combined(1, authorize(state: "s1"), 302, location: "\(opa)?code=c1&state=s1")
        let second = combined(2, authorize(state: "s2"), 400)
        try Data((first + "\n" + second + "\n" + "203.0.113.9 - - [22/Nov").utf8).write(to: URL(fileURLWithPath: path))
        let configuration = AuditConfiguration()
        let key = Fingerprint.keyed(Fingerprint.newKey())
        let fs = LocalFileSystem()
        let fd = try fs.open(path).get()
        let file = FollowedFile(
            handle: fd, in: fs, info: try #require(fs.info(fd)), name: path, rank: 0, offset: 0, lines: 0,
            scanner: try LineScanner(fileIndex: 0, configuration: configuration),
            maxLine: configuration.maxLine, key: key, now: 0)
        #expect(file.read(budget: 1 << 20, key: key, now: 1) > 0)
        var scan = file.take()
        #expect(scan.accounting.lines == 2)
        #expect(scan.events.count == 2)
        #expect(file.offset == Int64(first.utf8.count + second.utf8.count + 2))
        #expect(file.lines == 2)
        #expect(file.unread == 0)
        // The partial line, once its newline comes, is line 3.
        let handle = FileHandle(forWritingAtPath: path)!
        handle.seekToEndOfFile()
        handle.write(Data(":10:00:03 +0000] \"GET /healthz HTTP/1.1\" 200 0 \"-\" \"probe\" \"-\"\n".utf8))
        try handle.close()
        _ = file.read(budget: 1 << 20, key: key, now: 2)
        scan = file.take()
        #expect(scan.accounting.lines == 1)
        #expect(file.lines == 3)
        #expect(file.position.fingerprint == FollowedFile.firstLineFingerprint(fd, in: fs, key: key))
        #expect(!file.wasTruncated(key: key))
        // copytruncate: emptied in place, then a new first line past the
        // old offset's reach is still found by its first line.
        let truncate = open(path, O_WRONLY | O_TRUNC)
        close(truncate)
        #expect(file.wasTruncated(key: key))
        try Data((second + "\n" + first + "\n" + first + "\n" + first + "\n").utf8).write(to: URL(fileURLWithPath: path))
        #expect(file.wasTruncated(key: key))
    }

    @Test("a finding's id depends on its kind, state and record, not on the name the record was read under")
    func findingIDs() throws {
        let metrics = FollowMetrics()
        let key = Fingerprint.keyed(Array(repeating: 1, count: 32))
        // Ranks 0 and 1: one file read under two names (a copytruncate copy).
        let names = ["access.log", "access.log.1", "other.log"]
        let fingerprints: [UInt64] = [42, 42, 43]
        let dir = temporaryDirectory()
        let out = open(dir + "/findings.ndjson", O_RDWR | O_CREAT | O_APPEND, 0o600)
        let f = Finding(
            kind: .codeToUnlistedRedirect, time: 1_795_000_000_000, state: "s1", clientID: "G123", redirectURI: "https://evil.example/cb",
            detail: "code sent", source: SourceRef(file: 0, line: 12))
        var again = f
        again.source = SourceRef(file: 1, line: 12)
        var elsewhere = f
        elsewhere.source = SourceRef(file: 2, line: 12)
        var later = f
        later.source = SourceRef(file: 0, line: 13)
        let stream = FindingStream(format: .ndjson, path: dir + "/findings.ndjson", descriptor: out, key: key, written: [:], metrics: metrics) {
            (names[Int($0)], fingerprints[Int($0)])
        }
        #expect(stream.id(of: f) == stream.id(of: again))
        #expect(stream.id(of: f) != stream.id(of: elsewhere))
        #expect(stream.id(of: f) != stream.id(of: later))
        // Written once; an id already written before a restart is not
        // written again.
        let restarted = FindingStream(
            format: .ndjson, path: dir + "/findings.ndjson", descriptor: out, key: key, written: [stream.id(of: f): f.time], metrics: metrics
        ) { (names[Int($0)], fingerprints[Int($0)]) }
        stream.finding(f)
        stream.endStep()
        restarted.finding(again)
        restarted.finding(later)
        restarted.endStep()
        let lines = try String(contentsOfFile: dir + "/findings.ndjson", encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2)
        let objects = try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        #expect(objects[0]["source"] as? String == "access.log:12")
        #expect(objects[1]["source"] as? String == "access.log:13")
        #expect(objects[0]["id"] as? String == Checkpoint.hex(stream.id(of: f)))
        #expect(restarted.written.isEmpty)
        close(out)
    }
}
