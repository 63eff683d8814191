import Foundation

/// State that reading threads hand work through: one lock around it, and a
/// thread that finds nothing it can do asleep until another thread changes
/// the state in a way that lets it go on. The one place where reading
/// threads meet: `ThreadedFeed`'s queue of batches, `ChunkPrefetcher`'s
/// pool of chunks and `SharedFeed`'s pieces all live in one.
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
///   `until` now holds is woken, and no other: a sleeper misses no change it
///   waits for, and a change that helps no one costs no wake-up.
/// * Turns are short: they never block and never enter another `HandOff`.
///   Whoever uses one makes sure some thread is always awake to take the
///   turn the sleepers wait for.
///
/// `@unchecked Sendable`: it exists to be shared between threads, and its
/// mutable storage (`state`, `sleepers`) is touched only with the lock held.
package final class HandOff<State>: @unchecked Sendable {
    private let condition = NSCondition()
    private var state: State
    /// Threads asleep in `wait`, with what each one waits for.
    private var sleepers: [Sleeper] = []
    private var nextTicket = 0

    private struct Sleeper {
        let ticket: Int
        let until: (State) -> Bool
    }

    package init(_ state: State) {
        self.state = state
    }

    /// Takes turns at `step` until it returns a value, and returns that.
    /// Between turns the thread sleeps until another thread's turn leaves
    /// `until` true: what `step` needs, or more (a producer that found no
    /// room may sleep until there is room for several items). A closure
    /// that captures nothing costs no allocation.
    package func wait<Result>(for step: (inout State) -> Result?, until: @escaping (State) -> Bool) -> Result {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let result = step(&state) {
                wakeSleepers()
                return result
            }
            let ticket = nextTicket
            nextTicket &+= 1
            sleepers.append(Sleeper(ticket: ticket, until: until))
            // Woken means taken off `sleepers`; anything else is spurious.
            while sleepers.contains(where: { $0.ticket == ticket }) { condition.wait() }
        }
    }

    /// Takes one turn at `change`.
    @discardableResult
    package func change<Result>(_ change: (inout State) -> Result) -> Result {
        condition.lock()
        defer { condition.unlock() }
        let result = change(&state)
        wakeSleepers()
        return result
    }

    /// Wakes the sleepers whose condition holds (lock held).
    private func wakeSleepers() {
        guard !sleepers.isEmpty else { return }
        let before = sleepers.count
        sleepers.removeAll { $0.until(state) }
        if sleepers.count < before { condition.broadcast() }
    }
}
