#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Temporary output files not yet renamed into place: removed when the run
/// is interrupted by a signal (INT, TERM, HUP, QUIT, USR1, USR2), so no
/// partial output is left behind.
package final class TemporaryOutputs: @unchecked Sendable {
    package static let shared = TemporaryOutputs()
    /// On the heap: a mutex must stay at one address, which a stored
    /// property passed as `&lock` is not promised to.
    private let lock: UnsafeMutablePointer<pthread_mutex_t> = {
        let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        pthread_mutex_init(lock, nil)
        return lock
    }()
    private var paths: Set<String> = []
    /// Set by `removeAll`: the run is ending, no file may be made now.
    private var closed = false

    /// The process has one (`shared`); tests make their own.
    init() {}

    deinit {
        pthread_mutex_destroy(lock)
        lock.deallocate()
    }

    /// Creates (truncates) `path` for writing and registers it, both under
    /// the lock that `removeAll` takes: a signal can come between the two
    /// steps of a caller that made the file first and registered it after
    /// (the file was then left behind), but not inside this call. After
    /// `removeAll` it creates nothing: -1, `errno` EINTR.
    package func create(_ path: String) -> Int32 {
        pthread_mutex_lock(lock); defer { pthread_mutex_unlock(lock) }
        guard !closed else { errno = EINTR; return -1 }
        // Never through a symlink planted under the temporary name.
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o644)
        if fd >= 0 { paths.insert(path) }
        return fd
    }

    package func remove(_ path: String) {
        pthread_mutex_lock(lock); defer { pthread_mutex_unlock(lock) }
        paths.remove(path)
    }

    /// Deletes every registered file; none is created after it.
    package func removeAll() {
        pthread_mutex_lock(lock); defer { pthread_mutex_unlock(lock) }
        closed = true
        for path in paths { unlink(path) }
        paths.removeAll()
    }
}
