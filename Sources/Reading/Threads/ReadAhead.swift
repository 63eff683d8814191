import DequeModule
import Foundation

/// Inputs the merge will open soon, read by at most as many threads as
/// there are cores, one input after another in the order they were
/// offered. A folder of small rotated files is read this way: the input
/// the merge needs next is the oldest one offered, so it is read first
/// instead of sharing the cores with every input read ahead of it.
///
/// A job offered here must give way to the merge: an input that the merge
/// pulls before a reader took it is started on a thread of its own
/// (`ThreadedFeed` claims it once), so a reader waiting for room in one
/// input's queue never holds up an input the merge waits for.
package final class ReadAhead: Sendable {
    /// Jobs not taken yet, how many threads are taking them, and whether
    /// the merge that offered them has stopped.
    private let state = HandOff((waiting: Deque<@Sendable () -> Void>(), readers: 0, cancelled: false))
    private let limit: Int

    package init(readers: Int = ProcessInfo.processInfo.activeProcessorCount) {
        limit = max(1, readers)
    }

    /// Queues `job`; starts a reader when fewer than the limit run.
    package func offer(_ job: @escaping @Sendable () -> Void) {
        let startReader = state.change { s -> Bool in
            guard !s.cancelled else { return false }
            s.waiting.append(job)
            guard s.readers < limit else { return false }
            s.readers += 1
            return true
        }
        if startReader { WorkerThread.scan.start { [self] in drain() } }
    }

    /// Drops the jobs not taken yet: the merge stopped (its pass ended, or
    /// the input runs back in time and is read again sorted), so nobody
    /// will pull what they would read.
    package func cancel() {
        state.change { s in
            s.cancelled = true
            s.waiting.removeAll()
        }
    }

    /// Runs jobs in order until none waits.
    private func drain() {
        while true {
            let job = state.change { s -> (@Sendable () -> Void)? in
                if let job = s.waiting.popFirst() { return job }
                s.readers -= 1
                return nil
            }
            guard let job else { return }
            job()
        }
    }
}
