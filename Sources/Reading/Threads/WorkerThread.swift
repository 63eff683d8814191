import Foundation

/// The threads that read inputs besides the caller's, and how each one is
/// started: named (as `top -H` and debuggers show it), on a thread kept
/// from earlier work when one is idle. A worker runs its body to the end;
/// everything it shares with other threads goes through a `HandOff`.
///
/// Threads are kept because a folder of thousands of small rotated files
/// would otherwise start and end a thread for every file: the kernel maps
/// and unmaps a stack each time, and the allocator's per-thread caches
/// start cold.
package enum WorkerThread {
    /// A `Feed`'s worker: inflates and cuts inputs, scans pieces.
    case read
    /// `WorkerThread.map`'s helper: looks at inputs' first records.
    case look

    var name: String {
        switch self {
        case .read: "flipaudit-read"
        case .look: "flipaudit-look"
        }
    }

    /// How much nicer than the caller the thread runs. A `Feed`'s workers
    /// read ahead of the caller, whose audit of what they read is what a
    /// pass waits for: with two of them and the caller on two cores, the
    /// kernel's even share left the caller two thirds of a core. Two steps
    /// nicer, the caller keeps its core and the workers share the rest.
    /// On Linux a thread's nice value is its own, and with autogroups
    /// (Debian's default) it weighs only against the run's own session,
    /// not against other programs. An unprivileged thread cannot be made
    /// less nice again: a kept thread that served a `Feed` and then looks
    /// at first records stays two steps nicer, which the caller, working
    /// beside it, does not mind.
    var niceness: Int32 {
        switch self {
        case .read: 2
        case .look: 0
        }
    }

    /// Starts `body` on a thread of this kind: an idle kept thread, or a
    /// new one.
    package func start(_ body: @escaping @Sendable () -> Void) {
        Self.keeper.run(name: name, niceness: niceness, body)
    }

    /// `transform` of every element, in order, computed by the caller's
    /// thread and one worker taking elements a few at a time: for work of
    /// about the same cost per element, where the order of results is all
    /// that matters.
    package static func map<Element: Sendable, Result: Sendable>(
        _ elements: [Element], _ transform: @escaping @Sendable (Element) -> Result
    ) -> [Result] {
        guard elements.count > 1 else { return elements.map(transform) }
        let step = 16
        // The next element to take; what each finished thread computed.
        let shared = HandOff((next: 0, done: [[(Int, Result)]]()))
        @Sendable func work() -> [(Int, Result)] {
            var results: [(Int, Result)] = []
            while true {
                let start = shared.change { s -> Int in
                    defer { s.next += step }
                    return s.next
                }
                guard start < elements.count else { return results }
                for index in start..<min(start + step, elements.count) { results.append((index, transform(elements[index]))) }
            }
        }
        look.start {
            let results = work()
            shared.change { $0.done.append(results) }
        }
        let own = work()
        let theirs = shared.wait(for: { $0.done.popLast() }, until: { !$0.done.isEmpty })
        var all = [Result?](repeating: nil, count: elements.count)
        for (index, result) in own + theirs { all[index] = result }
        return all.map { $0! }
    }

    private static let keeper = Keeper()
}

/// Threads that finished their work and wait for more. A new job goes to
/// an idle thread when there is one (the last to become idle, whose caches
/// are warmest); otherwise a thread is started for it, so a job never waits
/// for another to end (a feed's thread may block until the merge pulls
/// from it). At most `idleLimit` threads wait; more end. Each idle thread
/// waits on its own mailbox, so a job wakes one thread, not all.
private final class Keeper: Sendable {
    struct Job {
        let name: String
        let niceness: Int32
        let body: @Sendable () -> Void
    }

    /// An idle thread's slot: the job handed to it, once there is one.
    typealias Mailbox = HandOff<Job?>

    /// The mailboxes of idle threads, the most recently idle last.
    private let idle = HandOff([Mailbox]())
    static let idleLimit = 8
    /// Room for the parsers and the flip event extractor.
    static let stackSize = 4 << 20

    /// The nice value of the thread that first started a job: the
    /// caller's, which the workers' are set from.
    private let callerNice = Keeper.nice()

    func run(name: String, niceness: Int32, _ body: @escaping @Sendable () -> Void) {
        let job = Job(name: name, niceness: niceness, body: body)
        if let mailbox = idle.change({ $0.popLast() }) {
            mailbox.change { $0 = job }
            return
        }
        let thread = Thread { [self] in work(first: job) }
        thread.stackSize = Self.stackSize
        thread.name = name
        thread.start()
    }

    private func work(first: Job) {
        let mailbox = Mailbox(nil)
        var job = first
        while true {
            Self.setNice(callerNice + job.niceness)
            job.body()
            let stays = idle.change { list -> Bool in
                guard list.count < Self.idleLimit else { return false }
                list.append(mailbox)
                return true
            }
            guard stays else { return }
            job = mailbox.wait(
                for: { slot -> Job? in
                    defer { slot = nil }
                    return slot
                }, until: { $0 != nil })
            Thread.current.name = job.name
        }
    }

    /// The calling thread's nice value (PRIO_PROCESS with 0 names the
    /// calling thread on Linux); 0 elsewhere.
    private static func nice() -> Int32 {
        #if os(Linux)
            getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        #else
            0
        #endif
    }

    private static func setNice(_ value: Int32) {
        #if os(Linux)
            setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, value)
        #endif
    }
}
