import Foundation

// flipaudit is Linux software (docs/install.md): inotify here, Glibc,
// /proc and Debian's libraries elsewhere. Said at build time rather than
// in a page of missing symbols.
#if !os(Linux)
    #error("flipaudit builds on Linux only: `follow` waits on inotify (docs/install.md)")
#endif

/// How a follower waits for more: inotify on the folders of what it
/// follows (a write, a new name, a rename or a deletion wakes it), and at
/// most 250 ms in any case — the polling that works where inotify does not
/// (a network file system, a container without it) and the tick of the
/// wall clock. A signal handed over by `Interruption` wakes it too.
///
/// Not `Sendable`: the follow loop owns it.
final class FileWatch {
    /// The longest wait (milliseconds).
    static let tick: Int32 = 250

    private let inotify: Int32
    private var watched: Set<String> = []
    private let signals: Int32

    init(signals: Int32) {
        self.signals = signals
        inotify = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
    }

    deinit { if inotify >= 0 { close(inotify) } }

    /// Watches `folder` from now on (once; a folder that cannot be watched
    /// is polled).
    func watch(folder: String) {
        guard inotify >= 0, !watched.contains(folder) else { return }
        watched.insert(folder)
        let mask = IN_MODIFY | IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_ATTRIB | IN_CLOSE_WRITE
        _ = inotify_add_watch(inotify, folder, UInt32(mask))
    }

    /// Waits for a change or a signal, at most `tick`, or `within`
    /// milliseconds when sooner (a held record's wait ends then), not at
    /// all when `busy` (a file has more to read); the signals that came.
    func wait(busy: Bool = false, within: Int64 = Int64(FileWatch.tick)) -> [Int32] {
        var fds = [pollfd(fd: signals, events: Int16(POLLIN), revents: 0)]
        if inotify >= 0 { fds.append(pollfd(fd: inotify, events: Int16(POLLIN), revents: 0)) }
        _ = poll(&fds, nfds_t(fds.count), busy ? 0 : Int32(max(0, min(Int64(Self.tick), within))))
        var buffer = [UInt8](repeating: 0, count: 4096)
        // Drained: what changed is found by looking, not from the events.
        if inotify >= 0 { while buffer.withUnsafeMutableBytes({ read(inotify, $0.baseAddress, $0.count) }) > 0 {} }
        var came: [Int32] = []
        while true {
            let n = buffer.withUnsafeMutableBytes { read(signals, $0.baseAddress, $0.count) }
            guard n > 0 else { break }
            came += buffer[..<n].map { Int32($0) }
        }
        return came
    }
}
