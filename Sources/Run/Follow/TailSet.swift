import Foundation
import Reading
import Reports
import Rules

/// The files a follower reads, and every decision about them: which file
/// a name holds, a rename, a deletion, a truncation in place, a file
/// rotated in and out while the follower was stopped, and when a rotated
/// file is let go (docs/follow.md, "Rotation"). Everything it knows of
/// files comes through a `FileSystem` and its clock, so the follow tests
/// replay random rotations, restarts and kills over a model of one.
///
/// `scan` is a turn's look before reading, `retire` the one after; each
/// returns what changed, in order. Lines read before a rename are handed
/// on under the old name (`handOn`), before the file takes the new one.
///
/// Not `Sendable`: the follow loop owns it.
final class TailSet {
    /// What changed in one look.
    enum Change: Equatable {
        /// A file opened under a name (`rank`: its lines' `SourceRef.file`).
        case opened(name: String, rank: Int32)
        /// A file that left its name is read on under a rotated name.
        case renamed(from: Int32, to: Int32)
        /// A file truncated in place (copytruncate), its rest read from its
        /// copy or not; it is read again from its start under a new rank.
        case truncated(rank: Int32)
        /// A rotated file read to its end and let go.
        case letGo(FollowedFile)
        /// A checkpoint's file found nowhere: a possible gap.
        case gone(name: String)

        static func == (a: Change, b: Change) -> Bool {
            switch (a, b) {
            case (.opened(let x, let r), .opened(let y, let s)): return x == y && r == s
            case (.renamed(let x, let r), .renamed(let y, let s)): return x == y && r == s
            case (.truncated(let r), .truncated(let s)): return r == s
            case (.letGo(let f), .letGo(let g)): return f === g
            case (.gone(let x), .gone(let y)): return x == y
            default: return false
            }
        }
    }

    /// Time a rotated file that no longer grows is kept open (milliseconds):
    /// a server may still write to it until it reopens its log.
    static let rotationGrace: Int64 = 2000
    /// Time a rotated file is kept at most while the name it left holds no
    /// file written to (milliseconds): its server has not reopened its log.
    static let rotationHold: Int64 = 300_000
    /// Suffixes of files that are never followed.
    static let compressed = [".gz", ".bz2", ".xz", ".zst", ".lz4", ".Z", ".zip"]

    let fs: any FileSystem
    private let inputs: [String]
    private let fromStart: Bool
    private let skipping: OwnOutputs
    private let configuration: AuditConfiguration
    private let key: Fingerprint
    private let metrics: FollowMetrics
    /// The most files open at once (descriptors kept for the rest).
    private let openLimit: Int
    /// Where a reason it gives is said (standard error).
    private let say: (String) -> Void
    /// Hands on a file's lines read so far, before it takes another name.
    var handOn: (FollowedFile) -> Void = { _ in }

    /// The files open, oldest first: read in this order.
    private(set) var files: [FollowedFile] = []
    /// The file each followed name holds now.
    private(set) var current: [String: FollowedFile] = [:]
    /// The name each rank was read under, and its file's fingerprint (0
    /// while the file has no first line): ranks are never reused.
    private(set) var rankNames: [String]
    private(set) var rankFingerprints: [UInt64]
    /// Names followed but not seen, with why (the coverage counts them).
    private(set) var unseen: [String: String] = [:]
    /// Names whose trouble was said (said once until seen again).
    private var said: Set<String> = []
    /// No checkpoint was taken in; the names have not been looked at yet.
    private var fresh = true
    private var looked = false
    /// When the names were last looked at (nil: not yet in this life).
    private var lookedAt: Int64?
    /// Followed names whose file left them in this look.
    private var left: Set<String> = []
    /// Files let go, by identity, with where they were read to: one
    /// found again beside a followed name is not read twice (the last 64).
    private var finished: [(identity: FileIdentity, fingerprint: UInt64?, offset: Int64, lines: Int64)] = []
    private var changes: [Change] = []

    init(
        fs: any FileSystem, inputs: [String], fromStart: Bool, skipping: OwnOutputs, configuration: AuditConfiguration, metrics: FollowMetrics,
        carried: Checkpoint?, openLimit: Int, say: @escaping (String) -> Void
    ) {
        self.fs = fs
        self.inputs = inputs
        self.fromStart = fromStart
        self.skipping = skipping
        self.configuration = configuration
        key = configuration.fingerprint
        self.metrics = metrics
        self.openLimit = openLimit
        self.say = say
        rankNames = carried?.files ?? []
        rankFingerprints = rankNames.indices.map { carried?.follow?.sources[$0] ?? 0 }
    }

    /// Bytes written to open files and not yet read.
    var unread: Int64 { files.reduce(0) { $0 + $1.unread } }

    /// The name and fingerprint a rank's lines were read under ("?" for none).
    func source(_ rank: Int32) -> (String, UInt64) {
        let i = Int(rank)
        return rankNames.indices.contains(i) ? (rankNames[i], rankFingerprints[i]) : ("?", 0)
    }

    // MARK: A turn

    /// Looks at every name (a new file, one renamed away or deleted, one
    /// replaced by another), then at every file followed for a truncation
    /// in place: what changed, before this turn's reading.
    func scan(now: Int64) -> [Change] {
        unseen = [:]
        for input in inputs {
            if Self.isPattern(input) {
                let names = fs.expand(input)
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
        for (name, file) in current.sorted(by: { $0.key < $1.key }) where (try? fs.look(name).get()) == nil {
            rotated(file, now: now)
            current[name] = nil
        }
        // Rotated more than once since the last look (a file came and left
        // a name unseen): beside the name, what was written since is read.
        if let since = lookedAt, !left.isEmpty {
            sweep(names: left.sorted(), since: since, now: now, while: "between two looks")
        }
        left = []
        looked = true
        lookedAt = now
        for file in files where file.rotatedAt == nil && file.wasTruncated(key: key) { truncated(file, now: now) }
        return takeChanges()
    }

    /// After reading: lets go of rotated files read to their end that no
    /// longer grow, once the name they left holds a file that has been
    /// written to: until then its server may not have reopened its log,
    /// and writes late to the old file (a graceful restart, a late USR1).
    func retire(now: Int64) -> [Change] {
        // The names that hold a file written to (not read inside removeAll).
        let written = Set(files.filter { $0.rotatedAt == nil && ($0.size ?? 0) > 0 }.map(\.name))
        files.removeAll { file in
            guard let at = file.rotatedAt, file.unread == 0, now - max(at, file.grewAt) >= Self.rotationGrace else { return false }
            if let left = file.leftName, !written.contains(left) {
                guard now - max(at, file.grewAt) >= Self.rotationHold else { return false }
                say(
                    "\(TerminalText.escape(file.name)) let go \(Self.rotationHold / 1000) s after its last write, though nothing was written to \(TerminalText.escape(left)) since it left that name: a later write to it is not read"
                )
            }
            changes.append(.letGo(file))
            finished.append(
                (file.identity, file.fingerprint, file.offset + Int64(file.pendingCount), file.lines + (file.pendingCount > 0 ? 1 : 0)))
            if finished.count > 64 { finished.removeFirst() }
            return true
        }
        return takeChanges()
    }

    /// A file read this turn may have its first line now: its rank's
    /// fingerprint (a finding's id) from then on.
    func noteFirstLine(_ file: FollowedFile) {
        if rankFingerprints[Int(file.rank)] == 0, let f = file.fingerprint { rankFingerprints[Int(file.rank)] = f }
    }

    private func takeChanges() -> [Change] {
        defer { changes = [] }
        return changes
    }

    // MARK: Names and rotations

    private func check(_ name: String, named: Bool, now: Int64) {
        let info: FileInfo
        switch fs.look(name) {
        case .success(let found):
            info = found
        case .failure(let error):
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
                let why = error.isMissing ? "does not exist (yet)" : "cannot be looked at: \(error.text)"
                sayOnce(name, why, then: "looked for again every \(FileWatch.tick) ms")
            }
            return
        }
        if Self.isCompressed(name) {
            sayOnce(name, "is compressed: never followed", then: "a batch run reads rotated files whole")
            return
        }
        guard info.isRegular else {
            sayOnce(name, info.isDirectory ? "is a directory, not a log file" : "is not a regular file", then: "looked at again")
            return
        }
        if let file = current[name] {
            if file.identity == info.identity { return }
            rotated(file, now: now)
            current[name] = nil
        }
        // Already read under another name (a file renamed onto this one).
        if isOpen(info) { return }
        // A file there when a fresh follower starts is read from its end;
        // any other from its start: it came after.
        let fromEnd = !looked && fresh && !fromStart
        if let file = open(name, offset: 0, lines: 0, now: now, fromEnd: fromEnd) {
            current[name] = file
            said.remove(name)
        }
    }

    /// A file that left its name: renamed (its lines are named by its new
    /// name from now on) or deleted; read to its end, then let go.
    private func rotated(_ file: FollowedFile, now: Int64) {
        guard file.rotatedAt == nil else { return }
        file.rotatedAt = now
        file.leftName = file.name
        if follows(file.name) { left.insert(file.name) }
        metrics.rotations += 1
        for name in rotatedNames(of: file.name) {
            guard case .success(let info) = fs.look(name), info.identity == file.identity else { continue }
            // Its lines already read keep the old name.
            handOn(file)
            let rank = Int32(rankNames.count)
            rankNames.append(name)
            rankFingerprints.append(rankFingerprints[Int(file.rank)])
            changes.append(.renamed(from: file.rank, to: rank))
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
        guard files.count < openLimit else {
            let why =
                "not opened: \(files.count) files open, \(Follower.descriptorLimit) descriptors allowed (ulimit -n), "
                + "\(Follower.descriptorReserve) kept for findings, checkpoint and --listen"
            sayOnce(name, why, then: "raise LimitNOFILE, or follow fewer files")
            return nil
        }
        let handle: Int32
        switch fs.open(name) {
        case .success(let opened): handle = opened
        case .failure(let error):
            sayOnce(name, "cannot be read: \(error.text)", then: "tried again")
            return nil
        }
        guard let info = fs.info(handle), info.isRegular, let scanner = try? LineScanner(fileIndex: Int32(rankNames.count), configuration: configuration)
        else {
            fs.close(handle)
            return nil
        }
        var at = (offset, lines)
        if fromEnd { at = lastLineEnd(handle) }
        let rank = Int32(rankNames.count)
        let file = FollowedFile(
            handle: handle, in: fs, info: info, name: name, rank: rank, offset: at.0, lines: at.1, scanner: scanner, maxLine: configuration.maxLine,
            key: key, now: now)
        rankNames.append(name)
        rankFingerprints.append(file.fingerprint ?? 0)
        files.append(file)
        changes.append(.opened(name: name, rank: rank))
        return file
    }

    /// Picks up the files of a checkpoint's positions: by device and inode
    /// first, under their name or a rotated one; else a plain copy with the
    /// same first line (copytruncate while stopped). What cannot be found is
    /// a possible gap, said. `fresh`: no checkpoint was taken in.
    func resume(_ positions: [FollowState.Position], fresh: Bool, committedAt: Int64) -> [Change] {
        self.fresh = fresh
        let now = fs.now
        for p in positions {
            let identity = FileIdentity(device: p.device, inode: p.inode)
            // Its name, its rotation names, then any file of its folder: a
            // file read as access.log.1 may be access.log.2 by now.
            var candidates = [p.name] + rotatedNames(of: p.name)
            candidates += folderFiles(of: p.name).filter { !candidates.contains($0) }
            var found: (name: String, copy: Bool)?
            for name in candidates {
                guard case .success(let info) = fs.look(name), info.isRegular, !isOpen(info) else { continue }
                let same = info.identity == identity
                // Empty when committed: known by its inode alone.
                if p.fingerprint == FollowState.Position.empty {
                    if same { found = (name, false) }
                    if same { break } else { continue }
                }
                guard case .success(let handle) = fs.open(name) else { continue }
                let fingerprint = FollowedFile.firstLineFingerprint(handle, in: fs, key: key)
                fs.close(handle)
                guard fingerprint == p.fingerprint else { continue }
                found = (name, !same)
                if same { break }
            }
            guard let found else {
                changes.append(.gone(name: p.name))
                let shown = TerminalText.escape(p.name)
                guard let copy = compressedCopy(of: p) else {
                    metrics.gaps += 1
                    say("\(shown): the file read up to byte \(p.offset) is gone (deleted, or compressed other than by gzip); possible gap")
                    continue
                }
                // Its gzip trailer gives its length modulo 2^32: past that,
                // only the difference modulo 2^32 can be told.
                let unread =
                    p.offset < 1 << 32
                    ? max(0, Int64(copy.length) - p.offset) : Int64(copy.length &- UInt32(truncatingIfNeeded: p.offset))
                let compressed = TerminalText.escape(copy.name)
                if unread == 0 {
                    say("\(shown): the file read up to byte \(p.offset) was compressed since, as \(compressed), read to its end already")
                } else {
                    metrics.gaps += 1
                    say(
                        "\(shown): the file read up to byte \(p.offset) was compressed since, as \(compressed), \(unread) bytes not read; possible gap (a batch run over \(compressed) reads them)"
                    )
                }
                continue
            }
            if found.copy {
                // Only a copy holds the rest: lines written after the copy
                // may be in neither file, counted and said as a live one is.
                metrics.rotations += 1
                metrics.gaps += 1
                let shown = TerminalText.escape(p.name)
                let copy = TerminalText.escape(found.name)
                let inPlace = (try? fs.look(p.name).get())?.identity == identity
                say(
                    inPlace
                        ? "\(shown) was truncated in place (copytruncate) while the follower was stopped; the rest read from its copy \(copy); possible gap (lines written between the copy and the truncation)"
                        : "\(shown): the file read up to byte \(p.offset) is gone; the rest read from its copy \(copy); possible gap (lines written after the copy)"
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
                // Renamed away from a followed name (since the commit or
                // before): its server may still write to it until it
                // reopens that name, and a restart cannot know it has.
                if !found.copy { file.leftName = followedName(of: found.name) ?? (follows(p.name) ? p.name : nil) }
            }
        }
        if !fresh {
            sweep(names: Set(positions.map(\.name)).filter(follows).sorted(), since: committedAt, now: now, while: "while the follower was stopped")
        }
        return takeChanges()
    }

    /// Files rotated in and out unseen, while the follower was stopped or
    /// between two looks: beside a followed name, every rotated file
    /// written since then that is not open (the middle one of two
    /// rotations, a copy of a file empty at the commit) holds only lines
    /// never read: it is read from its start, oldest first; one let go
    /// before, from where it was let go. (One compressed already is not
    /// read: docs/follow.md asks for `delaycompress`.)
    private func sweep(names: [String], since: Int64, now: Int64, while when: String) {
        for followed in names {
            var found: [(name: String, info: FileInfo)] = []
            // A name followed itself is the look's to open (from its start).
            for name in rotatedNames(of: followed) where !follows(name) {
                guard case .success(let info) = fs.look(name), info.isRegular, info.modified >= since, !isOpen(info) else { continue }
                found.append((name, info))
            }
            for (name, info) in found.sorted(by: { ($0.info.modified, $0.name) < ($1.info.modified, $1.name) }) {
                // Let go before, and still that file: its inode and its first
                // line (a deleted file's inode may hold a new file by now).
                var before = finished.last { $0.identity == info.identity }
                if let known = before, case .success(let handle) = fs.open(name) {
                    if FollowedFile.firstLineFingerprint(handle, in: fs, key: key) != known.fingerprint { before = nil }
                    fs.close(handle)
                }
                if let before, info.size <= before.offset { continue }
                guard let file = open(name, offset: before?.offset ?? 0, lines: before?.lines ?? 0, now: now) else { continue }
                file.rotatedAt = now
                say(
                    before.map { "\(TerminalText.escape(name)) was written to after it was let go: read on from byte \($0.offset)" }
                        ?? "\(TerminalText.escape(name)) was rotated in and out \(when): read from its start")
            }
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
            guard case .success(let info) = fs.look(name), info.isRegular, !isOpen(info), case .success(let handle) = fs.open(name) else { continue }
            let fingerprint = FollowedFile.firstLineFingerprint(handle, in: fs, key: key)
            fs.close(handle)
            guard fingerprint != nil, fingerprint == file.fingerprint else { continue }
            copySize = info.size
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
        say(
            "\(TerminalText.escape(file.name)) was truncated in place (copytruncate)\(copyRead ? "; the rest read from its copy" : copySize >= 0 ? ", read past its copy already" : ", no plain copy found"); possible gap (lines written between the copy and the truncation)\(lost > 0 ? ", \(lost) bytes seen and lost" : "")"
        )
        files.removeAll { $0 === file }
        changes.append(.truncated(rank: file.rank))
        current[file.name] = nil
        if let again = open(file.name, offset: 0, lines: 0, now: now) { current[file.name] = again }
    }

    // MARK: Helpers

    /// `name` is not seen, for `why` (the coverage counts it until a look
    /// sees it); said once, with what the follower does about it (`then`).
    private func sayOnce(_ name: String, _ why: String, then: String) {
        unseen[name] = why
        guard said.insert(name).inserted else { return }
        say("\(TerminalText.escape(name)) \(why); \(then)")
    }

    /// A gzip'd copy of a checkpoint's file beside its name (logrotate's
    /// `compress`; with `delaycompress`, two rotations while stopped): the
    /// one whose first line is the file's, and the length its trailer
    /// gives.
    private func compressedCopy(of p: FollowState.Position) -> (name: String, length: UInt32)? {
        let base = (p.name as NSString).lastPathComponent
        for name in fs.paths(in: (p.name as NSString).deletingLastPathComponent) ?? [] {
            guard name.hasSuffix(".gz"), (name as NSString).lastPathComponent.hasPrefix(base), case .success(let info) = fs.look(name),
                info.isRegular, info.size >= 18, case .success(let handle) = fs.open(name)
            else { continue }
            defer { fs.close(handle) }
            guard let head = GzipInflater.head(of: fs.read(handle, at: 0, count: 1 << 16), count: FollowedFile.fingerprintBytes),
                FollowedFile.firstLineFingerprint(of: head, key: key) == p.fingerprint
            else { continue }
            let trailer = fs.read(handle, at: info.size - 4, count: 4)
            guard trailer.count == 4 else { continue }
            return (name, trailer.reversed().reduce(0) { $0 << 8 | UInt32($1) })
        }
        return nil
    }

    /// Whether the file `info` shows is open already, under any name.
    private func isOpen(_ info: FileInfo) -> Bool { files.contains { $0.identity == info.identity } }

    static func isPattern(_ input: String) -> Bool { input.contains { "*?[".contains($0) } }

    static func isCompressed(_ name: String) -> Bool { compressed.contains { name.hasSuffix($0) } }

    /// Whether `name` is one the follower follows: named, or matched by a glob.
    func follows(_ name: String) -> Bool {
        guard !Self.isCompressed(name) else { return false }
        return inputs.contains { Self.isPattern($0) ? fnmatch($0, name, FNM_PATHNAME) == 0 : $0 == name }
    }

    /// The followed name a rotated file's name comes from (`access.log`
    /// for `access.log.2`): the longest followed name beside it that
    /// begins its name.
    private func followedName(of rotated: String) -> String? {
        let base = (rotated as NSString).lastPathComponent
        return (fs.paths(in: (rotated as NSString).deletingLastPathComponent) ?? []).filter {
            $0 != rotated && follows($0) && base.hasPrefix(($0 as NSString).lastPathComponent)
        }.max { $0.count < $1.count }
    }

    /// Plain files beside `name` whose names begin with it (`access.log.1`,
    /// `access.log-20261129`): where logrotate puts a rotated file; not
    /// compressed, not the follower's own.
    func rotatedNames(of name: String) -> [String] { Self.rotatedNames(of: name, in: fs).filter { !isOwn($0) } }

    /// Plain files beside `name` in `fs` whose names begin with it, not
    /// compressed, sorted.
    static func rotatedNames(of name: String, in fs: any FileSystem) -> [String] {
        let folder = (name as NSString).deletingLastPathComponent
        let base = (name as NSString).lastPathComponent
        return (fs.paths(in: folder) ?? []).filter {
            let entry = ($0 as NSString).lastPathComponent
            return entry.hasPrefix(base) && entry != base && !isCompressed(entry)
        }
    }

    /// The plain files of `name`'s folder, sorted, but the follower's own
    /// and compressed ones.
    private func folderFiles(of name: String) -> [String] {
        (fs.paths(in: (name as NSString).deletingLastPathComponent) ?? []).filter { !Self.isCompressed($0) && !isOwn($0) }
    }

    /// Whether `name` is one of the follower's own files.
    private func isOwn(_ name: String) -> Bool {
        let path = FilePaths.canonical(name)
        let folder = FilePaths.directory(of: path)
        let base = FilePaths.name(of: path)
        if skipping.namesByFolder[folder]?.contains(base) == true || skipping.isTemporary(name: base, in: folder) { return true }
        return (try? fs.look(name).get()).map { skipping.contains($0.identity) } ?? false
    }

    /// The offset after the last newline of the file open on `handle`,
    /// and the lines before it.
    private func lastLineEnd(_ handle: Int32) -> (Int64, Int64) {
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var at: Int64 = 0
        var lines: Int64 = 0
        var lastEnd: Int64 = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { fs.read(handle, at: at, into: $0) }
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
