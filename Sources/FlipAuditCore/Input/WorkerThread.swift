import Foundation

/// The threads that read inputs besides the caller's, and how each one is
/// started: detached, named (as `top -H` and debuggers show it), with the
/// stack its work needs. A worker runs its body to the end; everything it
/// shares with other threads goes through a `HandOff`.
enum WorkerThread {
    /// `SharedFeed`'s thread: inflates and cuts one input, scans pieces.
    case read
    /// `ChunkPrefetcher`'s thread: inflates chunks only.
    case inflate
    /// `ThreadedFeed`'s thread: splits and scans one input of several.
    case scan

    var name: String {
        switch self {
        case .read: "flipaudit-read"
        case .inflate: "flipaudit-inflate"
        case .scan: "flipaudit-scan"
        }
    }

    /// Threads that scan run the parsers and the flip event extractor; the
    /// inflating one only zlib.
    var stackSize: Int {
        switch self {
        case .read, .scan: 4 << 20
        case .inflate: 1 << 20
        }
    }

    /// Starts a thread of this kind running `body`.
    func start(_ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.stackSize = stackSize
        thread.name = name
        thread.start()
    }
}
