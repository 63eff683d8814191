import Audit
import CHTTP
import Foundation
import Parsing
import Reading
import Reports
import Rules
import Writing

/// The follow loop's state: the files (`TailSet`), the rules, the findings
/// stream, and the commit. `FollowRun` prepares it; `loop` runs it, a
/// `turn` at a time (the follow tests drive turns over a model file system).
///
/// Not `Sendable`: one thread owns it.
final class Follower {
    private let run: FollowRun
    private let taken: CheckpointLoader.Taken?
    private let server: MetricsServer?
    private let configuration: AuditConfiguration
    private let key: Fingerprint
    private let metrics: FollowMetrics
    private let watch: FileWatch
    private var stream: FindingStream!
    private var tracker: SessionTracker!
    private var duplicates: DuplicateFilter
    /// The inputs `--tiers` names: the second of twins is left out.
    private var twins: TwinMemory!
    /// Each file's first flip records that could have a twin, by rank:
    /// files that look like tiers nobody named are said once.
    private var samples: [Int32: TwinSample] = [:]
    private var sampled = 0
    private var tiersSaid = Set<String>()
    /// Runs of the chain before this one.
    private let previousRun: Int

    /// The files read, and every decision about them.
    let tails: TailSet
    private let fs: any FileSystem
    /// Where what the follower has to say goes (standard error).
    private let say: (String) -> Void
    /// The coverage last said, and when (milliseconds; 0: never).
    private var coverageSaid = LiveCoverage.complete
    private var coverageSaidAt: Int64 = 0
    /// When the follower started (milliseconds): the newest record's age
    /// counts from it before the first record.
    private let startedAt: Int64
    /// Malformed lines said per rank (the first few).
    private var malformedSaid: [Int32: Int] = [:]
    private var lastCommit: Int64 = 0
    /// A file had more to read than one turn reads: the next turn does not wait.
    private var behind = false
    /// Events read and not yet audited, with when they were read; and by
    /// rank, the newest record time each open file has read.
    private var held: [(event: FlipEvent, arrived: Int64)] = []
    private var newest: [Int32: Int64] = [:]
    private var committedOnce = false
    /// Writes the commits on a thread of its own.
    private let writer: CommitWriter

    /// Descriptors a follower keeps free of logs: standard streams, inotify,
    /// the signal pipe, findings, the checkpoint's lock and temporary file,
    /// --listen's socket, libmicrohttpd's own and its connections.
    static let descriptorReserve = 16 + Int(FA_HTTP_CONNECTIONS)
    /// The descriptors this process may open: its soft limit, raised to
    /// the hard one first (systemd's default soft limit is 1024).
    static let descriptorLimit: Int = raisedDescriptorLimit()

    private static func raisedDescriptorLimit() -> Int {
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(resource, &raised) == 0 { limit = raised }
        }
        let cap = UInt64(1 << 30)
        return Int(min(UInt64(limit.rlim_cur), cap))
    }

    /// How often a coverage other than complete is said again (milliseconds).
    static let coverageRepeat: Int64 = 3_600_000
    /// How long a record waits for a slower file (milliseconds).
    static let mergeWait: Int64 = 1000
    /// Bytes read from one file in one turn, at most.
    static let readBudget = 4 << 20
    /// `committedAt`: when `carried` was committed (its file's time, milliseconds).
    /// `fs`: where logs are read, and the clock; `say`: where messages go.
    /// `taken`: the checkpoint and its lock, held for the follower's life;
    /// `server`: --listen's, kept running as long.
    init?(
        run: FollowRun, configuration: AuditConfiguration, taken: consuming CheckpointLoader.Taken?, committedAt: Int64, metrics: FollowMetrics,
        signals: Int32, skipping: OwnOutputs, server: MetricsServer?, fs: any FileSystem, say: @escaping (String) -> Void
    ) {
        let carried = taken?.carried
        self.taken = taken
        self.server = server
        self.run = run
        self.configuration = configuration
        key = configuration.fingerprint
        self.metrics = metrics
        self.fs = fs
        self.say = say
        startedAt = fs.now
        watch = FileWatch(signals: signals)
        for input in run.inputs {
            let folder = (input as NSString).deletingLastPathComponent
            watch.watch(folder: folder.isEmpty ? "." : folder)
        }
        previousRun = carried?.run ?? 0
        duplicates = DuplicateFilter(carried: carried?.records ?? [], retention: Int64(configuration.reuseWindowSeconds) * 1000)
        writer = CommitWriter(retention: Int64(configuration.reuseWindowSeconds) * 1000, compactAt: run.compactAt)
        tails = TailSet(
            fs: fs, inputs: run.inputs, fromStart: run.fromStart, skipping: skipping, configuration: configuration, metrics: metrics,
            carried: carried, openLimit: Self.descriptorLimit - Self.descriptorReserve, say: say)

        // The findings file, and what was written to it after the last commit.
        var descriptor = STDOUT_FILENO
        var written = carried?.follow?.written ?? [:]
        if let path = run.findings {
            descriptor = Glibc.open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0o640)
            guard descriptor >= 0 else {
                say("--findings \(TerminalText.escape(path)): \(String(cString: strerror(errno)))")
                return nil
            }
            let mark = carried?.follow?.findings
            var after = Self.writtenAfterCommit(descriptor, path: path, mark: mark)
            // Renamed since the commit, and stopped before the SIGHUP that
            // reopens it: what went to it after the commit is in the file
            // by its rotated name, found by its inode.
            if let mark, let renamed = Self.renamedFindings(path, mark: mark, besides: descriptor) {
                let fd = Glibc.open(renamed, O_RDWR | O_CLOEXEC | O_NOCTTY)
                if fd >= 0 {
                    after.merge(Self.writtenAfterCommit(fd, path: renamed, mark: mark)) { a, _ in a }
                    close(fd)
                }
            }
            // Decided after the commit, so at its clock or later, whatever
            // time the finding carries (a no-return is dated by its first
            // request, maybe long before): kept until the replay passes
            // that clock by the timeout and the reorder window.
            let committed = carried?.watermark ?? .min
            written.merge(after.mapValues { max($0, committed) }) { a, _ in a }
        }
        stream = FindingStream(
            format: run.ocsf ? .ocsf : .ndjson, path: run.findings, descriptor: descriptor, key: key, written: written, metrics: metrics
        ) { [unowned self] rank in tails.source(rank) }
        tracker = SessionTracker(configuration: configuration, files: 0, sink: stream, carried: carried)
        // Tiers named by --tiers, by the names the files were opened under.
        let globs = configuration.tiers
        twins = TwinMemory { [unowned self] a, b in
            let (i, j) = (Int(a), Int(b))
            guard tails.rankNames.indices.contains(i), tails.rankNames.indices.contains(j) else { return false }
            return !Tiers.named(globs, names: [tails.rankNames[i], tails.rankNames[j]]).isEmpty
        }
        tails.handOn = { [unowned self] file in
            var events: [FlipEvent] = []
            take(file, into: &events)
            held += events.map { ($0, fs.now) }
        }
        apply(tails.resume(carried?.follow?.positions ?? [], fresh: carried == nil, committedAt: committedAt))
    }

    deinit { writer.finish() }

    // MARK: The loop

    func loop() -> ExitStatus {
        if let status = start() { return status }
        while true {
            // A record held for a slower file is released a second after
            // it was read, not up to a turn later.
            let before = fs.now
            let due = held.lazy.map(\.arrived).min().map { $0 + Self.mergeWait - before } ?? Int64(FileWatch.tick)
            if let status = turn(signals: watch.wait(busy: behind, within: due)) { return status }
        }
    }

    /// Looks at the names and commits before the first line is read, with
    /// where each file stands: a stop right after start loses nothing. A
    /// status when the follower cannot go on.
    func start() -> ExitStatus? {
        apply(tails.scan(now: fs.now))
        return !commit(wait: true) && run.checkpoint != nil ? .outputFailed : nil
    }

    /// One turn, after a wait: the signals that came, the names looked at,
    /// what was appended read and audited, the clock moved, rotated files
    /// let go, a commit when due. A status when the follower stops.
    func turn(signals: [Int32]) -> ExitStatus? {
        let now = fs.now
        // A record dated ahead of the wall clock moves the rules' clock no further.
        tracker.clockLimit = now
        for signal in signals {
            switch signal {
            case SIGHUP:
                stream.reopen()
                _ = commit(wait: false)
            case SIGINT, SIGTERM, SIGQUIT:
                return stop()
            default:
                break
            }
        }
        stream.reopenIfMoved()
        // A finding that could not be written holds everything back.
        guard stream.writeBacklog() else {
            if run.findings == nil && errno == EPIPE { return .outputFailed }
            publish(now: now)
            return nil
        }
        apply(tails.scan(now: now))
        readAll(now: now)
        behind = tails.unread > 0
        if !behind {
            // Caught up, quiet or busy: the rules' clock follows the wall
            // clock less the reorder window (a log of health checks holds
            // no timeout back), never past a record still held.
            let oldestHeld = held.lazy.map(\.event.time).min() ?? .max
            tracker.advance(to: min(now - AuditConfiguration.reorderWindow, oldestHeld))
            stream.endStep()
        }
        apply(tails.retire(now: now))
        if now - lastCommit >= Int64(run.commitInterval) * 1000 { _ = commit(wait: false) }
        _ = collect()
        publish(now: now)
        return nil
    }

    /// What the files' changes mean for records read: a renamed file's
    /// newest record goes with its new rank; a truncated file's is gone; a
    /// file let go hands on its last line.
    private func apply(_ changes: [TailSet.Change]) {
        for change in changes {
            switch change {
            case .renamed(let from, let to):
                newest[to] = newest.removeValue(forKey: from)
            case .truncated(let rank):
                newest[rank] = nil
            case .letGo(let file):
                finish(file)
            case .opened, .gone:
                break
            }
        }
    }

    /// SIGTERM or SIGINT: a last commit, then exit 0.
    private func stop() -> ExitStatus {
        guard stream.writeBacklog(), commit(wait: true) || run.checkpoint == nil else {
            say("stopped without a last commit; a restart reads again from the one before")
            return .outputFailed
        }
        return .clean
    }

    private func publish(now: Int64) {
        metrics.files = tails.files.count
        metrics.bytesUnread = tails.unread
        metrics.openSessions = tracker.openSessions
        metrics.newestRecordOrStart = metrics.newestRecord ?? startedAt
        let followed = tails.current.sorted { $0.key < $1.key }
        // A file whose sessions the rules closed unobservable, and that has
        // logged no Location since it was opened.
        let unobservable = followed.filter { !$0.value.sawLocation && tracker.unobservableFiles.contains($0.value.rank) }.map(\.key)
        let coverage = LiveCoverage.judge(
            unseen: tails.unseen.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
            followed: followed.map { ($0.key, $0.value.accounting, $0.value.tally) }, unobservable: unobservable,
            format: configuration.format)
        metrics.coverage = coverage
        sayCoverage(coverage, now: now)
        metrics.publish(healthy: committedOnce || run.checkpoint == nil, now: Double(now) / 1000)
    }

    /// Clean is not blind, live: a coverage other than complete is said
    /// when it first shows, on each change and every hour while it lasts;
    /// complete again is said once.
    private func sayCoverage(_ coverage: LiveCoverage, now: Int64) {
        let changed = !coverage.sameAs(coverageSaid)
        let hourly = coverage.verdict != .complete && now - coverageSaidAt >= Self.coverageRepeat
        guard changed || hourly else { return }
        coverageSaid = coverage
        coverageSaidAt = now
        if coverage.verdict == .complete && !changed { return }
        say("\(TerminalText.escape(coverage.sentence))\(coverage.verdict == .complete ? " again" : "")")
    }

    // MARK: Reading

    /// Reads what every file has appended.
    private func readAll(now: Int64) {
        var total = 0
        var events: [FlipEvent] = []
        // A record more than an hour past the wall clock is in the future
        // (malformed), the hour counted from now, not from the start.
        let futureAfter = AuditConfiguration.futureLimit(now: now)
        for file in tails.files {
            file.scanner.futureAfter = futureAfter
            let n = file.read(budget: Self.readBudget, key: key, now: now)
            if n > 0 {
                total += n
                tails.noteFirstLine(file)
                take(file, into: &events)
            }
        }
        metrics.bytesRead += total
        held += events.map { ($0, now) }
        release(now: now, all: false)
    }

    /// What a file's new lines found: counts, messages, events.
    private func take(_ file: FollowedFile, into events: inout [FlipEvent]) {
        let before = Int(file.lines)
        let scan = file.take()
        file.accounting.add(scan.accounting)
        file.tally.add(scan.tally)
        file.zonedByHeader += scan.zonedByHeader
        metrics.lines += scan.accounting.lines
        metrics.records += scan.accounting.records
        metrics.malformedLines += scan.accounting.malformedLines
        metrics.flipRecords += scan.accounting.inScopeFlipRecords
        for note in scan.malformed where malformedSaid[file.rank, default: 0] < AuditConfiguration.malformedMessageLimit {
            malformedSaid[file.rank, default: 0] += 1
            let detail = note.detail.map { ", " + $0 } ?? ""
            say(
                "\(TerminalText.escape(file.name)):\(before + note.line): malformed line (\(note.reason.rawValue)\(detail))")
        }
        if let newest = scan.peaks.last?.time {
            metrics.newestRecord = max(metrics.newestRecord ?? .min, newest)
            self.newest[file.rank] = max(self.newest[file.rank] ?? .min, newest)
        }
        let text = scan.firstLocationLine.map { Int64(before + $0) }
        let json = scan.firstJSONLocationLine.map { Int64(before + $0) }
        if text != nil || json != nil { file.sawLocation = true }
        if text != nil || json != nil { tracker.markLogsLocation(file: file.rank, lines: LocationLines(text: text, json: json)) }
        events += scan.events
    }

    /// Audits the events read that every file has read up to, and those
    /// that waited a second (or all): records of several files go to the
    /// rules in time order, a slow file holding the others back a second
    /// at most.
    private func release(now: Int64, all: Bool) {
        guard !held.isEmpty else { return }
        held.sort { ($0.event.time, $0.event.source) < ($1.event.time, $1.event.source) }
        let frontier = tails.files.compactMap { newest[$0.rank] }.min() ?? .max
        guard let last = all ? held.indices.last : held.lastIndex(where: { $0.event.time <= frontier || now - $0.arrived >= Self.mergeWait }) else {
            return
        }
        let ready = held[...last].map(\.event)
        held.removeFirst(last + 1)
        audit(ready)
    }

    /// Audits events in time order (then file, then line).
    private func audit(_ events: [FlipEvent]) {
        guard !events.isEmpty else { return }
        var ordered = events.sorted { ($0.time, $0.source) < ($1.time, $1.source) }
        // A state's request before its return within a logged second,
        // across files (docs/contract.md §3), within what one release hands on.
        if ordered.count > 1 { CausalOrder.reorder(&ordered) }
        for event in ordered {
            if samples[event.source.file]?.isFull != true {
                samples[event.source.file, default: TwinSample()].see(event)
                sampled += 1
            }
            guard twins.admits(event) else { continue }
            guard duplicates.admits(event) else {
                metrics.duplicateRecords += 1
                continue
            }
            tracker.process(event)
            stream.endStep()
        }
        if sampled >= 16 { sayTiers() }
    }

    /// Files whose first records say they log the same requests (a proxy
    /// and its backend) and that `--tiers` does not name: said once per
    /// pair, with the option that pairs them (a follower does not pair
    /// by itself: findings already written cannot be taken back).
    private func sayTiers() {
        sampled = 0
        // Only the files still followed: a rank per rotation would
        // otherwise keep its sample for as long as the follower runs.
        let followed = Set(tails.files.map(\.rank))
        samples = samples.filter { followed.contains($0.key) }
        guard samples.count >= 2, let top = samples.keys.max() else { return }
        let list = (0...top).map { samples[$0] ?? TwinSample() }
        for pair in Tiers.detect(list).sorted() where tails.rankNames.indices.contains(Int(pair.b)) {
            let (a, b) = (tails.rankNames[Int(pair.a)], tails.rankNames[Int(pair.b)])
            guard Tiers.named(configuration.tiers, names: [a, b]).isEmpty, tiersSaid.insert(a + "\u{0}" + b).inserted else { continue }
            say(
                "\(TerminalText.escape(a)) and \(TerminalText.escape(b)) log the same requests (a proxy and its backend?): "
                    + "each is audited twice; follow with --tiers '\(TerminalText.escape(a)),\(TerminalText.escape(b))' to audit each once")
        }
        // Files read in different zones: said once per pair, as a batch run says it.
        let names = (0...top).map { tails.source(Int32($0)).0 }
        let zoneless = (0...top).map { rank -> Bool in
            guard let file = tails.files.first(where: { $0.rank == Int32(rank) }) else { return false }
            return file.tally.zoneless(zoned: file.zonedByHeader) != nil
        }
        for offset in ClockOffset.detect(list, names: names, zoneless: zoneless)
        where tiersSaid.insert(offset.first + "\u{0}" + offset.second + "\u{0}offset").inserted {
            say(TerminalText.escape(offset.sentence(zone: configuration.zone)))
        }
    }

    /// A file let go: a last line without its newline is read as it is.
    private func finish(_ file: FollowedFile) {
        var events: [FlipEvent] = []
        file.finish()
        take(file, into: &events)
        newest[file.rank] = nil
        held += events.map { ($0, fs.now) }
    }

    // MARK: Commit

    /// Commits the checkpoint (when there is one): every finding written
    /// first, then handed to the commit writer (`CommitWriter`), which
    /// flushes them and writes the commit while the loop goes on. `wait`:
    /// until it is written (at start and at a stop); else a commit due
    /// while the one before is still written waits for the next turn. False
    /// when it could not be made.
    @discardableResult
    private func commit(wait: Bool) -> Bool {
        let now = fs.now
        // The positions cover every record read: each is audited first.
        release(now: now, all: true)
        guard let path = run.checkpoint else {
            lastCommit = now
            return true
        }
        if writer.busy {
            guard wait else { return true }
            writer.waitIdle()
        }
        _ = collect()
        lastCommit = now
        guard stream.backlog.isEmpty else {
            say("findings not all written and synced; the checkpoint is left as it was")
            return false
        }
        let whole = writer.wantsSnapshot
        let changes = tracker.takeRememberedChanges()
        let checkpoint = checkpointNow(whole: whole, track: true)
        writer.submit(
            CommitWriter.Job(
                checkpoint: checkpoint, states: changes.states, codes: changes.codes, whole: whole,
                findings: run.findings == nil ? -1 : dup(stream.descriptor), path: path))
        guard wait else { return true }
        writer.waitIdle()
        return collect() ?? false
    }

    /// Takes the outcome of the last commit written, if new: counted, said.
    @discardableResult
    private func collect() -> Bool? {
        guard let outcome = writer.take() else { return nil }
        for message in outcome.messages { say(message) }
        guard outcome.ok else { return false }
        committedOnce = true
        metrics.commits += 1
        if outcome.snapshot { metrics.snapshots += 1 }
        metrics.commitBytes += outcome.bytes
        metrics.lastCommit = Double(fs.now) / 1000
        return true
    }

    /// Waits for a commit being written and takes its outcome (the follow
    /// tests' view of a commit, as a restart finds it).
    func settle() {
        writer.waitIdle()
        _ = collect()
    }

    /// The checkpoint a commit now holds, its files numbered by rank: the
    /// rules' state, the records near the watermark, where each file
    /// stands, the findings written and not decided again yet. `whole`:
    /// every open session and remembered state and code (a snapshot; with
    /// `track`, sessions are journaled by change from it on); else the
    /// sessions written and closed since the commit before, and no state
    /// or code (a journal commit adds those remembered since).
    func checkpointNow(whole: Bool = true, track: Bool = false) -> Checkpoint {
        // A restored clock lies the reorder window before the watermark it came from.
        let watermark = max(tracker.now, Checkpoint.noWatermark)
        var next = tracker.followCommit(watermark: watermark, names: tails.rankNames, whole: whole, track: track)
        completed(&next, watermark: watermark, whole: whole, track: track)
        return next
    }

    /// The lines of a commit beside the rules' state: records near the
    /// watermark, positions, the findings file, the ids written.
    private func completed(_ next: inout Checkpoint, watermark: Int64, whole: Bool, track: Bool) {
        next.key = configuration.fingerprint.keyBytes ?? []
        next.legacyFingerprints = false
        next.run = previousRun + 1
        if whole {
            next.records = duplicates.handedOn(watermark: watermark)
            if track { duplicates.startAdding() }
        } else {
            next.records = duplicates.takeAdded(watermark: watermark)
        }
        var sources: [Int: UInt64] = [:]
        for (rank, fingerprint) in tails.rankFingerprints.enumerated() { sources[rank] = fingerprint }
        // Ids not decided again yet, past the time their sessions closed at the latest.
        stream.forgetWritten(before: watermark - Int64(configuration.sessionTimeoutSeconds) * 1000 - AuditConfiguration.reorderWindow)
        next.follow = FollowState(positions: tails.files.map(\.position), sources: sources, findings: stream.mark, written: stream.written)
    }

    /// The file the commit's `mark` names under a rotated name of `path`
    /// (`findings.ndjson.1`) when `path` now holds another (the open `fd`).
    static func renamedFindings(_ path: String, mark: FollowState.FindingsMark, besides fd: Int32) -> String? {
        var open = stat()
        guard fstat(fd, &open) == 0, UInt64(open.st_dev) != mark.device || UInt64(open.st_ino) != mark.inode else { return nil }
        return TailSet.rotatedNames(of: path, in: LocalFileSystem()).first { name in
            var info = stat()
            return stat(name, &info) == 0 && UInt64(info.st_dev) == mark.device && UInt64(info.st_ino) == mark.inode
        }
    }

    /// The ids of the findings written to the file on `fd` after the
    /// commit `mark` recorded (all of it when it is another file, or
    /// shorter). A last line cut off (a crash in its write) is cut away: its
    /// finding is written again whole.
    static func writtenAfterCommit(_ fd: Int32, path: String, mark: FollowState.FindingsMark?) -> [UInt64: Int64] {
        guard let mark else { return [:] }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return [:] }
        let same = UInt64(info.st_dev) == mark.device && UInt64(info.st_ino) == mark.inode && Int64(info.st_size) >= mark.size
        let from = same ? mark.size : 0
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var at = from
        while true {
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(at)) }
            guard n > 0 else { break }
            bytes += buffer[..<n]
            at += Int64(n)
        }
        if let last = bytes.last, last != .newline {
            let keep = bytes.lastIndex(of: .newline).map { $0 + 1 } ?? 0
            Diagnostics.follow.say(
                "--findings \(TerminalText.escape(path)): its last line was cut off (\(bytes.count - keep) bytes, a stop in its write); cut away, its finding is written again"
            )
            _ = ftruncate(fd, off_t(from + Int64(keep)))
            bytes.removeSubrange(keep...)
        }
        var ids: [UInt64: Int64] = [:]
        for line in bytes.split(separator: .newline) {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else { continue }
            if let id = (object["id"] as? String).flatMap({ UInt64($0, radix: 16) }),
                let time = (object["time"] as? String).flatMap(AuditConfiguration.parseTime)
            {
                ids[id] = time
            } else if let info = object["finding_info"] as? [String: Any], let id = (info["uid"] as? String).flatMap({ UInt64($0, radix: 16) }),
                let time = object["time"] as? Int64
            {
                ids[id] = time
            }
        }
        return ids
    }
}
