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

    /// A session as a follower commits it, its sources in file `file`.
    static func session(_ serial: Int, firstSeen: Int64, file: Int32, requests: Int = 1) -> CarriedSession {
        CarriedSession(
            state: "s\(serial)", serial: serial, firstSeen: firstSeen, lastSeen: firstSeen, firstSource: SourceRef(file: file, line: Int64(serial)),
            lastLineInFirstFile: Int64(serial), clientID: "G123", redirectURI: nil, clientMismatch: false, clientIP: "203.0.113.9", requestCount: requests,
            returnCount: 0, firstReturn: nil, failure: nil, findings: [], codeKeys: [], expiresAt: firstSeen + 600_000, observable: true)
    }

    @Test("sessions journaled by change: a commit's sessions replace or add theirs by serial, closed serials go, files numbered afresh")
    func journalSessions() throws {
        // Files by rank, as a follower numbers them: rank 0 is let go.
        var snapshot = Self.followCheckpoint()
        snapshot.files = ["old.log", "access.log"]
        snapshot.serial = 5
        snapshot.sessions = [Self.session(1, firstSeen: 10, file: 0), Self.session(2, firstSeen: 20, file: 1), Self.session(3, firstSeen: 30, file: 1)]
        let snapshotBytes = snapshot.encoded()
        var first = snapshot
        first.files = ["old.log", "access.log", "access.log.1"]
        first.serial = 7
        // Session 2 asked again, session 5 opened in the new file; 1 closed.
        first.sessions = [Self.session(2, firstSeen: 20, file: 1, requests: 2), Self.session(5, firstSeen: 5, file: 2)]
        first.closed = [1]
        let block = CheckpointJournal.commit(first, states: [], codes: [])
        let read = try CheckpointJournal.apply(CheckpointJournal.header(for: snapshotBytes) + block, to: snapshot, snapshotBytes: snapshotBytes)
        // Its files as the commit numbered them (a compaction's next commit
        // extends them); the loader numbers them afresh.
        #expect(read.checkpoint.files == first.files)
        let c = read.checkpoint.renumbered()
        #expect(read.commits == 1 && c.closed.isEmpty && c.serial == 7)
        // By first seen: 5 (access.log.1, now file 0), 2 and 3 (access.log, file 1).
        #expect(c.sessions.map(\.serial) == [5, 2, 3] && c.sessions.map(\.requestCount) == [1, 2, 1])
        #expect(c.files == ["access.log.1", "access.log"] && c.sessions.map(\.firstSource.file) == [0, 1, 1])
        #expect(c.follow?.sources == [1: 0xfeed])
        // A closed serial not below the next serial: refused, said so.
        var beyond = first
        beyond.closed = [9]
        #expect {
            try Checkpoint.decode(beyond.encoded())
        } throws: { ($0 as? Checkpoint.Damaged)?.description == "a closed serial is not below the next serial" }
        // A commit whose files do not extend the ones before: refused.
        var renumbered = first
        renumbered.files = ["access.log", "old.log"]
        renumbered.sessions = []
        #expect {
            try CheckpointJournal.apply(
                CheckpointJournal.header(for: snapshotBytes) + CheckpointJournal.commit(renumbered, states: [], codes: []), to: snapshot,
                snapshotBytes: snapshotBytes)
        } throws: { ($0 as? Checkpoint.Damaged)?.description.contains("do not extend") == true }
    }

    @Test("a journal read back: commits in order, states and codes added up, a cut last commit left out, damage named, another snapshot's left out")
    func journal() throws {
        var snapshot = Self.followCheckpoint()
        snapshot.endedStates = [Checkpoint.Remembered(key: 1, time: 10), Checkpoint.Remembered(key: 2, time: 20)]
        let snapshotBytes = snapshot.encoded()
        var first = snapshot
        first.watermark += 1000
        first.serial = 4
        let firstBlock = CheckpointJournal.commit(first, states: [Checkpoint.Remembered(key: 1, time: 30)], codes: [Checkpoint.Remembered(key: 9, time: 25)])
        var second = first
        second.watermark += 1000
        second.follow?.positions[0].offset = 8192
        let secondBlock = CheckpointJournal.commit(second, states: [Checkpoint.Remembered(key: 3, time: 40)], codes: [])
        let journal = CheckpointJournal.header(for: snapshotBytes) + firstBlock + secondBlock
        let read = try CheckpointJournal.apply(journal, to: snapshot, snapshotBytes: snapshotBytes)
        #expect(read.commits == 2 && read.cutOff == 0 && !read.stale)
        var whole = second
        whole.endedStates = [
            Checkpoint.Remembered(key: 2, time: 20), Checkpoint.Remembered(key: 1, time: 30), Checkpoint.Remembered(key: 3, time: 40),
        ]
        whole.returnedCodes = [Checkpoint.Remembered(key: 9, time: 25)]
        // Its files as the last commit numbered them (a compaction's next
        // commit extends them); numbered afresh by the loader, no session
        // names a file, so none is listed.
        #expect(read.checkpoint == whole && read.checkpoint.files == second.files && !second.files.isEmpty)
        let renumbered = read.checkpoint.renumbered()
        #expect(renumbered == whole.renumbered() && renumbered.files.isEmpty && renumbered.follow?.sources == [:])
        // A journal written before sessions were journaled by change
        // (version 1): each commit held every session, and is read so.
        let v1 = Array("flipaudit follow journal 1".utf8) + CheckpointJournal.header(for: snapshotBytes).drop { $0 != .tab } + firstBlock + secondBlock
        let old = try CheckpointJournal.apply(v1, to: snapshot, snapshotBytes: snapshotBytes)
        #expect(old.commits == 2 && old.checkpoint == whole)
        // A stop in the last commit's write: the one before stands.
        let cut = try CheckpointJournal.apply(Array(journal.dropLast(17)), to: snapshot, snapshotBytes: snapshotBytes)
        #expect(cut.commits == 1 && cut.cutOff == secondBlock.count - 17)
        #expect(cut.checkpoint.watermark == first.watermark && cut.checkpoint.follow?.positions[0].offset == 4096)
        // A changed byte in a commit that is not the last: refused, named.
        var damaged = journal
        damaged[CheckpointJournal.header(for: snapshotBytes).count + 40] ^= 1
        #expect {
            try CheckpointJournal.apply(damaged, to: snapshot, snapshotBytes: snapshotBytes)
        } throws: { ($0 as? Checkpoint.Damaged)?.description.hasPrefix("journal lines 2–") == true }
        // The journal of another snapshot (a compaction cut short): left out.
        let stale = try CheckpointJournal.apply(journal, to: first, snapshotBytes: first.encoded())
        #expect(stale.stale && stale.commits == 0 && stale.checkpoint == first)
        #expect(throws: Checkpoint.Damaged.self) { try CheckpointJournal.apply(Array("not a journal\n".utf8), to: snapshot, snapshotBytes: snapshotBytes) }
    }

    @Test("a follower commits what changed to its journal; a restart takes snapshot and journal in, and says a cut last commit")
    func journalRestart() throws {
        let dir = temporaryDirectory()
        let log = dir + "/access.log"
        let checkpoint = dir + "/follow.ckpt"
        let findings = dir + "/findings.ndjson"
        let arguments = ["--checkpoint", checkpoint, "--findings", findings, "--commit-interval", "1", log]
        let time = logTime(Date())
        func request(_ state: String, _ n: Int) -> String {
            "203.0.113.9 - - [\(time)] \"GET \(authorize(state: state)) HTTP/1.1\" 302 0 \"-\" \"GoogleApp/1.0\" \"\(opa)?code=\(state)c\(n)&state=\(state)\"\n"
        }
        try appendText(request("j1", 1), to: log)
        let first = try FollowerProcess(["--from-start"] + arguments)
        // Committed at least twice after the session ended: the second in
        // the journal, with the ended state the snapshot does not have.
        #expect(waitUntil(60) { committedCheckpoint(checkpoint).contains("\nstate\t") })
        let journal = CheckpointJournal.path(of: checkpoint)
        let size = { (try? FileManager.default.attributesOfItem(atPath: journal)[.size] as? Int) ?? 0 }
        let before = size()
        #expect(waitUntil(60) { size() > before })
        #expect(first.stop() == 0)
        let snapshot = fileText(checkpoint)
        #expect(committedCheckpoint(checkpoint) != snapshot, "the last commits are in the journal")
        // A stop in a commit's write: its last bytes never made it.
        let handle = FileHandle(forWritingAtPath: journal)!
        handle.seekToEndOfFile()
        handle.write(Data("flipaudit follow checkpoint 1\nwatermark\t17".utf8))
        try handle.close()
        // Rotated and compressed while stopped (never read again), then the
        // same state again: a reuse known only from what the journal holds.
        try FileManager.default.moveItem(atPath: log, toPath: log + ".1.gz")
        try appendText(request("j1", 2), to: log)
        let second = try FollowerProcess(arguments)
        #expect(waitUntil(60) { fileText(findings).contains("\"kind\":\"state-reuse\"") }, "\(second.stderr)")
        #expect(second.stop() == 0)
        #expect(
            second.stderr.contains(
                "--checkpoint \(checkpoint): the last commit in \(journal) was cut off (42 bytes, a stop in its write); the one before stands"),
            "\(second.stderr)")
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
