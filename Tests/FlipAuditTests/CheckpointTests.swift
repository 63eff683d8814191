import Foundation
import Testing

@testable import Audit
@testable import Reading
@testable import Reports
@testable import Rules

/// A combined line at a full timestamp (`20/Nov/2026:23:56:00`).
private func at(_ time: String, _ target: String, _ status: Int, _ location: String = "-") -> String {
    "203.0.113.9 - - [\(time) +0000] \"GET \(target) HTTP/1.1\" \(status) 0 \"-\" \"GoogleApp/1.0\" \"\(location)\""
}

/// Three nights (UTC days 20, 21, 22 Nov) with sessions across both cuts,
/// a state and a code reused across nights, and a session open across a
/// whole night that times out (with a 100,000 s timeout).
private let nights: [[String]] = [
    [
        at("20/Nov/2026:22:10:00", authorize(state: "long"), 200),
        at("20/Nov/2026:22:30:00", authorize(state: "R"), 302, "\(opa)?code=k-r&state=R"),
        at("20/Nov/2026:22:40:00", authorize(state: "k1"), 302, "\(opa)?code=K&state=k1"),
        at("20/Nov/2026:23:00:00", authorize(state: "fail1"), 400),
        at("20/Nov/2026:23:56:00", authorize(state: "A"), 200),
    ],
    [
        at("21/Nov/2026:00:02:00", "/consent", 302, "\(opa)?code=k-a&state=A"),
        at("21/Nov/2026:01:00:00", authorize(state: "R"), 302, "\(opa)?code=k-r2&state=R"),
        at("21/Nov/2026:01:10:00", authorize(state: "k2"), 302, "\(opa)?code=K&state=k2"),
        at("21/Nov/2026:12:00:00", "/consent", 302, "\(opa)?code=k-x&state=nobody"),
        at("21/Nov/2026:23:58:00", authorize(state: "B"), 200),
    ],
    [
        at("22/Nov/2026:00:01:00", "/consent", 302, "\(opa)?error=access_denied&state=B"),
        at("22/Nov/2026:09:00:00", authorize(state: "late"), 200),
        at("22/Nov/2026:10:00:00", authorize(state: "k3"), 302, "\(opa)?code=k-a&state=k3"),
    ],
]

/// The rows of a run as the CSV writer wrote them, without headers.
private func rows(_ a: Audit) -> [String] {
    a.csv[0...1].flatMap { $0.split(separator: "\n").dropFirst().map(String.init) }
}

/// One server's three nights as logrotate leaves them: one stream.
private let nightNames = ["access.log.2", "access.log.1", "access.log"]

/// One run over `paths`: every row a run over all of them writes. Its
/// watermark is the stream's end, so nothing waits for another run.
private func oneRun(_ paths: [String], configure: (inout AuditConfiguration) -> Void = { _ in }) throws -> (
    rows: [String], findings: [Finding], sessions: [SessionRecord], waited: Int
) {
    let (whole, checkpoint) = try run(paths, carried: nil, configure: configure)
    return (rows(whole), whole.findings, whole.sessions, checkpoint.waiting.count)
}

private func run(_ paths: [String], carried: Checkpoint?, configure: (inout AuditConfiguration) -> Void = { _ in })
    throws -> (Audit, Checkpoint)
{
    var config = AuditConfiguration()
    config.sessionTimeoutSeconds = 100_000
    config.fingerprint = carried?.fingerprint ?? .keyed(Fingerprint.newKey())
    configure(&config)
    let collector = RowCollector()
    let dir = temporaryDirectory()
    let writer = try CSVWriter(directory: dir)
    let result = try Analyzer(configuration: config).run(paths, rows: [collector, writer], carry: true, carried: carried)
    try writer.commit(statistics: result.statistics)
    let csv = try ["sessions.csv", "findings.csv", "error_distribution.csv"].map { try String(contentsOfFile: dir + "/" + $0, encoding: .utf8) }
    // What the next run reads is what the file holds.
    let checkpoint = try Checkpoint.decode(result.checkpoint!.encoded())
    #expect(checkpoint == result.checkpoint!)
    return (Audit(result: result, sessions: collector.sessions, findings: collector.findings, csv: csv), checkpoint)
}

@Suite("--checkpoint: chained nights")
struct CheckpointTests {
    @Test("rows written by runs chained over three nights equal one run over all three, source included")
    func chained() throws {
        let dir = temporaryDirectory()
        let paths = nights.enumerated().map { writeLog($1, named: nightNames[$0], in: dir) }
        let whole = try oneRun(paths)
        // One run over the three nights: one server's files are one
        // stream, whose end is the last night's, so nothing waits.
        #expect(whole.waited == 0)
        var chained: [String] = []
        var carried: Checkpoint?
        var carriedIn: [Int] = []
        for path in paths {
            let (night, next) = try run([path], carried: carried)
            chained += rows(night)
            carriedIn.append(night.result.carriedIn)
            carried = next
        }
        #expect(chained.sorted() == whole.rows.sorted())
        // With a 100,000 s timeout a session stays open that long after its
        // last event, returned or not.
        #expect(carriedIn == [0, 5, 7])
        // What the chain found across the cuts.
        let kinds = Set(whole.findings.map(\.kind))
        #expect(kinds.isSuperset(of: [.stateReuse, .codeReuse, .noReturn, .unknownState, .missingErrorReturn]))
        let outcomes = Dictionary(whole.sessions.map { ($0.state, $0.outcome) }, uniquingKeysWith: { a, _ in a })
        #expect(outcomes["A"] == .code)
        #expect(outcomes["long"] == .noReturn)
        #expect(!whole.findings.contains { $0.kind == .unknownState && ($0.state == "A" || $0.state == "B") })
        // Still open at the end: carried, never written as pending; B has
        // its return from across the second cut.
        #expect(outcomes["late"] == nil && outcomes["B"] == nil)
        #expect(carried?.sessions.map(\.state) == ["B", "late", "k3"])
        #expect(carried?.sessions.first?.firstReturn?.error == "access_denied")
        #expect(!whole.sessions.contains { $0.outcome == .pending })
    }

    /// Two servers whose nights end at different times (within the
    /// session timeout of each other: neither is quiet). C, opened on srv1
    /// late in night 1, waits past that night's watermark (srv0's end) and
    /// is opened in night 2 with an expiry later than that of S, opened on
    /// srv0 at the start of night 2. S must still expire first: when the
    /// carried expiries and this run's shared one queue, S waited behind C,
    /// and S's state used again after its expiry joined it instead of
    /// opening a new session.
    @Test("a session of the next night expires on time, whatever the carried sessions' expiries")
    func carriedExpiriesWaitApart() throws {
        let dir = temporaryDirectory()
        let srv0 = [
            [at("21/Nov/2026:21:00:00", "/healthz", 200), at("21/Nov/2026:22:46:00", "/healthz", 200)],
            [
                at("21/Nov/2026:22:47:00", authorize(state: "S"), 200), at("21/Nov/2026:23:01:00", authorize(state: "S"), 200),
                at("21/Nov/2026:23:30:00", "/healthz", 200),
            ],
        ]
        let srv1 = [
            [at("21/Nov/2026:21:00:00", "/healthz", 200), at("21/Nov/2026:22:50:00", authorize(state: "C"), 200), at("21/Nov/2026:22:55:00", "/healthz", 200)],
            [at("21/Nov/2026:23:30:00", "/healthz", 200)],
        ]
        let files = (0..<2).map { n in
            [writeLog(srv0[n], named: n == 0 ? "srv0.log.1" : "srv0.log", in: dir), writeLog(srv1[n], named: n == 0 ? "srv1.log.1" : "srv1.log", in: dir)]
        }
        let timeout: (inout AuditConfiguration) -> Void = { $0.sessionTimeoutSeconds = 600 }
        let (first, checkpoint) = try run(files[0], carried: nil, configure: timeout)
        // C's request lies past the first night's watermark (srv0's end,
        // 22:46): it waits for the next run instead of opening a session
        // there, and the run says so.
        #expect(first.sessions.isEmpty && checkpoint.sessions.isEmpty && checkpoint.waiting.count == 1)
        #expect(first.result.quietStreams.isEmpty)
        #expect(first.result.waiting == WaitingRecords(count: 1, stream: files[0][0], watermark: AuditConfiguration.parseTime("2026-11-21T22:46:00Z")!))
        #expect(first.result.coverage.verdict == .partial && first.result.coverage.gaps.contains { $0.check == "waiting" })
        let (second, _) = try run(files[1], carried: checkpoint, configure: timeout)
        let s = second.sessions.filter { $0.state == "S" }
        #expect(s.map(\.outcome) == [.noReturn, .noReturn])
        #expect(s.last?.findings.contains(.stateReuse) == true)
        // S's rows as in one run over all four files.
        let one = try oneRun(files[0] + files[1], configure: timeout)
        func rowsOfS(_ r: [String]) -> [String] { r.filter { $0.hasPrefix("S,") || $0.contains(",S,") }.sorted() }
        #expect(rowsOfS(rows(second)).count == 5 && rowsOfS(rows(second)) == rowsOfS(one.rows))
    }

    @Test("a chain begun before version 3 keeps its HMAC fingerprints, and its version")
    func legacyChain() throws {
        let dir = temporaryDirectory()
        let paths = nights.enumerated().map { writeLog($1, named: nightNames[$0], in: dir) }
        let whole = try oneRun(paths)
        let key = Fingerprint.newKey()
        let (first, legacy) = try run([paths[0]], carried: nil) { $0.fingerprint = .legacyKeyed(key) }
        #expect(legacy.legacyFingerprints)
        #expect(legacy.encoded().starts(with: Array("flipaudit checkpoint 2\n".utf8)))
        // The states it remembers are HMAC-SHA256's first 8 bytes, not SipHash.
        let ended = Set(legacy.endedStates.map(\.key))
        let hmac = HMACSHA256.code(for: Array("R".utf8), key: key)
        #expect(ended.contains(hmac.withUnsafeBytes { UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)) }))
        #expect(!ended.contains(Fingerprint.keyed(key).of("R")))
        var chained = rows(first)
        var carried = legacy
        for path in paths.dropFirst() {
            let (night, next) = try run([path], carried: carried)
            #expect(next.legacyFingerprints && next.key == key)
            chained += rows(night)
            carried = next
        }
        #expect(chained.sorted() == whole.rows.sorted())
        // Read with SipHash, the same checkpoint misses the code returned
        // again across the cut (K, remembered only by its fingerprint): what
        // keeping the chain's own fingerprint is for.
        let (wrong, _) = try run([paths[1]], carried: legacy) { $0.fingerprint = .keyed(key) }
        let (right, _) = try run([paths[1]], carried: legacy)
        #expect(right.findings.contains { $0.kind == .codeReuse })
        #expect(!wrong.findings.contains { $0.kind == .codeReuse })
    }

    @Test("remembered keys are carried by time, then key, from within the reuse window only")
    func rememberedOrder() {
        var random = SplitMix(seed: 29)
        var memory = ReuseMemory(retention: 3_000_000_000)
        var reference: [UInt64: Int64] = [:]
        for _ in 0..<5_000 {
            // Few distinct times (negative ones too), so keys break many ties;
            // a key remembered twice keeps its later time.
            let time = Int64(random.next() % 2_001) * 1_000_000 - 1_000_000_000
            let key = random.next() % 4_000 == 0 ? 0 : random.next() % 3_000 &* 0x9E37_79B9_7F4A_7C15
            memory.remember(key, at: time)
            reference[key] = max(reference[key] ?? .min, time)
        }
        for now: Int64 in [1_000_000_000, 2_500_000_000] {
            let expected = reference.filter { now - $0.value <= 3_000_000_000 }.map { Checkpoint.Remembered(key: $0.key, time: $0.value) }
                .sorted { ($0.time, $0.key) < ($1.time, $1.key) }
            #expect(memory.live(now: now) == expected)
            #expect(expected.count > 100 && Set(expected.map(\.time)).count < expected.count)
        }
    }

    @Test("a journal's remembered keys merged into its snapshot's: each key once at its later time, by time then key, as a table would")
    func journalMerge() {
        var random = SplitMix(seed: 41)
        for round in 0..<20 {
            var snapshotTable: [UInt64: Int64] = [:]
            for _ in 0..<Int(random.next() % 2_000) { snapshotTable[random.next() % 3_000] = Int64(random.next() % 500) - 100 }
            var snapshot = snapshotTable.map { Checkpoint.Remembered(key: $0.key, time: $0.value) }.sorted { ($0.time, $0.key) < ($1.time, $1.key) }
            // Keys of both, later and earlier in the journal, and new ones.
            var journal: [UInt64: Int64] = [:]
            for _ in 0..<Int(random.next() % 800) { journal[random.next() % 4_000] = Int64(random.next() % 700) - 100 }
            // A hand-edited snapshot out of order is merged all the same.
            if round % 5 == 4 { snapshot.reverse() }
            var reference = snapshotTable
            for (k, t) in journal { reference[k] = max(reference[k] ?? .min, t) }
            let expected = reference.map { Checkpoint.Remembered(key: $0.key, time: $0.value) }.sorted { ($0.time, $0.key) < ($1.time, $1.key) }
            #expect(CheckpointJournal.merged(snapshot, journal) == expected, "round \(round)")
        }
    }

    @Test("remembered keys answer as a dictionary would, through growth, sweeps and probe chains")
    func rememberedAnswers() {
        var random = SplitMix(seed: 33)
        let retention: Int64 = 1_000_000
        var memory = ReuseMemory(retention: retention)
        var reference: [UInt64: Int64] = [:]
        // Random keys, 0, and keys that differ only in their top bits (the
        // same first slot for many of them: long probe chains).
        let keys = (0..<3_000).map { i -> UInt64 in
            switch i % 3 {
            case 0: return random.next()
            case 1: return UInt64(i) << 54
            default: return i == 2 ? 0 : UInt64(i % 97)
            }
        }
        var now: Int64 = -2_000_000
        var answered = (known: 0, forgotten: 0)
        var unmoved = 0
        for step in 0..<40_000 {
            // The clock moves on through six retention windows: sweeps drop
            // keys and shrink the table, which grows again.
            now += Int64(random.next() % 300)
            let key = keys[Int(random.next() % UInt64(keys.count))]
            switch random.next() % 3 {
            case 0:
                memory.remember(key, at: now)
                reference[key] = max(reference[key] ?? .min, now)
            case 1:
                let expected = reference[key].flatMap { now - $0 <= retention ? $0 : nil }
                if expected == nil { reference[key] = now }
                let answer = memory.time(of: key, orRememberAt: now)
                #expect(answer == expected, "key \(key) at \(now)")
                if answer == nil { answered.forgotten += 1 } else { answered.known += 1 }
            default:
                let expected = reference[key].map { now - $0 <= retention } ?? false
                #expect(memory.contains(key, now: now) == expected, "key \(key) at \(now)")
            }
            // A table grown or swept is moved a few slots a write: listed
            // (a checkpoint) while both tables hold keys.
            if memory.unmoved > 0 {
                unmoved += 1
                if step % 97 == 0 {
                    let live = reference.filter { now - $0.value <= retention }.map { Checkpoint.Remembered(key: $0.key, time: $0.value) }
                        .sorted { ($0.time, $0.key) < ($1.time, $1.key) }
                    #expect(memory.live(now: now) == live, "listed at \(now)")
                }
            }
        }
        #expect(answered.known > 1_000 && answered.forgotten > 1_000)
        #expect(unmoved > 1_000, "writes made while an old table was moved over: \(unmoved)")
        let live = reference.filter { now - $0.value <= retention }.map { Checkpoint.Remembered(key: $0.key, time: $0.value) }
            .sorted { ($0.time, $0.key) < ($1.time, $1.key) }
        #expect(memory.live(now: now) == live)
    }

    @Test("fingerprints are SipHash-2-4: the reference vector of its paper")
    func sipHashVector() {
        // Key 00…0f (the first 16 of the 32 key bytes), message 00…0e.
        let key = (0..<32).map { UInt8($0) }
        let message = (0..<15).map { UInt8($0) }
        #expect(message.withUnsafeBytes { Fingerprint.keyed(key).of($0) } == 0xa129_ca61_49be_45e5)
        #expect(Fingerprint.keyed(key).of("") == Fingerprint.keyed(key + [1]).of(""))
        #expect(Fingerprint.keyed(key).of("a") != Fingerprint.keyed(key.reversed()).of("a"))
    }

    @Test("each night alone, without a checkpoint, reports the cut sessions wrongly (what chaining mends)")
    func unchained() throws {
        let dir = temporaryDirectory()
        let first = audit(["night1.log": nights[0]])
        let second = audit(["night2.log": nights[1]])
        _ = dir
        #expect(first.sessions.first { $0.state == "A" }?.outcome == .pending)
        #expect(second.findings.contains { $0.kind == .unknownState && $0.state == "A" })
    }

    @Test("the checkpoint holds no code in clear, and names its key and clock")
    func noCodes() throws {
        let dir = temporaryDirectory()
        let (_, checkpoint) = try run([writeLog(nights[0], named: "n1.log", in: dir)], carried: nil)
        let text = String(decoding: checkpoint.encoded(), as: UTF8.self)
        for code in ["k-r", "K&", "\tK\t", "=K"] { #expect(!text.contains(code)) }
        #expect(checkpoint.returnedCodes.count == 2)
        #expect(checkpoint.endedStates.count == 2)
        #expect(checkpoint.key.count == 32)
    }

    @Test("damaged checkpoints are errors naming the line, never a crash or a fresh start")
    func damaged() throws {
        let dir = temporaryDirectory()
        // Two servers cut at different times: the second's records past the
        // first's end wait, as `event` lines beside `location` lines.
        let early = writeLog([at("20/Nov/2026:23:57:00", "/healthz", 200, "-")], named: "early.log", in: dir)
        let (_, checkpoint) = try run([early, writeLog(nights[0] + nights[1], named: "n.log", in: dir)], carried: nil)
        #expect(checkpoint.waiting.count == nights[1].count && checkpoint.locations.count == 1)
        let good = checkpoint.encoded()
        #expect(try Checkpoint.decode(good) == checkpoint)
        #expect(throws: Checkpoint.Damaged.self) { try Checkpoint.decode(Array(good.dropLast(1))) }
        #expect(throws: Checkpoint.Damaged.self) { try Checkpoint.decode(Array(good.prefix(good.count / 2))) }
        #expect(throws: Checkpoint.Damaged.self) { try Checkpoint.decode([]) }
        var other = good
        other[21] = UInt8(ascii: "9")  // "flipaudit checkpoint 9"
        do { _ = try Checkpoint.decode(other); Issue.record("another version was read") } catch {
            #expect(error.description.contains("version 9"))
        }
        // A waiting record is checked as the next run reads it: a line of
        // the file with a field changed, sealed again, is still refused.
        let text = String(decoding: good, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let body = text.dropLast(2).map(String.init)
        func resealed(_ change: (String) -> String) -> [UInt8] {
            let lines = body.map { $0.hasPrefix("event\t") ? change($0) : $0 }
            return Checkpoint.sealing(Array((lines.joined(separator: "\n") + "\n").utf8))
        }
        #expect(try Checkpoint.decode(resealed { $0 }) == checkpoint)
        // Version 3 (before records waited) is read; it holds no event line.
        func asVersion3(_ lines: [String]) -> [UInt8] {
            let text = lines.map { $0 == "flipaudit checkpoint 4" ? "flipaudit checkpoint 3" : $0 }.joined(separator: "\n")
            return Checkpoint.sealing(Array((text + "\n").utf8))
        }
        let old = try Checkpoint.decode(asVersion3(body.filter { !$0.hasPrefix("event\t") && !$0.hasPrefix("location\t") }))
        #expect(old.waiting.isEmpty && old.sessions == checkpoint.sessions && old.watermark == checkpoint.watermark)
        #expect(throws: Checkpoint.Damaged.self) { try Checkpoint.decode(asVersion3(body)) }
        // The fields after the tag: time, file, line, then the event.
        for (name, field, value) in [
            ("a time not past the watermark", 1, String(checkpoint.watermark)), ("a file not listed", 2, "7"),
            ("a bad status", 5, "1000"), ("a bad line key", 24, "xyz"),
        ] {
            let bytes = resealed { line in
                var f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
                f[field] = value
                return f.joined(separator: "\t")
            }
            #expect(throws: Checkpoint.Damaged.self, "\(name)") { try Checkpoint.decode(bytes) }
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            var bytes = good
            let i = Int.random(in: 0..<bytes.count, using: &generator)
            let b = UInt8.random(in: 0...255, using: &generator)
            guard bytes[i] != b else { continue }
            bytes[i] = b
            #expect(throws: Checkpoint.Damaged.self) { try Checkpoint.decode(bytes) }
        }
    }

    @Test("lines that pass the checksum are still checked field by field")
    func fields() throws {
        func sealed(_ body: String) -> [UInt8] {
            SealedText.seal(Array(("flipaudit checkpoint 1\n" + body).utf8), lines: body.split(separator: "\n").count + 1)
        }
        let key = String(repeating: "ab", count: 32)
        #expect(throws: Never.self) { try Checkpoint.decode(sealed("clock\t5\nkey\t\(key)\nserial\t0\n")) }
        for bad in [
            "clock\tx\nkey\t\(key)\nserial\t0\n", "clock\t5\nkey\tzz\nserial\t0\n", "clock\t5\nkey\t\(key)\n",
            "clock\t5\nkey\t\(key)\nserial\t0\nstate\t12\t5\n", "clock\t5\nkey\t\(key)\nserial\t0\nsession\tx\n",
            "clock\t5\nkey\t\(key)\nserial\t0\nfile\t1\ta.log\n", "clock\t5\nkey\t\(key)\nserial\t0\nbogus\t1\n",
        ] {
            #expect(throws: Checkpoint.Damaged.self) { try Checkpoint.decode(sealed(bad)) }
        }
    }
}

@Suite("--checkpoint through the command line")
struct CheckpointCommandTests {
    private func bytes(_ path: String) -> [UInt8]? { FileManager.default.contents(atPath: path).map { Array($0) } }

    @Test("missing: a fresh start, said; the same night twice: exit 2, both times named, checkpoint unchanged")
    func replay() throws {
        let dir = temporaryDirectory()
        let n1 = writeLog(nights[0], named: "night1.log", in: dir)
        let n2 = writeLog(nights[1], named: "night2.log", in: dir)
        let cp = dir + "/flip.checkpoint"
        let first = try runCLI([n1, "--checkpoint", cp, "--quiet"])
        #expect(first.status == 0)
        #expect(first.stderr.contains("does not exist: starting fresh"))
        let second = try runCLI([n2, "--checkpoint", cp, "--csv", dir + "/out2", "--quiet"])
        #expect(second.status == 0)
        let after2 = bytes(cp)
        let again = try runCLI([n2, "--checkpoint", cp, "--csv", dir + "/again", "--quiet"])
        #expect(again.status == 2)
        #expect(again.stderr.contains("night2.log was audited already, as \(n2) by run 2 of this checkpoint"))
        #expect(bytes(cp) == after2)
        #expect(!FileManager.default.fileExists(atPath: dir + "/again/sessions.csv"))
        // Owner-only: it holds the fingerprint key.
        let mode = try FileManager.default.attributesOfItem(atPath: cp)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test("--csv DIR/{date}/{run}: each night in its own folder; {run} without a checkpoint, or a folder that cannot be made, said")
    func csvPerNight() throws {
        let dir = temporaryDirectory()
        let n1 = writeLog(nights[0], named: "night1.log", in: dir)
        let n2 = writeLog(nights[1], named: "night2.log", in: dir)
        let cp = dir + "/flip.checkpoint"
        let template = dir + "/dash/{date}/{run}"
        for night in [n1, n2] { #expect(try runCLI([night, "--checkpoint", cp, "--csv", template, "--quiet"]).status == 0) }
        let made = try FileManager.default.subpathsOfDirectory(atPath: dir + "/dash").filter { $0.hasSuffix("sessions.csv") }.sorted()
        #expect(made.count == 2 && made[0].hasSuffix("/1/sessions.csv") && made[1].hasSuffix("/2/sessions.csv"), "\(made)")
        // Nothing is left beside them: the files were moved, not copied.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/dash").allSatisfy { $0.hasPrefix("2026-") })
        let noChain = try runCLI([n1, "--csv", template, "--quiet"])
        #expect(noChain.status == 2 && noChain.stderr.contains("{run} is the chain's run number: it needs --checkpoint"))
        // The night's folder is taken by a file: exit 4, named; the
        // checkpoint stays as it was.
        let blocked = dir + "/blocked"
        try FileManager.default.createDirectory(atPath: blocked, withIntermediateDirectories: true)
        let day = String(made[0].prefix(10))
        _ = FileManager.default.createFile(atPath: blocked + "/" + day, contents: Data("x".utf8))
        let cp2 = dir + "/other.checkpoint"
        let failed = try runCLI([n1, "--checkpoint", cp2, "--csv", blocked + "/{date}", "--quiet"])
        #expect(failed.status == 4 && failed.stderr.contains("--csv: cannot create folder \(blocked)/\(day)"), "\(failed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: cp2))
        #expect(try FileManager.default.contentsOfDirectory(atPath: blocked) == [day])
    }

    @Test("a night fed again late says so once per input, with its count, not a line per record")
    func lateFlood() throws {
        let dir = temporaryDirectory()
        let cp = dir + "/flip.checkpoint"
        #expect(try runCLI([writeLog(nights[1], named: "n2.log", in: dir), "--checkpoint", cp, "--quiet"]).status == 0)
        // Twelve records of the night before, in each of two rotated files.
        let old = (0..<12).map { at("20/Nov/2026:10:\(10 + $0):00", authorize(state: "o\($0)"), 200) }
        let a = writeLog(old, named: "access.log.2", in: dir)
        let b = writeLog(old, named: "access.log.3", in: dir)
        let run = try runCLI([a, b, "--checkpoint", cp, "--quiet"])
        let lines = run.stderr.split(separator: "\n").filter { $0.contains("late record") }
        #expect(lines.count == 2, "\(run.stderr)")
        #expect(lines.allSatisfy { $0.contains(":1: late record (2026-11-20T10:10:00.000Z") && $0.hasSuffix("(and 11 more late records in this input)") })
    }

    @Test("corrupt, cut off, other-version or unreadable checkpoints are exit 2, never a fresh start")
    func damaged() throws {
        let dir = temporaryDirectory()
        let n1 = writeLog(nights[0], named: "night1.log", in: dir)
        let n2 = writeLog(nights[1], named: "night2.log", in: dir)
        let cp = dir + "/flip.checkpoint"
        #expect(try runCLI([n1, "--checkpoint", cp, "--quiet"]).status == 0)
        let good = bytes(cp)!
        for (name, damaged) in [
            (
                "corrupt",
                {
                    var b = good; b[b.count / 2] ^= 0x01; return b
                }()
            ),
            ("cut", Array(good.prefix(good.count - 10))),
            ("version", Array("flipaudit checkpoint 9\n".utf8) + good.drop(while: { $0 != .newline }).dropFirst()),
        ] {
            _ = FileManager.default.createFile(atPath: cp, contents: Data(damaged))
            let run = try runCLI([n2, "--checkpoint", cp, "--quiet"])
            #expect(run.status == 2, "\(name)")
            #expect(run.stderr.contains("--checkpoint") && run.stderr.contains("nothing written"), "\(name): \(run.stderr)")
            #expect(bytes(cp) == damaged, "\(name)")
        }
        chmod(cp, 0o000)
        defer { chmod(cp, 0o600) }
        if getuid() != 0 {
            #expect(try runCLI([n2, "--checkpoint", cp, "--quiet"]).status == 2)
        }
    }

    @Test("after an input that could not be read completely the old checkpoint stays (exit 3)")
    func inputError() throws {
        let dir = temporaryDirectory()
        let n1 = writeLog(nights[0], named: "night1.log", in: dir)
        let cp = dir + "/flip.checkpoint"
        #expect(try runCLI([n1, "--checkpoint", cp, "--quiet"]).status == 0)
        let before = bytes(cp)
        let n2 = writeLog(nights[1], named: "night2.log", in: dir)
        let run = try runCLI([n2, dir + "/missing.log.gz", "--checkpoint", cp, "--quiet"])
        #expect(run.status == 3)
        #expect(run.stderr.contains("left as it was"))
        #expect(bytes(cp) == before)
    }

    @Test("a SIGKILL at any moment leaves the previous checkpoint whole")
    func killed() throws {
        let dir = temporaryDirectory()
        let cp = dir + "/flip.checkpoint"
        #expect(try runCLI([writeLog(nights[0], named: "night1.log", in: dir), "--checkpoint", cp, "--quiet"]).status == 0)
        let before = bytes(cp)!
        // A night long enough to be killed in the middle.
        var lines = nights[1]
        let filler = at("21/Nov/2026:12:00:00", "/static/app.js?v=1", 200)
        lines.insert(contentsOf: Array(repeating: filler, count: 300_000), at: 3)
        let big = writeLog(lines, named: "night2.log", in: dir)
        let binary = Bundle.module.bundleURL.deletingLastPathComponent().appendingPathComponent("flipaudit")
        for delay in [0.05, 0.2, 0.5, 1.0] {
            let p = Process()
            p.executableURL = binary
            p.arguments = [big, "--checkpoint", cp, "--quiet"]
            p.standardError = FileHandle.nullDevice
            p.standardOutput = FileHandle.nullDevice
            try p.run()
            Thread.sleep(forTimeInterval: delay)
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            let now = bytes(cp)!
            // Whole: the old one, or (if the run got that far) a new one that reads.
            #expect(now == before || (try? Checkpoint.decode(now)) != nil, "after \(delay) s")
        }
        // (A run may have finished before its kill: start from the old one.)
        _ = FileManager.default.createFile(atPath: cp, contents: Data(before))
        #expect(try runCLI([big, "--checkpoint", cp, "--quiet"]).status == 0)
        #expect((try? Checkpoint.decode(bytes(cp)!))?.watermark ?? 0 > (try Checkpoint.decode(before)).watermark)
    }
}
