import Foundation
import Reading

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The last step of a run (docs/contract.md §9, "the checkpoint is the
/// commit"): every output file is first written whole under a temporary
/// name (`AtomicFile.stage`, `CSVWriter.stageAll`); then `apply` renames
/// them all into place in one short step, the checkpoint last and only if
/// every other rename went through. A terminating signal waits for that
/// step (`hold`), so it leaves either every previous file or every new one,
/// and can say which.
///
///     stage:  sessions.csv.tmp  findings.csv.tmp  flip.json.tmp  …  flip.checkpoint.tmp
///     apply:  rename each ─────────────────────────────────────────▶ checkpoint last
///     signal: waits for apply, removes what is still temporary, says which happened
package final class OutputCommit: @unchecked Sendable {
    package static let shared = OutputCommit()

    /// A file written whole under a temporary name, waiting for its rename.
    package struct Rename {
        package var temporary: String
        package var path: String
        /// How the output is named in messages (`--json`, `--csv`).
        package var option: String
        package var shownAs: String
        package var isCheckpoint: Bool

        package init(temporary: String, path: String, option: String, shownAs: String, isCheckpoint: Bool) {
            self.temporary = temporary
            self.path = path
            self.option = option
            self.shownAs = shownAs
            self.isCheckpoint = isCheckpoint
        }
    }

    /// On the heap: a mutex must stay at one address, which a stored
    /// property passed as `&lock` is not promised to.
    private let lock: UnsafeMutablePointer<pthread_mutex_t> = {
        let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        pthread_mutex_init(lock, nil)
        return lock
    }()
    private var pending: [Rename] = []
    /// Set once `apply` has renamed the files.
    private var applied = false

    init() {}

    deinit {
        pthread_mutex_destroy(lock)
        lock.deallocate()
    }

    /// Queues a staged file for `apply`.
    package func add(_ rename: Rename) {
        pthread_mutex_lock(lock); defer { pthread_mutex_unlock(lock) }
        pending.append(rename)
    }

    /// Whether anything waits to be renamed.
    package var isEmpty: Bool {
        pthread_mutex_lock(lock); defer { pthread_mutex_unlock(lock) }
        return pending.isEmpty
    }

    /// Renames every staged file into place, the checkpoint last; the
    /// checkpoint stays where it was (its temporary file removed) when
    /// another rename failed. The failures, as `(option, error)`.
    package func apply() -> [(option: String, error: OutputError)] {
        pthread_mutex_lock(lock); defer { pthread_mutex_unlock(lock) }
        var failures: [(String, OutputError)] = []
        let ordered = pending.filter { !$0.isCheckpoint } + pending.filter(\.isCheckpoint)
        for r in ordered {
            if r.isCheckpoint && !failures.isEmpty {
                unlink(r.temporary)
                TemporaryOutputs.shared.remove(r.temporary)
                continue
            }
            if r.isCheckpoint { Self.keepPrevious(r.path) }
            if rename(r.temporary, r.path) != 0 {
                failures.append((r.option, .system(r.shownAs)))
                unlink(r.temporary)
            }
            TemporaryOutputs.shared.remove(r.temporary)
        }
        for r in ordered {
            Self.removeStale(beside: r.path)
            if r.isCheckpoint { Self.removeStale(beside: r.path + ".prev") }
        }
        for folder in Set(ordered.map { FilePaths.directory(of: $0.path) }) { AtomicFile.syncFolder(folder) }
        pending = []
        applied = true
        return failures
    }

    /// Keeps the checkpoint about to be replaced as `FILE.prev` (a hard
    /// link renamed into place: `.prev` is the old checkpoint or the one
    /// before, never half of one), so `explain` can replay the night just
    /// audited. Without a checkpoint there, or where links fail, nothing.
    static func keepPrevious(_ path: String) {
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return }
        let previous = path + ".prev"
        let temporary = FilePaths.directory(of: previous) + "/" + FilePaths.temporaryName(for: FilePaths.name(of: previous), pid: getpid())
        unlink(temporary)
        guard link(path, temporary) == 0 else { return }
        if rename(temporary, previous) != 0 { unlink(temporary) }
    }

    /// Removes the temporary files of `path` that earlier runs left when
    /// they died where no handler runs (SIGKILL, a power cut):
    /// `.NAME.PID.tmp` beside it whose PID is no running process. A live
    /// process's, or this one's, are left alone.
    static func removeStale(beside path: String) {
        let folder = FilePaths.directory(of: path), name = FilePaths.name(of: path)
        guard let files = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for file in files where FilePaths.isTemporaryName(file, for: name) {
            let middle = file.dropFirst().dropLast(4)
            guard let dot = middle.lastIndex(of: "."), let pid = Int32(middle[middle.index(after: dot)...]), pid > 0, pid != getpid(),
                // Exactly the name this output's temporary has under that
                // PID: another file that only looks alike stays.
                FilePaths.temporaryName(for: name, pid: pid) == file
            else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { unlink(folder + "/" + file) }
        }
    }

    /// For a terminating signal's handler: waits for a commit under way and
    /// keeps any from starting; whether the files were renamed. The
    /// process is to end right after (the lock is never given back).
    package func hold() -> Bool {
        pthread_mutex_lock(lock)
        return applied
    }
}
