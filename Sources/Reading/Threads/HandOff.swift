#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// State that reading threads hand work through: one lock around it, and a
/// thread that finds nothing it can do asleep until another thread changes
/// the state in a way that lets it go on. Where reading threads meet: a
/// `Feed`'s pieces, `WorkerThread`'s idle threads and its shared `map`.
///
/// A *turn* runs a closure on the state with the lock held. Invariants:
///
/// * The state is read and changed only in turns. The lock orders turns, so
///   a turn sees every earlier turn's changes, and the bytes a thread wrote
///   (into buffers the state names) before a turn in which it handed them
///   over.
/// * A turn of `wait` that returns nil changes nothing; the thread then
///   sleeps and takes another turn once woken.
/// * After every turn that returns a value, each sleeping thread whose
///   `until` now holds is woken, and no other: each sleeper waits on a
///   condition variable of its own, so a change wakes exactly the threads
///   it helps (a shared one woke every sleeper to look, and most went back
///   to sleep).
/// * Turns are short: they never block and never enter another `HandOff`.
///   Whoever uses one makes sure some thread is always awake to take the
///   turn the sleepers wait for.
///
/// `@unchecked Sendable`: it exists to be shared between threads, and its
/// mutable storage (`state`, `sleepers`) is touched only with the lock held.
package final class HandOff<State>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var state: State
    /// Threads asleep in `wait`, with what each one waits for.
    private var sleepers: [Sleeper] = []

    /// A thread asleep in `wait`: its condition variable, what it waits
    /// for, and whether a turn has woken it (taken it off `sleepers`).
    private final class Sleeper {
        let wake: UnsafeMutablePointer<pthread_cond_t>
        let until: (State) -> Bool
        var woken = false

        init(until: @escaping (State) -> Bool) {
            self.until = until
            wake = .allocate(capacity: 1)
            pthread_cond_init(wake, nil)
        }

        deinit {
            pthread_cond_destroy(wake)
            wake.deallocate()
        }
    }

    package init(_ state: State) {
        self.state = state
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Takes turns at `step` until it returns a value, and returns that.
    /// Between turns the thread sleeps until another thread's turn leaves
    /// `until` true: what `step` needs, or more (a producer that found no
    /// room may sleep until there is room for several items). A closure
    /// that captures nothing costs no allocation.
    package func wait<Result>(for step: (inout State) -> Result?, until: @escaping (State) -> Bool) -> Result {
        pthread_mutex_lock(mutex)
        while true {
            if let result = step(&state) {
                let woken = wakeable()
                pthread_mutex_unlock(mutex)
                signal(woken)
                return result
            }
            let sleeper = Sleeper(until: until)
            sleepers.append(sleeper)
            // Woken means taken off `sleepers`; anything else is spurious.
            while !sleeper.woken { pthread_cond_wait(sleeper.wake, mutex) }
        }
    }

    /// Takes one turn at `change`.
    @discardableResult
    package func change<Result>(_ change: (inout State) -> Result) -> Result {
        pthread_mutex_lock(mutex)
        let result = change(&state)
        let woken = wakeable()
        pthread_mutex_unlock(mutex)
        signal(woken)
        return result
    }

    /// Takes off `sleepers` those whose condition holds, marked woken
    /// (lock held).
    private func wakeable() -> [Sleeper] {
        guard !sleepers.isEmpty else { return [] }
        var woken: [Sleeper] = []
        sleepers.removeAll { sleeper in
            guard sleeper.until(state) else { return false }
            sleeper.woken = true
            woken.append(sleeper)
            return true
        }
        return woken
    }

    /// Signals each woken sleeper on its own condition variable, after the
    /// turn's lock is released: a thread woken while the lock is held would
    /// wake only to wait for it. A sleeper that saw `woken` first does not
    /// wait at all; holding it here keeps its condition variable alive.
    private func signal(_ woken: [Sleeper]) {
        for sleeper in woken { pthread_cond_signal(sleeper.wake) }
    }
}
