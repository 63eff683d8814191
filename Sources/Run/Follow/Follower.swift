import Audit
import CHTTP
import Foundation
import Parsing
import Reading
import Reports
import Rules
import Writing

/// The follow loop's state: the files open, the rules, the findings
/// stream, and the commit. `FollowRun` prepares it; `loop` runs it.
///
/// Not `Sendable`: one thread owns it.
final class Follower {
    private let run: FollowRun
    /// The follower's own files (checkpoint, its lock and temporary names,
    /// findings): a pattern or a rotated name that matches one skips it.
    private let skipping: OwnOutputs
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

    /// Every file open, oldest first: rotated ones are read before the
    /// file that took their name.
    private var files: [FollowedFile] = []
    /// The file open at each name.
    private var current: [String: FollowedFile] = [:]
    /// By rank: the name a file was opened under and its first line's
    /// fingerprint (finding ids, sources).
    private var rankNames: [String] = []
    private var rankFingerprints: [UInt64] = []
    /// Names already said to be missing or not a file (said once).
    private var said: Set<String> = []
    /// Inputs and files not seen at the last look, and why: the coverage.
    private var unseen: [String: String] = [:]
    /// The coverage last said, and when (milliseconds; 0: never).
    private var coverageSaid = LiveCoverage.complete
    private var coverageSaidAt: Int64 = 0
    /// When the follower started (milliseconds): the newest record's age
    /// counts from it before the first record.
    private let startedAt = Follower.wallClock()
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

    /// Time a rotated file that no longer grows is kept open (milliseconds):
    /// a server may still write to it until it reopens its log.
    static let rotationGrace: Int64 = 2000
    /// Time a rotated file is kept at most while the name it left holds no
    /// file written to (milliseconds): its server has not reopened its log.
    static let rotationHold: Int64 = 300_000
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
    /// Suffixes of files that are never followed.
    static let compressed = [".gz", ".bz2", ".xz", ".zst", ".lz4", ".Z", ".zip"]

    /// `committedAt`: when `carried` was committed (its file's time, milliseconds).
    init?(
        run: FollowRun, configuration: AuditConfiguration, carried: Checkpoint?, committedAt: Int64, metrics: FollowMetrics, signals: Int32,
        skipping: OwnOutputs
    ) {
        self.run = run
        self.skipping = skipping
        self.configuration = configuration
        key = configuration.fingerprint
        self.metrics = metrics
        watch = FileWatch(signals: signals)
        previousRun = carried?.run ?? 0
        duplicates = DuplicateFilter(carried: carried?.records ?? [], retention: Int64(configuration.reuseWindowSeconds) * 1000)
        rankNames = carried?.files ?? []
        rankFingerprints = rankNames.indices.map { carried?.follow?.sources[$0] ?? 0 }

        // The findings file, and what was written to it after the last commit.
        var descriptor = STDOUT_FILENO
        var written = carried?.follow?.written ?? [:]
        if let path = run.findings {
            descriptor = Glibc.open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0o640)
            guard descriptor >= 0 else {
                StandardError().write("flipaudit: follow: --findings \(TerminalText.escape(path)): \(String(cString: strerror(errno)))")
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
        ) { [unowned self] rank in
            let i = Int(rank)
            return rankNames.indices.contains(i) ? (rankNames[i], rankFingerprints[i]) : ("?", 0)
        }
        tracker = SessionTracker(configuration: configuration, files: 0, sink: stream, carried: carried)
        // Tiers named by --tiers, by the names the files were opened under.
        let globs = configuration.tiers
        twins = TwinMemory { [unowned self] a, b in
            let (i, j) = (Int(a), Int(b))
            guard rankNames.indices.contains(i), rankNames.indices.contains(j) else { return false }
            return !Tiers.named(globs, names: [rankNames[i], rankNames[j]]).isEmpty
        }
        resume(carried?.follow?.positions ?? [], fresh: carried == nil, committedAt: committedAt)
    }

    // MARK: The loop

    func loop(server: MetricsServer?) -> ExitStatus {
        // Committed before the first line is read, with where each file
        // stands: a stop right after start loses nothing.
        look(now: Self.wallClock())
        if !commit() && run.checkpoint != nil { return .outputFailed }
        while true {
            // A record held for a slower file is released a second after
            // it was read, not up to a turn later.
            let before = Self.wallClock()
            let due = held.lazy.map(\.arrived).min().map { $0 + Self.mergeWait - before } ?? Int64(FileWatch.tick)
            let signals = watch.wait(busy: behind, within: due)
            let now = Self.wallClock()
            for signal in signals {
                switch signal {
                case SIGHUP:
                    stream.reopen()
                    _ = commit()
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
                continue
            }
            look(now: now)
            _ = readAll(now: now)
            behind = files.contains { $0.unread > 0 }
            if !behind {
                // Caught up, quiet or busy: the rules' clock follows the wall
                // clock less the reorder window (a log of health checks holds
                // no timeout back), never past a record still held.
                let oldestHeld = held.lazy.map(\.event.time).min() ?? .max
                tracker.advance(to: min(now - AuditConfiguration.reorderWindow, oldestHeld))
                stream.endStep()
            }
            retire(now: now)
            if now - lastCommit >= Int64(run.commitInterval) * 1000 { _ = commit() }
            publish(now: now)
        }
    }

    /// SIGTERM or SIGINT: a last commit, then exit 0.
    private func stop() -> ExitStatus {
        guard stream.writeBacklog(), commit() || run.checkpoint == nil else {
            StandardError().write("flipaudit: follow: stopped without a last commit; a restart reads again from the one before")
            return .outputFailed
        }
        return .clean
    }

    private func publish(now: Int64) {
        metrics.files = files.count
        metrics.bytesUnread = files.reduce(0) { $0 + $1.unread }
        metrics.openSessions = tracker.openSessions
        metrics.newestRecordOrStart = metrics.newestRecord ?? startedAt
        let followed = current.sorted { $0.key < $1.key }
        // A file whose sessions the rules closed unobservable, and that has
        // logged no Location since it was opened.
        let unobservable = followed.filter { !$0.value.sawLocation && tracker.unobservableFiles.contains($0.value.rank) }.map(\.key)
        let coverage = LiveCoverage.judge(
            unseen: unseen.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
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
        StandardError().write("flipaudit: follow: \(TerminalText.escape(coverage.sentence))\(coverage.verdict == .complete ? " again" : "")")
    }

    // MARK: Names and rotations

    /// Looks at every name: a new file, one renamed away or deleted, one
    /// replaced by another.
    private func look(now: Int64) {
        unseen = [:]
        for input in run.inputs {
            watch.watch(folder: (input as NSString).deletingLastPathComponent.isEmpty ? "." : (input as NSString).deletingLastPathComponent)
            if Self.isPattern(input) {
                let names = Self.expand(input)
                // Clean is not blind: a pattern that matches nothing (a
                // typo, a folder not there yet) is said, not followed silently.
                if names.isEmpty {
                    sayOnce(input, "matches no file (yet)", then: "looked for again every \(FileWatch.tick) ms")
                } else {
                    said.remove(input)
                }
                for name in names where !Self.isCompressed(name) && !isOwn(name) { check(name, named: false, now: now) }
            } else {
                check(input, named: true, now: now)
            }
        }
        // A name a glob no longer matches: its file was renamed or deleted.
        for (name, file) in current where !Self.exists(name) {
            rotated(file, now: now)
            current[name] = nil
        }
        looked = true
    }

    private func check(_ name: String, named: Bool, now: Int64) {
        var info = stat()
        guard stat(name, &info) == 0 else {
            // Read before anything else can change it.
            let error = errno
            if let file = current[name] {
                // Just rotated away (`create` makes the new file a moment
                // later): said only if the name is still missing next turn.
                rotated(file, now: now)
                current[name] = nil
                return
            }
            if named {
                // What stat(2) says: missing, or a folder on the way that
                // cannot be searched (not "does not exist").
                let why = error == ENOENT ? "does not exist (yet)" : "cannot be looked at: \(String(cString: strerror(error)))"
                sayOnce(name, why, then: "looked for again every \(FileWatch.tick) ms")
            }
            return
        }
        if Self.isCompressed(name) {
            sayOnce(name, "is compressed: never followed", then: "a batch run reads rotated files whole")
            return
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            sayOnce(name, info.st_mode & S_IFMT == S_IFDIR ? "is a directory, not a log file" : "is not a regular file", then: "looked at again")
            return
        }
        if let file = current[name] {
            if file.device == UInt64(info.st_dev) && file.inode == UInt64(info.st_ino) { return }
            rotated(file, now: now)
            current[name] = nil
        }
        // Already read under another name (a file renamed onto this one).
        if files.contains(where: { $0.device == UInt64(info.st_dev) && $0.inode == UInt64(info.st_ino) }) { return }
        // A file there when a fresh follower starts is read from its end;
        // any other from its start: it came after.
        let fromEnd = !looked && fresh && !run.fromStart
        if let file = open(name, offset: 0, lines: 0, now: now, fromEnd: fromEnd) {
            current[name] = file
            said.remove(name)
        }
    }

    /// No checkpoint was taken in; the names have not been looked at yet.
    private var fresh = true
    private var looked = false

    /// A file that left its name: renamed (its lines are named by its new
    /// name from now on) or deleted; read to its end, then let go.
    private func rotated(_ file: FollowedFile, now: Int64) {
        guard file.rotatedAt == nil else { return }
        file.rotatedAt = now
        file.leftName = file.name
        metrics.rotations += 1
        for name in rotatedNames(of: file.name) {
            var info = stat()
            guard stat(name, &info) == 0, UInt64(info.st_dev) == file.device, UInt64(info.st_ino) == file.inode else { continue }
            // Its lines already taken keep the old name.
            var events: [FlipEvent] = []
            take(file, into: &events)
            held += events.map { ($0, now) }
            let rank = Int32(rankNames.count)
            rankNames.append(name)
            rankFingerprints.append(rankFingerprints[Int(file.rank)])
            newest[rank] = newest.removeValue(forKey: file.rank)
            file.renamed(to: name, rank: rank)
            break
        }
    }

    /// Opens `name` at `offset` (a line boundary, `lines` lines in), or at
    /// its last line end; nil when it cannot be read (said once).
    private func open(_ name: String, offset: Int64, lines: Int64, now: Int64, fromEnd: Bool = false) -> FollowedFile? {
        // Descriptors kept for the findings, the checkpoint's commit and
        // --listen's connections: a log too many is not opened (said, and
        // counted as not seen), rather than /metrics going dark for good.
        guard files.count + Self.descriptorReserve < Self.descriptorLimit else {
            let why =
                "not opened: \(files.count) files open, \(Self.descriptorLimit) descriptors allowed (ulimit -n), "
                + "\(Self.descriptorReserve) kept for findings, checkpoint and --listen"
            sayOnce(name, why, then: "raise LimitNOFILE, or follow fewer files")
            return nil
        }
        let fd = Glibc.open(name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else {
            sayOnce(name, "cannot be read: \(String(cString: strerror(errno)))", then: "tried again")
            return nil
        }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            return nil
        }
        var at = (offset, lines)
        if fromEnd { at = Self.lastLineEnd(fd) }
        let rank = Int32(rankNames.count)
        guard let scanner = try? LineScanner(fileIndex: rank, configuration: configuration) else {
            close(fd)
            return nil
        }
        let file = FollowedFile(
            descriptor: fd, info: info, name: name, rank: rank, offset: at.0, lines: at.1, scanner: scanner, maxLine: configuration.maxLine,
            key: key, now: now)
        rankNames.append(name)
        rankFingerprints.append(file.fingerprint ?? 0)
        files.append(file)
        return file
    }

    /// Picks up the files of a checkpoint's positions: by device and inode
    /// first, under their name or a rotated one; else a plain copy with the
    /// same first line (copytruncate while stopped). What cannot be found is
    /// a possible gap, said.
    private func resume(_ positions: [FollowState.Position], fresh: Bool, committedAt: Int64) {
        self.fresh = fresh
        let now = Self.wallClock()
        for p in positions {
            // Its name, its rotation names, then any file of its folder: a
            // file read as access.log.1 may be access.log.2 by now.
            var candidates = [p.name] + rotatedNames(of: p.name)
            candidates += folderFiles(of: p.name).filter { !candidates.contains($0) }
            var found: (name: String, copy: Bool)?
            for name in candidates {
                var info = stat()
                guard stat(name, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
                let same = UInt64(info.st_dev) == p.device && UInt64(info.st_ino) == p.inode
                if files.contains(where: { $0.device == UInt64(info.st_dev) && $0.inode == UInt64(info.st_ino) }) { continue }
                // Empty when committed: known by its inode alone.
                if p.fingerprint == FollowState.Position.empty {
                    if same { found = (name, false) }
                    if same { break } else { continue }
                }
                let fd = Glibc.open(name, O_RDONLY | O_CLOEXEC | O_NOCTTY)
                guard fd >= 0 else { continue }
                let fingerprint = FollowedFile.firstLineFingerprint(fd, key: key)
                close(fd)
                guard fingerprint == p.fingerprint else { continue }
                found = (name, !same)
                if same { break }
            }
            guard let found else {
                metrics.gaps += 1
                StandardError().write(
                    "flipaudit: follow: \(TerminalText.escape(p.name)): the file read up to byte \(p.offset) is gone (compressed or deleted since); possible gap"
                )
                continue
            }
            if found.copy {
                // Only a copy holds the rest: lines written after the copy
                // may be in neither file, counted and said as a live one is.
                metrics.rotations += 1
                metrics.gaps += 1
                let shown = TerminalText.escape(p.name)
                let copy = TerminalText.escape(found.name)
                var info = stat()
                let inPlace = stat(p.name, &info) == 0 && UInt64(info.st_dev) == p.device && UInt64(info.st_ino) == p.inode
                StandardError().write(
                    inPlace
                        ? "flipaudit: follow: \(shown) was truncated in place (copytruncate) while the follower was stopped; the rest read from its copy \(copy); possible gap (lines written between the copy and the truncation)"
                        : "flipaudit: follow: \(shown): the file read up to byte \(p.offset) is gone; the rest read from its copy \(copy); possible gap (lines written after the copy)"
                )
            }
            guard let file = open(found.name, offset: p.offset, lines: p.lines, now: now) else { continue }
            // Under a name it follows, it goes on (found under another
            // followed name, there); under a rotated name (stopped after a
            // rotation), it is read to its end, let go.
            if !found.copy && follows(found.name) {
                current[found.name] = file
            } else {
                file.rotatedAt = now
                // Renamed away from a followed name since the commit: its
                // server may still write to it until it reopens that name.
                if !found.copy && found.name != p.name && follows(p.name) { file.leftName = p.name }
            }
        }
        if !fresh { rotatedWhileStopped(names: Set(positions.map(\.name)).filter(follows).sorted(), committedAt: committedAt, now: now) }
    }

    /// Files rotated in and out while the follower was stopped: beside a
    /// name it followed at the commit, every rotated file written after the
    /// commit that no position found (the middle one of two rotations, a
    /// copy of a file empty at the commit) holds only lines never read: it
    /// is read from its start, oldest first. (One compressed already is
    /// not read: docs/follow.md asks for `delaycompress`.)
    private func rotatedWhileStopped(names: [String], committedAt: Int64, now: Int64) {
        for followed in names {
            var found: [(name: String, modified: Int64)] = []
            // A name followed itself is the look's to open (from its start).
            for name in rotatedNames(of: followed) where !follows(name) {
                var info = stat()
                guard stat(name, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
                let modified = Int64(info.st_mtim.tv_sec) * 1000 + Int64(info.st_mtim.tv_nsec) / 1_000_000
                guard modified >= committedAt, !files.contains(where: { $0.device == UInt64(info.st_dev) && $0.inode == UInt64(info.st_ino) })
                else { continue }
                found.append((name, modified))
            }
            for (name, _) in found.sorted(by: { ($0.modified, $0.name) < ($1.modified, $1.name) }) {
                guard let file = open(name, offset: 0, lines: 0, now: now) else { continue }
                file.rotatedAt = now
                StandardError().write(
                    "flipaudit: follow: \(TerminalText.escape(name)) was rotated in and out while the follower was stopped: read from its start")
            }
        }
    }

    /// Lets go of rotated files read to their end that no longer grow,
    /// once the name they left holds a file that has been written to: until
    /// then its server may not have reopened its log, and writes late to
    /// the old file (a graceful restart, a late USR1).
    private func retire(now: Int64) {
        // The names that hold a file written to (not read inside removeAll).
        let written = Set(files.filter { $0.rotatedAt == nil && ($0.size ?? 0) > 0 }.map(\.name))
        files.removeAll { file in
            guard let at = file.rotatedAt, file.unread == 0, now - max(at, file.grewAt) >= Self.rotationGrace else { return false }
            if let left = file.leftName, !written.contains(left) {
                guard now - max(at, file.grewAt) >= Self.rotationHold else { return false }
                StandardError().write(
                    "flipaudit: follow: \(TerminalText.escape(file.name)) let go \(Self.rotationHold / 1000) s after its last write, though nothing was written to \(TerminalText.escape(left)) since it left that name: a later write to it is not read"
                )
            }
            finish(file)
            return true
        }
    }

    // MARK: Reading

    /// Reads what every file has appended; the bytes read.
    private func readAll(now: Int64) -> Int {
        var total = 0
        var events: [FlipEvent] = []
        for file in files {
            if file.rotatedAt == nil, file.wasTruncated(key: key) { truncated(file, now: now) }
        }
        // A record more than an hour past the wall clock is in the future
        // (malformed), the hour counted from now, not from the start.
        let futureAfter = AuditConfiguration.futureLimit(now: now)
        for file in files {
            file.scanner.futureAfter = futureAfter
            let n = file.read(budget: Self.readBudget, key: key, now: now)
            if n > 0 {
                total += n
                if rankFingerprints[Int(file.rank)] == 0, let f = file.fingerprint { rankFingerprints[Int(file.rank)] = f }
                take(file, into: &events)
            }
        }
        metrics.bytesRead += total
        held += events.map { ($0, now) }
        release(now: now, all: false)
        return total
    }

    /// What a file's new lines found: counts, messages, events.
    private func take(_ file: FollowedFile, into events: inout [FlipEvent]) {
        let before = Int(file.lines)
        let scan = file.take()
        file.accounting.add(scan.accounting)
        file.tally.add(scan.tally)
        metrics.lines += scan.accounting.lines
        metrics.records += scan.accounting.records
        metrics.malformedLines += scan.accounting.malformedLines
        metrics.flipRecords += scan.accounting.inScopeFlipRecords
        for note in scan.malformed where malformedSaid[file.rank, default: 0] < AuditConfiguration.malformedMessageLimit {
            malformedSaid[file.rank, default: 0] += 1
            let detail = note.detail.map { ", " + $0 } ?? ""
            StandardError().write(
                "flipaudit: follow: \(TerminalText.escape(file.name)):\(before + note.line): malformed line (\(note.reason.rawValue)\(detail))")
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
        let frontier = files.compactMap { newest[$0.rank] }.min() ?? .max
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
        let followed = Set(files.map(\.rank))
        samples = samples.filter { followed.contains($0.key) }
        guard samples.count >= 2, let top = samples.keys.max() else { return }
        let list = (0...top).map { samples[$0] ?? TwinSample() }
        for pair in Tiers.detect(list).sorted() where rankNames.indices.contains(Int(pair.b)) {
            let (a, b) = (rankNames[Int(pair.a)], rankNames[Int(pair.b)])
            guard Tiers.named(configuration.tiers, names: [a, b]).isEmpty, tiersSaid.insert(a + "\u{0}" + b).inserted else { continue }
            StandardError().write(
                "flipaudit: follow: \(TerminalText.escape(a)) and \(TerminalText.escape(b)) log the same requests (a proxy and its backend?): "
                    + "each is audited twice; follow with --tiers '\(TerminalText.escape(a)),\(TerminalText.escape(b))' to audit each once")
        }
    }

    /// A file truncated in place (copytruncate): what it had not handed on
    /// is read from the plain copy when one has its first line; bytes it
    /// had that neither holds are a gap. It is then read again from 0.
    private func truncated(_ file: FollowedFile, now: Int64) {
        metrics.rotations += 1
        metrics.gaps += 1
        var copySize: Int64 = -1
        var copyRead = false
        for name in rotatedNames(of: file.name) {
            var info = stat()
            guard stat(name, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
                !files.contains(where: { $0.device == UInt64(info.st_dev) && $0.inode == UInt64(info.st_ino) })
            else { continue }
            let fd = Glibc.open(name, O_RDONLY | O_CLOEXEC | O_NOCTTY)
            guard fd >= 0 else { continue }
            let fingerprint = FollowedFile.firstLineFingerprint(fd, key: key)
            close(fd)
            guard fingerprint != nil, fingerprint == file.fingerprint else { continue }
            copySize = Int64(info.st_size)
            // Read past the copy already (lines written before the truncation).
            guard copySize > file.offset, let copy = open(name, offset: file.offset, lines: file.lines, now: now) else { break }
            copyRead = true
            copy.rotatedAt = now
            // Read before the file that is read again from 0.
            files.removeAll { $0 === copy }
            files.insert(copy, at: files.firstIndex { $0 === file } ?? 0)
            break
        }
        let lost = max(0, file.sizeSeen - max(copySize, file.offset))
        metrics.gapBytes += lost
        StandardError().write(
            "flipaudit: follow: \(TerminalText.escape(file.name)) was truncated in place (copytruncate)\(copyRead ? "; the rest read from its copy" : copySize >= 0 ? ", read past its copy already" : ", no plain copy found"); possible gap (lines written between the copy and the truncation)\(lost > 0 ? ", \(lost) bytes seen and lost" : "")"
        )
        files.removeAll { $0 === file }
        newest[file.rank] = nil
        current[file.name] = nil
        if let again = open(file.name, offset: 0, lines: 0, now: now) { current[file.name] = again }
    }

    /// A file let go: a last line without its newline is read as it is.
    private func finish(_ file: FollowedFile) {
        var events: [FlipEvent] = []
        file.finish()
        take(file, into: &events)
        newest[file.rank] = nil
        held += events.map { ($0, Self.wallClock()) }
    }

    // MARK: Commit

    /// Commits the checkpoint (when there is one): every finding written
    /// and fsynced first. False when it could not be.
    @discardableResult
    private func commit() -> Bool {
        let now = Self.wallClock()
        lastCommit = now
        // The positions cover every record read: each is audited first.
        release(now: now, all: true)
        guard let path = run.checkpoint else { return true }
        guard stream.backlog.isEmpty, stream.sync() else {
            StandardError().write("flipaudit: follow: findings not all written and synced; the checkpoint is left as it was")
            return false
        }
        // A restored clock lies the reorder window before the watermark it came from.
        let watermark = max(tracker.now, Checkpoint.noWatermark)
        var (next, ranks) = tracker.snapshot(watermark: watermark, names: rankNames)
        next.key = configuration.fingerprint.keyBytes ?? []
        next.legacyFingerprints = false
        next.run = previousRun + 1
        next.records = duplicates.handedOn(watermark: watermark)
        var sources: [Int: UInt64] = [:]
        for (index, rank) in ranks.enumerated() where rankFingerprints.indices.contains(Int(rank)) {
            sources[index] = rankFingerprints[Int(rank)]
        }
        // Ids not decided again yet, past the time their sessions closed at the latest.
        stream.forgetWritten(before: watermark - Int64(configuration.sessionTimeoutSeconds) * 1000 - AuditConfiguration.reorderWindow)
        next.follow = FollowState(positions: files.map(\.position), sources: sources, findings: stream.mark, written: stream.written)
        do { try AtomicFile.write(bytes: next.encoded(), to: path, mode: 0o600) } catch {
            StandardError().write("flipaudit: follow: --checkpoint \(TerminalText.escape(path)): \(error); the previous commit stands")
            return false
        }
        committedOnce = true
        metrics.commits += 1
        metrics.lastCommit = Double(now) / 1000
        return true
    }

    /// The file the commit's `mark` names under a rotated name of `path`
    /// (`findings.ndjson.1`) when `path` now holds another (the open `fd`).
    static func renamedFindings(_ path: String, mark: FollowState.FindingsMark, besides fd: Int32) -> String? {
        var open = stat()
        guard fstat(fd, &open) == 0, UInt64(open.st_dev) != mark.device || UInt64(open.st_ino) != mark.inode else { return nil }
        return rotatedNames(of: path).first { name in
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
            StandardError().write(
                "flipaudit: follow: --findings \(TerminalText.escape(path)): its last line was cut off (\(bytes.count - keep) bytes, a stop in its write); cut away, its finding is written again"
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

    // MARK: Helpers

    /// `name` is not seen, for `why` (the coverage counts it until a look
    /// sees it); said once, with what the follower does about it (`then`).
    private func sayOnce(_ name: String, _ why: String, then: String) {
        unseen[name] = why
        guard said.insert(name).inserted else { return }
        StandardError().write("flipaudit: follow: \(TerminalText.escape(name)) \(why); \(then)")
    }

    static func wallClock() -> Int64 {
        var t = timespec()
        clock_gettime(CLOCK_REALTIME, &t)
        return Int64(t.tv_sec) * 1000 + Int64(t.tv_nsec) / 1_000_000
    }

    static func isPattern(_ input: String) -> Bool { input.contains { "*?[".contains($0) } }

    /// Whether `name` is one the follower follows: named, or matched by a glob.
    private func follows(_ name: String) -> Bool {
        guard !Self.isCompressed(name) else { return false }
        return run.inputs.contains { Self.isPattern($0) ? fnmatch($0, name, FNM_PATHNAME) == 0 : $0 == name }
    }

    static func isCompressed(_ name: String) -> Bool { compressed.contains { name.hasSuffix($0) } }

    static func exists(_ name: String) -> Bool {
        var info = stat()
        return stat(name, &info) == 0
    }

    /// The names a glob matches now, sorted.
    static func expand(_ pattern: String) -> [String] {
        var result = glob_t()
        defer { globfree(&result) }
        guard glob(pattern, 0, nil, &result) == 0 else { return [] }
        return (0..<Int(result.gl_pathc)).compactMap { result.gl_pathv[$0].map { String(cString: $0) } }.sorted()
    }

    /// `Follower.rotatedNames`, but the follower's own files.
    private func rotatedNames(of name: String) -> [String] {
        Self.rotatedNames(of: name).filter { !isOwn($0) }
    }

    /// The plain files of `name`'s folder, sorted, but the follower's own
    /// and compressed ones.
    private func folderFiles(of name: String) -> [String] {
        let folder = (name as NSString).deletingLastPathComponent
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder) else { return [] }
        return entries.sorted().map { folder.isEmpty ? $0 : folder + "/" + $0 }.filter { !Self.isCompressed($0) && !isOwn($0) }
    }

    /// Whether `name` is one of the follower's own files.
    private func isOwn(_ name: String) -> Bool {
        let path = FilePaths.canonical(name)
        let folder = FilePaths.directory(of: path)
        let base = FilePaths.name(of: path)
        if skipping.namesByFolder[folder]?.contains(base) == true || skipping.isTemporary(name: base, in: folder) { return true }
        return FileIdentity.of(path: name).map(skipping.contains) ?? false
    }

    /// Plain files beside `name` whose names begin with it (`access.log.1`,
    /// `access.log-20261129`): where logrotate puts a rotated file.
    static func rotatedNames(of name: String) -> [String] {
        let folder = (name as NSString).deletingLastPathComponent
        let base = (name as NSString).lastPathComponent
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder) else { return [] }
        return entries.filter { $0.hasPrefix(base) && $0 != base && !isCompressed($0) }.sorted().map {
            folder.isEmpty ? $0 : folder + "/" + $0
        }
    }

    /// The offset after the last newline of the file open on `fd`, and the
    /// lines before it.
    static func lastLineEnd(_ fd: Int32) -> (Int64, Int64) {
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var at: Int64 = 0
        var lines: Int64 = 0
        var lastEnd: Int64 = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(at)) }
            guard n > 0 else { break }
            for i in 0..<n where buffer[i] == .newline {
                lines += 1
                lastEnd = at + Int64(i) + 1
            }
            at += Int64(n)
        }
        return (lastEnd, lines)
    }
}
