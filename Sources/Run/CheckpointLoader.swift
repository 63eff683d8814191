import Audit
import Foundation
import Reading
import Reports
import Rules
import Writing

/// A run's checkpoint, taken in one place for every driver: locked (a run
/// that writes it), loaded and validated (`Checkpoint.load`), and the
/// fingerprint the chain is keyed by chosen — the carried one (HMAC for a
/// chain begun before version 3, SipHash after), a new key for a new chain.
/// A checkpoint that cannot be used is said and refused (exit 2) before any
/// input is read.
enum CheckpointLoader {
    /// A checkpoint taken for an audit: its lock (held until this is
    /// dropped; none for a look by hand), what it carries (nil: a new
    /// chain) and the chain's fingerprint.
    struct Taken: ~Copyable {
        let lock: CheckpointLock?
        let carried: Checkpoint?
        let fingerprint: Fingerprint
    }

    /// The fingerprint of a run that carries `carried`: a state or code
    /// fingerprinted otherwise would match nothing it remembers.
    static func fingerprint(of carried: Checkpoint?) -> Fingerprint {
        carried?.fingerprint ?? .keyed(Fingerprint.newKey())
    }

    /// Which chain a checkpoint carries: a nightly run's or a follower's.
    /// Each refuses the other's (exit 2): their states do not mix.
    enum Chain {
        case nightly, follow

        /// Who says its messages.
        var diagnostics: Diagnostics { self == .nightly ? .audit : .follow }
        /// What a refusal ends with: a nightly run writes its outputs at
        /// the end, a follower its findings from the start.
        var nothing: String { self == .nightly ? "nothing written" : "nothing read" }
    }

    /// The checkpoint at `path` for an audit or a follower: locked unless
    /// `dryRun` (a look by hand reads a whole file a commit renamed into
    /// place), its lock and (for a look by hand) itself added to what a
    /// directory walk or a follower's pattern skips, its kind checked
    /// against `chain`. A missing checkpoint starts a chain (said once).
    /// `path` is the file itself (`CheckpointLock.target`): through a
    /// symbolic link, both drivers lock and write the link's target.
    /// `say`: where its messages go (the chain's driver on standard error
    /// when nil; a follower passes its own).
    static func take(
        _ path: String, for chain: Chain = .nightly, dryRun: Bool = false, plan: inout OutputPlan, say: ((String) -> Void)? = nil
    ) throws(ExitStatus) -> Taken {
        let say = say ?? chain.diagnostics.say
        let shown = TerminalText.escape(path)
        var lock: CheckpointLock?
        if !dryRun {
            do { lock = try CheckpointLock(checkpoint: path) } catch {
                say("--checkpoint \(shown) \(error)")
                plan.removeMadeFolders()
                throw .usage
            }
        }
        // A folder read as input skips the lock as it skips the checkpoint.
        let lockPath = CheckpointLock.path(for: path)
        for file in dryRun ? [path, lockPath] : [lockPath] {
            if let identity = FileIdentity.of(path: file) { plan.ownOutputs.identities.insert(identity) }
        }
        plan.ownOutputs.namesByFolder[FilePaths.directory(of: FilePaths.canonical(lockPath)), default: []].append(FilePaths.name(of: lockPath))
        // A follower's journal beside it (`CheckpointJournal`): its own too.
        let journalPath = CheckpointJournal.path(of: path)
        if chain == .follow {
            plan.ownOutputs.namesByFolder[FilePaths.directory(of: FilePaths.canonical(journalPath)), default: []].append(FilePaths.name(of: journalPath))
        }
        var carried: Checkpoint?
        do {
            carried = try Checkpoint.load(path)
            if chain == .follow, let snapshot = carried, snapshot.follow != nil, let journal = FileManager.default.contents(atPath: journalPath) {
                let bytes = FileManager.default.contents(atPath: path).map(Array.init) ?? []
                let read = try CheckpointJournal.apply(Array(journal), to: snapshot, snapshotBytes: bytes)
                carried = read.checkpoint
                let shownJournal = TerminalText.escape(journalPath)
                if read.stale {
                    say(
                        "--checkpoint \(shown): \(shownJournal) follows an earlier snapshot (a compaction cut short): left out, the snapshot holds it")
                }
                if read.cutOff > 0 {
                    say(
                        "--checkpoint \(shown): the last commit in \(shownJournal) was cut off (\(read.cutOff) bytes, a stop in its write); the one before stands"
                    )
                }
            }
            // A follower numbers files by rank as it goes: read back, they
            // are numbered afresh (the ones no session names left out).
            if chain == .follow, carried?.follow != nil { carried = carried?.renumbered() }
        } catch {
            say("--checkpoint \(shown): \(TerminalText.escape("\(error)")); \(chain.nothing)")
            plan.removeMadeFolders()
            throw .usage
        }
        if let carried, (carried.follow != nil) != (chain == .follow) {
            say(
                chain == .nightly
                    ? "--checkpoint \(shown) is a follower's checkpoint (flipaudit follow); a nightly chain keeps its own; nothing written"
                    : "--checkpoint \(shown) is a nightly run's checkpoint; a follower keeps its own (name another file)")
            plan.removeMadeFolders()
            throw .usage
        }
        if carried == nil { say("--checkpoint \(shown) does not exist: starting fresh") }
        return Taken(lock: lock, carried: carried, fingerprint: fingerprint(of: carried))
    }

    /// The checkpoint at `path` as it stood before the run that audited
    /// `inputs` (`explain`): `FILE.prev`, which the commit keeps, when
    /// FILE's last run audited one of them (by its digest); none when that
    /// run began the chain (run 1: nothing stood before it); FILE
    /// otherwise. Never locked or written; a missing one is an error.
    static func forReplay(_ path: String, inputs: [String]) throws(ExitStatus) -> (carried: Checkpoint?, fingerprint: Fingerprint) {
        let replay: Replay?
        do { replay = try replayed(path, inputs: inputs) } catch {
            Diagnostics.explain.say("--checkpoint \(TerminalText.escape(path)): \(error)")
            throw .usage
        }
        switch replay {
        case nil:
            Diagnostics.explain.say("--checkpoint \(TerminalText.escape(path)) does not exist")
            throw .usage
        case .chainStart?:
            return (nil, fingerprint(of: nil))
        case .checkpoint(let carried)?:
            return (carried, fingerprint(of: carried))
        }
    }

    /// What a replay starts from.
    enum Replay {
        /// This checkpoint.
        case checkpoint(Checkpoint)
        /// Nothing: the inputs were audited by the chain's first run.
        case chainStart
    }

    /// What the run that audited `inputs` started from (nil when `path` is missing).
    static func replayed(_ path: String, inputs: [String]) throws -> Replay? {
        guard let current = try Checkpoint.load(path) else { return nil }
        if current.follow != nil { throw Checkpoint.Damaged(description: "is a follower's checkpoint (flipaudit follow), not a nightly one") }
        let digests = Set(inputs.compactMap { FileDigest.of(path: $0) })
        let audited = current.audited.filter { digests.contains($0.digest) }
        guard !audited.isEmpty else { return .checkpoint(current) }
        let previous = path + ".prev"
        if FileManager.default.fileExists(atPath: previous), let before = try Checkpoint.load(previous) { return .checkpoint(before) }
        // No .prev: when the chain's first run audited them, nothing stood before.
        if current.run == 1 && audited.allSatisfy({ $0.run == 1 }) { return .chainStart }
        return .checkpoint(current)
    }
}
