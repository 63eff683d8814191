import Foundation
import Testing
import Writing

@testable import Audit
@testable import Reading
@testable import Rules
@testable import Run

/// The follower over a model file system (`ModelFileSystem`) and a clock
/// the test moves: seeded random sequences of writes, rotations (create,
/// with the server reopening late; copytruncate), restarts, kills and
/// time away, replayed against what was written, as Vector's file-source
/// model tests do. Every finding is written once; none is missing unless
/// the follower said a gap.
@Suite("flipaudit follow: a model file system")
struct FollowModelTests {
    static let folder = "/model"
    static let log = folder + "/access.log"

    /// One follower's life after another over one model, one chain.
    final class World {
        let model: ModelFileSystem
        var run: FollowRun
        let findings: String
        var follower: Follower?
        var metrics = FollowMetrics()
        var commits = 0
        var snapshots = 0
        /// When the last commit was made, on the model's clock.
        var committedAt: Int64 = 0
        var gaps = 0
        var messages: [String] = []
        private let signals: [Int32]

        init(inputs: [String] = [FollowModelTests.log], now: Int64 = 1_795_000_000_000) {
            model = ModelFileSystem(now: now)
            let dir = temporaryDirectory()
            findings = dir + "/findings.ndjson"
            run = FollowRun(
                inputs: inputs, configuration: AuditConfiguration(), checkpoint: dir + "/follow.ckpt", findings: findings, ocsf: false, fromStart: true,
                listen: nil, commitInterval: 2)
            // Compacted as soon as the journal is as large as its snapshot.
            run.compactAt = 0
            var fds: [Int32] = [0, 0]
            _ = pipe(&fds)
            signals = fds
        }

        deinit { for fd in signals { close(fd) } }

        var running: Bool { follower != nil }

        func start() throws {
            metrics = FollowMetrics()
            commits = 0
            snapshots = 0
            let follower = try run.follower(signals: signals[0], metrics: metrics, fs: model, committedAt: committedAt) { [unowned self] in
                messages.append($0)
            }
            self.follower = follower
            let status = follower.start()
            #expect(status == nil)
            noteCommit()
        }

        /// A turn; the exit status when the follower stopped (nil: it goes on).
        func turn(_ signals: [Int32] = []) -> Int32? {
            guard let follower else { return nil }
            let status = follower.turn(signals: signals)
            // A commit is written on a thread of its own: waited for here,
            // so that a kill comes after it or before the next.
            if status == nil { follower.settle() }
            noteCommit()
            return status?.rawValue
        }

        /// SIGTERM: a last commit, then gone.
        func stop() {
            #expect(turn([SIGTERM]) == 0)
            end()
        }

        /// SIGKILL: gone without a word.
        func end() {
            gaps += metrics.gaps
            follower = nil
        }

        /// Commits appended to the journal, and those whose snapshot and
        /// journal read back did not hold the whole checkpoint.
        var appended = 0
        /// Whether each commit is read back and compared (dear in a debug build).
        var readsBack = false
        var unequal: [String] = []

        private func noteCommit() {
            guard metrics.commits > commits else { return }
            appended += (metrics.commits - commits) - (metrics.snapshots - snapshots)
            commits = metrics.commits
            snapshots = metrics.snapshots
            committedAt = model.now
            // What a restart takes in (the snapshot, then the journal) is
            // the whole checkpoint the commit stood for.
            guard readsBack, let follower, let path = run.checkpoint else { return }
            let whole = follower.checkpointNow().renumbered().encoded()
            if Array(committedCheckpoint(path).utf8) != whole { unequal.append("commit \(commits) at \(model.now)") }
        }

        /// The states of the `state-reuse` findings written, in order.
        var reused: [String] {
            fileText(findings).split(separator: "\n").compactMap { line in
                guard line.contains("\"kind\":\"state-reuse\""), let r = line.range(of: "\"state\":\"") else { return nil }
                return String(line[r.upperBound...].prefix { $0 != "\"" })
            }
        }
    }

    /// A server writing `access.log`: two authorize requests of one state
    /// (one `state-reuse` each), to the file it has open.
    struct Server {
        var file: ModelFileSystem.Node
        var written: [String] = []

        mutating func write(_ states: Int, in model: ModelFileSystem) {
            let time = logTime(Date(timeIntervalSince1970: Double(model.now) / 1000))
            for _ in 0..<states {
                let state = "m\(written.count)"
                written.append(state)
                for n in 1...2 {
                    model.append(
                        "203.0.113.9 - - [\(time)] \"GET \(authorize(state: state)) HTTP/1.1\" 302 0 \"-\" \"GoogleApp/1.0\" \"\(opa)?code=\(state)c\(n)&state=\(state)\"\n",
                        to: file)
                }
            }
        }
    }

    /// logrotate's shift: `.3` deleted, `.2` → `.3`, `.1` → `.2`.
    static func shift(_ model: ModelFileSystem) {
        model.delete(log + ".3")
        model.rename(log + ".2", to: log + ".3")
        model.rename(log + ".1", to: log + ".2")
    }

    /// One seeded sequence; what went wrong, in words, with the sequence's
    /// last steps and what the follower said (empty: nothing).
    static func replay(seed: UInt64, steps: Int, copytruncate: Bool, appended: inout Int) throws -> [String] {
        var random = SplitMix(seed: seed)
        var trace: [String] = []
        func note(_ step: String) { trace.append(step) }
        func roll(_ n: UInt64) -> UInt64 { random.next() % n }
        let world = World()
        world.readsBack = seed % 10 == 0
        let model = world.model
        var server = Server(file: model.create(log))
        try world.start()
        for _ in 0..<steps {
            switch roll(100) {
            case 0..<40:
                server.write(Int(roll(3)) + 1, in: model)
                note("write -> m\(server.written.count - 1) into inode \(server.file.inode)")
            case 40..<65:
                model.now += Int64(roll(1500)) + 1
                if world.running { #expect(world.turn() == nil) }
                note(
                    "turn at \(model.now) running \(world.running) files \(world.follower.map { $0.tails.files.map { "\($0.name)#\($0.identity.inode)@\($0.offset)" } } ?? [])"
                )
            case 65..<73:
                shift(model)
                if copytruncate {
                    model.copyTruncate(log, copy: log + ".1")
                } else {
                    // create: the server writes on to the renamed file
                    // until it reopens its log.
                    model.rename(log, to: log + ".1")
                    model.create(log)
                }
                note("rotate: \(model.names.map { "\($0.key)#\($0.value.inode)" }.sorted())")
            case 73..<81:
                // The server reopens its log (USR1, a graceful restart).
                server.file = model.names[log] ?? model.create(log)
                note("reopen -> \(server.file.inode)")
            case 81..<87:
                note(world.running ? "stop" : "start")
                if world.running { world.stop() } else { try world.start() }
            case 87..<93:
                note(world.running ? "kill" : "start")
                if world.running { world.end() } else { try world.start() }
            default:
                if !world.running { try world.start() }
            }
        }
        // The end: the server on its log, the follower running long enough
        // for every held record and rotated file, then stopped.
        server.file = model.names[log] ?? model.create(log)
        server.write(1, in: model)
        if !world.running { try world.start() }
        for _ in 0..<8 {
            model.now += 50_000
            #expect(world.turn() == nil)
        }
        world.stop()
        var wrong: [String] = []
        let found = world.reused
        if Set(found).count != found.count {
            wrong.append("written twice: \(Dictionary(grouping: found, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted())")
        }
        let missing = Set(server.written).subtracting(found)
        if !missing.isEmpty && world.gaps == 0 {
            wrong.append("missing with no gap said: \(missing.sorted { $0.count < $1.count || ($0.count == $1.count && $0 < $1) })")
        }
        if !Set(found).isSubset(of: server.written) { wrong.append("not written: \(Set(found).subtracting(server.written).sorted())") }
        if !world.unequal.isEmpty { wrong.append("journal read back unlike the whole checkpoint: \(world.unequal.prefix(3))") }
        appended += world.appended
        if model.openHandles != 0 { wrong.append("\(model.openHandles) handles left open") }
        if !wrong.isEmpty { wrong.append("last steps:\n" + (trace.suffix(40) + world.messages).joined(separator: "\n")) }
        return wrong
    }

    @Test("sessions journaled by change: one asked again while open, one answered, one opened; read back as the whole checkpoint")
    func sessionsChangedWhileOpen() throws {
        let world = World()
        world.readsBack = true
        let model = world.model
        let file = model.create(Self.log)
        func request(_ state: String) -> String {
            let time = logTime(Date(timeIntervalSince1970: Double(model.now) / 1000))
            return "203.0.113.9 - - [\(time)] \"GET \(authorize(state: state)) HTTP/1.1\" 200 0 \"-\" \"GoogleApp/1.0\" \"-\"\n"
        }
        func answer(_ state: String) -> String {
            let time = logTime(Date(timeIntervalSince1970: Double(model.now) / 1000))
            return "203.0.113.9 - - [\(time)] \"POST /consent HTTP/1.1\" 302 0 \"-\" \"GoogleApp/1.0\" \"\(opa)?code=\(state)c&state=\(state)\"\n"
        }
        try world.start()
        model.append(request("a") + request("b") + request("c"), to: file)
        for _ in 0..<8 {
            model.now += 1000
            #expect(world.turn() == nil)
        }
        let before = world.appended
        #expect(committedCheckpoint(world.run.checkpoint!).components(separatedBy: "\nsession\t").count - 1 == 3, "a, b and c committed")
        // Sessions committed open change: `a` asked again (its request
        // count and last time), `b` answered, `d` opens.
        model.append(request("a") + answer("b") + request("d"), to: file)
        for _ in 0..<8 {
            model.now += 1000
            #expect(world.turn() == nil)
        }
        #expect(world.appended > before, "the changes went to the journal")
        let sessions = committedCheckpoint(world.run.checkpoint!).split(separator: "\n").filter { $0.hasPrefix("session\t") }
        #expect(sessions.count == 4)
        #expect(sessions.first { $0.hasPrefix("session\ta\t") }?.split(separator: "\t")[12] == "2", "a's second request")
        // Timed out, each closes: its serial goes to the journal.
        for _ in 0..<15 {
            model.now += 60_000
            #expect(world.turn() == nil)
        }
        #expect(!committedCheckpoint(world.run.checkpoint!).contains("\nsession\t"), "every session closed")
        // Every commit read back as the whole checkpoint it stood for.
        #expect(world.unequal.isEmpty, "\(world.unequal)")
    }

    @Test("a journal compacted on the commit thread: the new snapshot holds what the follower does, less what the reuse window let go")
    func compaction() throws {
        let world = World()
        // The reuse window no shorter than the reorder window, which keeps
        // the records audited near the clock.
        world.run.configuration.reuseWindowSeconds = 300
        let model = world.model
        var server = Server(file: model.create(Self.log))
        try world.start()
        var compactions = 0
        var unequal: [Int] = []
        var remembered = (kept: 0, written: 0)
        for round in 0..<60 {
            server.write(2, in: model)
            let snapshots = world.metrics.snapshots
            model.now += 10_000
            #expect(world.turn() == nil)
            guard world.metrics.snapshots > snapshots, let follower = world.follower else { continue }
            // Right after a compaction the journal holds no commit: the
            // snapshot alone is what a restart takes in.
            compactions += 1
            let whole = follower.checkpointNow().renumbered()
            if committedCheckpoint(world.run.checkpoint!) != String(decoding: whole.encoded(), as: UTF8.self) { unequal.append(round) }
            remembered = (whole.endedStates.count, server.written.count)
        }
        #expect(compactions >= 5 && unequal.isEmpty, "\(compactions) compactions, unequal after rounds \(unequal)")
        // Compactions come further apart as the snapshot grows; by the
        // last, the 300 s window has let the first states go.
        #expect(remembered.kept > 0 && remembered.kept < remembered.written, "\(remembered.kept) of \(remembered.written) states kept")
        // The chain goes on from the compacted snapshot: a restart reads it
        // and its journal, and says nothing of either.
        world.stop()
        try world.start()
        server.write(2, in: model)
        model.now += 5_000
        #expect(world.turn() == nil)
        #expect(!world.messages.contains { $0.contains("journal") }, "\(world.messages)")
        world.stop()
    }

    @Test("a journal replaced by another snapshot's: its compaction will not read it, says so in words, and the next commit is whole")
    func compactionFindsAnotherJournal() throws {
        // Another writer's journal under the name; this follower appends
        // to the file it opened, which no name leads to now.
        try Self.compactionRefused(reason: "was changed by another writer") { path in
            try AtomicFile.write(bytes: CheckpointJournal.header(for: Array("another snapshot".utf8)), to: CheckpointJournal.path(of: path))
        }
    }

    @Test("a journal deleted by hand: its compaction cannot read it back, says so, and the next commit writes the whole checkpoint")
    func compactionFails() throws {
        // Appended from now on to a file no name leads to.
        try Self.compactionRefused(reason: "cannot be read again") { path in
            try FileManager.default.removeItem(atPath: CheckpointJournal.path(of: path))
        }
    }

    /// A follower whose journal `spoil` takes from under it after its
    /// first commit: a compaction says, in these words, that it did not
    /// compact because the journal `reason`; the commit after it writes
    /// the whole checkpoint, and every record is audited.
    static func compactionRefused(reason: String, spoil: (String) throws -> Void) throws {
        let world = World()
        let model = world.model
        var server = Server(file: model.create(Self.log))
        try world.start()
        let path = try #require(world.run.checkpoint)
        server.write(2, in: model)
        model.now += 2500
        #expect(world.turn() == nil)
        try spoil(path)
        let said = "--checkpoint \(path): not compacted (\(path).journal \(reason)); the next commit writes the whole checkpoint"
        for _ in 0..<40 where !world.messages.contains(said) {
            server.write(1, in: model)
            model.now += 2500
            #expect(world.turn() == nil)
        }
        #expect(world.messages.contains(said), "\(world.messages)")
        let snapshots = world.metrics.snapshots
        server.write(1, in: model)
        model.now += 2500
        #expect(world.turn() == nil)
        #expect(world.metrics.snapshots == snapshots + 1, "the commit after it is whole")
        let whole = try #require(world.follower).checkpointNow().renumbered()
        #expect(committedCheckpoint(path) == String(decoding: whole.encoded(), as: UTF8.self))
        world.stop()
        #expect(world.reused.sorted() == server.written.sorted())
    }

    @Test("a record dated 50 min ahead of the wall clock: sessions open before it do not time out at once, those after it not 50 min late")
    func recordAhead() throws {
        let world = World()
        let model = world.model
        let file = model.create(Self.log)
        func request(_ state: String, at time: Int64) -> String {
            let stamp = logTime(Date(timeIntervalSince1970: Double(time) / 1000))
            return "203.0.113.9 - - [\(stamp)] \"GET \(authorize(state: state)) HTTP/1.1\" 200 0 \"-\" \"GoogleApp/1.0\" \"-\"\n"
        }
        var noReturns: [String] {
            fileText(world.findings).split(separator: "\n").compactMap { line in
                guard line.contains("\"kind\":\"no-return\""), let r = line.range(of: "\"state\":\"") else { return nil }
                return String(line[r.upperBound...].prefix { $0 != "\"" })
            }.sorted()
        }
        try world.start()
        let start = model.now
        model.append(request("a", at: start), to: file)
        model.now += 1000
        #expect(world.turn() == nil)
        // A server whose clock runs 50 minutes ahead, under the limit of an hour.
        model.append(request("ahead", at: start + 50 * 60_000), to: file)
        model.now += 1000
        #expect(world.turn() == nil)
        model.append(request("c", at: model.now), to: file)
        // Five minutes on, within the 10 min timeout: none closed.
        for _ in 0..<30 {
            model.now += 10_000
            #expect(world.turn() == nil)
        }
        #expect(noReturns.isEmpty, "\(noReturns)")
        // The timeout and the reorder window past: a and c closed, and the
        // session ahead by the wall clock too (10 min with no return).
        for _ in 0..<72 {
            model.now += 10_000
            #expect(world.turn() == nil)
        }
        #expect(noReturns == ["a", "ahead", "c"], "\(noReturns)")
        world.stop()
    }

    /// A follower started on a new log, `states` sessions written and
    /// turns taken until they are committed: the server, and the bytes
    /// the follower's checkpoint holds as read.
    static func committed(_ states: Int, in world: World) throws -> (Server, Int) {
        var server = Server(file: world.model.create(log))
        try world.start()
        server.write(states, in: world.model)
        for _ in 0..<3 {
            world.model.now += 1000
            #expect(world.turn() == nil)
        }
        return (server, server.file.bytes.count)
    }

    /// `bytes` as gzip(1) writes them (logrotate's `compress`).
    static func gzipped(_ bytes: [UInt8]) throws -> [UInt8] {
        let path = temporaryDirectory() + "/plain"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/bin/gzip")
        gzip.arguments = ["-n", path]
        try gzip.run()
        gzip.waitUntilExit()
        return Array(try Data(contentsOf: URL(fileURLWithPath: path + ".gz")))
    }

    @Test(
        "two rotations while stopped, delaycompress: the file read turns up gzip'd, read to its end or its unread bytes said; the middle one read",
        arguments: [false, true])
    func compressedWhileStopped(unreadTail: Bool) throws {
        let world = World()
        let model = world.model
        var (server, committed) = try Self.committed(2, in: world)
        if unreadTail {
            // Written after the last commit, then SIGKILL: not read.
            server.write(1, in: model)
            world.end()
        } else {
            world.stop()
        }
        // Rotated, the server reopening; then rotated again, logrotate's
        // delaycompress gzip'ing the file the follower was reading.
        let first = server.file
        model.rename(Self.log, to: Self.log + ".1")
        server.file = model.create(Self.log)
        server.write(2, in: model)
        model.delete(Self.log + ".1")
        model.create(Self.log + ".2.gz").bytes = try Self.gzipped(first.bytes)
        model.rename(Self.log, to: Self.log + ".1")
        server.file = model.create(Self.log)
        server.write(1, in: model)
        try world.start()
        for _ in 0..<4 {
            model.now += 1000
            #expect(world.turn() == nil)
        }
        let shown = "\(Self.log): the file read up to byte \(committed) was compressed since, as \(Self.log).2.gz"
        let said =
            unreadTail
            ? "\(shown), \(first.bytes.count - committed) bytes not read; possible gap (a batch run over \(Self.log).2.gz reads them)"
            : "\(shown), read to its end already"
        #expect(world.messages.contains(said), "\(world.messages)")
        #expect(world.messages.contains("\(Self.log).1 was rotated in and out while the follower was stopped: read from its start"), "\(world.messages)")
        #expect(world.metrics.gaps == (unreadTail ? 1 : 0))
        world.stop()
        // Every state's finding once; the one written after the kill only in the gzip'd file.
        let expected = server.written.filter { !unreadTail || $0 != "m2" }
        #expect(world.reused.sorted() == expected.sorted(), "\(world.reused)")
    }

    @Test("a gzip'd copy shorter than what was read (its first line only): read to its end already, no gap, no wrapped byte count")
    func shorterCompressedCopy() throws {
        let world = World()
        let model = world.model
        var (server, committed) = try Self.committed(2, in: world)
        world.stop()
        let firstLine = Array(server.file.bytes.prefix { $0 != 0x0A }) + [0x0A]
        model.delete(Self.log)
        model.create(Self.log + ".1.gz").bytes = try Self.gzipped(firstLine)
        server.file = model.create(Self.log)
        try world.start()
        model.now += 1000
        #expect(world.turn() == nil)
        let said = "\(Self.log): the file read up to byte \(committed) was compressed since, as \(Self.log).1.gz, read to its end already"
        #expect(world.messages.contains(said), "\(world.messages)")
        #expect(world.metrics.gaps == 0)
        world.stop()
    }

    @Test("the file read deleted while stopped, no copy of it left: said as gone with a possible gap, in words, and counted")
    func deletedWhileStopped() throws {
        let world = World()
        let model = world.model
        var (server, committed) = try Self.committed(1, in: world)
        world.stop()
        model.delete(Self.log)
        server.file = model.create(Self.log)
        server.write(1, in: model)
        try world.start()
        model.now += 1000
        #expect(world.turn() == nil)
        let said = "\(Self.log): the file read up to byte \(committed) is gone (deleted, or compressed other than by gzip); possible gap"
        #expect(world.messages.contains(said), "\(world.messages)")
        #expect(world.metrics.gaps == 1)
        world.stop()
    }

    @Test("rotated twice between two looks: the file in the middle is read from its start, said; one let go and written to again is read on")
    func rotatedBetweenLooks() throws {
        let world = World()
        let model = world.model
        var server = Server(file: model.create(Self.log))
        try world.start()
        server.write(1, in: model)
        model.now += 1000
        #expect(world.turn() == nil)
        // Two `create` rotations before the next look, the server reopening
        // after each: the middle file took the name and left it unseen.
        Self.shift(model)
        model.rename(Self.log, to: Self.log + ".1")
        server.file = model.create(Self.log)
        server.write(1, in: model)
        Self.shift(model)
        model.rename(Self.log, to: Self.log + ".1")
        server.file = model.create(Self.log)
        server.write(1, in: model)
        model.now += 1000
        #expect(world.turn() == nil)
        #expect(world.messages.contains("/model/access.log.1 was rotated in and out between two looks: read from its start"), "\(world.messages)")
        // Every file read and let go but the one under the name.
        for _ in 0..<4 {
            model.now += 1000
            #expect(world.turn() == nil)
        }
        #expect(world.follower?.tails.files.map(\.name) == [Self.log])
        // A late write to the file let go (now access.log.1), then a
        // rotation: it is read on from where it was let go, not again.
        let late = model.names[Self.log + ".1"]!
        let size = late.bytes.count
        server.file = late
        server.write(1, in: model)
        Self.shift(model)
        model.rename(Self.log, to: Self.log + ".1")
        server.file = model.create(Self.log)
        model.now += 1000
        #expect(world.turn() == nil)
        #expect(world.messages.contains("/model/access.log.2 was written to after it was let go: read on from byte \(size)"), "\(world.messages)")
        for _ in 0..<4 {
            model.now += 1000
            #expect(world.turn() == nil)
        }
        world.stop()
        #expect(world.reused.sorted() == server.written.sorted(), "\(world.reused)")
        #expect(Set(world.reused).count == world.reused.count)
    }

    @Test("a file let go, deleted, its inode given to a new file rotated in: the new file is read from its start, not from the old one's end")
    func inodeReused() throws {
        let world = World()
        let model = world.model
        var server = Server(file: model.create(Self.log))
        try world.start()
        server.write(3, in: model)
        model.now += 1000
        #expect(world.turn() == nil)
        // Rotated, reopened, and the old file let go.
        let old = server.file
        model.rename(Self.log, to: Self.log + ".1")
        server.file = model.create(Self.log)
        server.write(1, in: model)
        for _ in 0..<4 {
            model.now += 1000
            #expect(world.turn() == nil)
        }
        #expect(world.follower?.tails.files.map(\.name) == [Self.log])
        // Deleted; a new file on its inode comes and goes by the name
        // between two looks, longer than the old one was.
        model.delete(Self.log + ".1")
        model.rename(Self.log, to: Self.log + ".1")
        server.file = model.create(Self.log, inode: old.inode)
        server.write(6, in: model)
        model.rename(Self.log, to: Self.log + ".2")
        server.file = model.create(Self.log)
        model.now += 1000
        #expect(world.turn() == nil)
        #expect(world.messages.contains("/model/access.log.2 was rotated in and out between two looks: read from its start"), "\(world.messages)")
        for _ in 0..<4 {
            model.now += 1000
            #expect(world.turn() == nil)
        }
        world.stop()
        #expect(world.reused.sorted() == server.written.sorted(), "\(world.reused)")
    }

    @Test("a compaction cut short (a new snapshot, the old journal): the journal is left out, said, and nothing is lost")
    func staleJournal() throws {
        let world = World()
        let model = world.model
        var server = Server(file: model.create(Self.log))
        // The journal not compacted: its last commits are in it.
        world.run.compactAt = 1 << 20
        try world.start()
        server.write(2, in: model)
        for _ in 0..<3 {
            model.now += 2500
            #expect(world.turn() == nil)
        }
        world.stop()
        // The snapshot written anew from what snapshot and journal hold,
        // the journal of the one before left beside it.
        let path = try #require(world.run.checkpoint)
        let whole = committedCheckpoint(path)
        #expect(whole != fileText(path), "the last commits are in the journal")
        try whole.write(toFile: path, atomically: true, encoding: .utf8)
        server.write(1, in: model)
        try world.start()
        #expect(
            world.messages.contains(
                "--checkpoint \(path): \(path).journal follows an earlier snapshot (a compaction cut short): left out, the snapshot holds it"),
            "\(world.messages)")
        model.now += 2500
        #expect(world.turn() == nil)
        world.stop()
        #expect(world.reused == ["m0", "m1", "m2"], "\(world.reused)")
    }

    @Test("a rotated file whose name stays empty is kept 300 s after its last write, then let go, said")
    func rotationHold() throws {
        let world = World()
        let model = world.model
        var server = Server(file: model.create(Self.log))
        try world.start()
        // logrotate `create`; the server never reopens its log.
        model.rename(Self.log, to: Self.log + ".1")
        model.create(Self.log)
        model.now += 1000
        #expect(world.turn() == nil)
        server.write(1, in: model)
        model.now += 1000
        #expect(world.turn() == nil)
        model.now += TailSet.rotationHold - 1
        #expect(world.turn() == nil)
        #expect(world.follower?.tails.files.map(\.name) == [Self.log + ".1", Self.log])
        #expect(!world.messages.contains { $0.contains("let go") })
        model.now += 1
        #expect(world.turn() == nil)
        #expect(world.follower?.tails.files.map(\.name) == [Self.log])
        #expect(
            world.messages.contains(
                "/model/access.log.1 let go 300 s after its last write, though nothing was written to /model/access.log since it left that name: a later write to it is not read"
            ), "\(world.messages)")
        world.stop()
        #expect(world.reused == ["m0"])
    }

    @Test("a coverage that is not complete is said at start, then again every hour while it lasts")
    func coverageEveryHour() throws {
        let world = World(inputs: [Self.log, Self.folder + "/missing.log"])
        let model = world.model
        model.create(Self.log)
        try world.start()
        #expect(world.turn() == nil)
        let said = world.messages.filter { $0.contains("coverage") }
        #expect(said.count == 1, "\(world.messages)")
        model.now += 3_600_000 - 1
        #expect(world.turn() == nil)
        #expect(world.messages.filter { $0.contains("coverage") } == said)
        model.now += 1
        #expect(world.turn() == nil)
        #expect(world.messages.filter { $0.contains("coverage") } == said + said)
        // Seen at last: complete again, said once.
        model.create(Self.folder + "/missing.log")
        model.now += 1000
        #expect(world.turn() == nil)
        #expect(world.messages.last?.hasSuffix("again") == true, "\(world.messages)")
        world.stop()
    }

    @Test("two followed files an hour apart (HAProxy's local time read as UTC): said once, with the --tz that reads them")
    func clockOffset() throws {
        let front = Self.folder + "/haproxy.log"
        let back = Self.folder + "/backend.log"
        let world = World(inputs: [front, back], now: 1_795_348_800_000)
        let model = world.model
        model.append(ClockOffsetTests.haproxy(hour: 11).map { $0 + "\n" }.joined(), to: model.create(front))
        model.append(TierTests.logs().backend.map { $0 + "\n" }.joined(), to: model.create(back))
        try world.start()
        for _ in 0..<3 {
            model.now += 1000
            #expect(world.turn() == nil)
        }
        let said = world.messages.filter { $0.contains("read in different zones") }
        #expect(said.count == 1, "\(world.messages)")
        #expect(said.first?.hasSuffix("/model/haproxy.log's times carry no zone: read them with --tz +01:00") == true, "\(said)")
        world.stop()
    }

    @Test("create rotations, late reopens, restarts and kills: every finding once, none lost", arguments: 0..<4)
    func create(batch: UInt64) throws {
        // Commits appended to a journal in this batch: the journal is used.
        var appended = 0
        for seed in (batch * 50)..<(batch * 50 + 50) {
            let wrong = try Self.replay(seed: seed, steps: 150, copytruncate: false, appended: &appended)
            #expect(wrong.isEmpty, "seed \(seed): \(wrong.joined(separator: "; "))")
        }
        #expect(appended > 50)
    }

    @Test("copytruncate rotations, restarts and kills: every finding once, none lost without a gap said", arguments: 0..<2)
    func copytruncate(batch: UInt64) throws {
        for seed in (1000 + batch * 50)..<(1000 + batch * 50 + 50) {
            var appended = 0
            let wrong = try Self.replay(seed: seed, steps: 150, copytruncate: true, appended: &appended)
            #expect(wrong.isEmpty, "seed \(seed): \(wrong.joined(separator: "; "))")
        }
    }
}
