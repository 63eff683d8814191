import Foundation
import Synchronization
import Writing

/// What a terminating signal (INT, TERM, HUP, QUIT, USR1, USR2) does:
/// remove the temporary output files, then exit with 128 + the signal
/// number, as a shell expects. SIGPIPE is ignored (see `main`): a write to
/// a closed pipe fails with EPIPE and is handled as an output error.
///
/// The handlers are installed first thing in `main`, before anything is
/// read or parsed, so a signal sent a few milliseconds after start is
/// never lost (a dispatch signal source, armed later and only once its
/// queue got to it, let 10 % of them through unseen). A handler only
/// writes the signal's number to a pipe (async-signal-safe); a thread of
/// its own reads it and does the rest.
package enum Interruption {
    static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2]

    /// What the run adds before exiting (clearing the progress line).
    private static let onExit = Mutex<@Sendable () -> Void>({})

    /// Installs the handlers and starts the thread that acts on them.
    package static func install() {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return }
        for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(ends[1], F_SETFL, O_NONBLOCK)
        interruptionPipe = ends[1]
        let reader = ends[0]
        Thread.detachNewThread { watch(reader) }
        // A parent may start us with them blocked (Foundation's Process
        // does): blocked, a handler never runs.
        var mask = sigset_t()
        sigemptyset(&mask)
        for signalNumber in signals { sigaddset(&mask, signalNumber) }
        pthread_sigmask(SIG_UNBLOCK, &mask, nil)
        for signalNumber in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = interruptionHandler
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(signalNumber, &action, nil)
        }
    }

    /// Sets what the run does before exiting on a signal.
    static func removeTemporaryOutputs(onExit: @escaping @Sendable () -> Void) {
        Self.onExit.withLock { $0 = onExit }
    }

    /// Where signals go instead of ending the run (`flipaudit follow`
    /// commits first): the write end of a pipe; -1 for none.
    private static let forward = Mutex<Int32>(-1)

    /// Hands every later signal to the caller: its number, one byte, on
    /// the returned descriptor (non-blocking), instead of ending the run.
    static func handOver() -> Int32? {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        for fd in ends { _ = fcntl(fd, F_SETFL, O_NONBLOCK) }
        forward.withLock { $0 = ends[1] }
        return ends[0]
    }

    private static func watch(_ reader: Int32) {
        var byte: UInt8 = 0
        while true {
            let n = read(reader, &byte, 1)
            if n == 1, case let to = forward.withLock({ $0 }), to >= 0 {
                _ = write(to, &byte, 1)
                continue
            }
            if n == 1 { interrupted(Int32(byte)) }
            if n == 0 || (n < 0 && errno != EINTR) { return }
        }
    }

    private static func interrupted(_ signalNumber: Int32) -> Never {
        // Waits for the commit step if it is under way (signals are held
        // off there), so what it says is true.
        let committed = OutputCommit.shared.hold()
        TemporaryOutputs.shared.removeAll()
        onExit.withLock { $0 }()
        Diagnostics.audit.say(
            committed
                ? "interrupted (signal \(signalNumber)) after every output file was written"
                : "interrupted (signal \(signalNumber)); no output file written, the previous ones (and the checkpoint) are as they were")
        _exit(128 + signalNumber)
    }
}

/// Where a signal handler writes the signal's number (write end, non-blocking).
nonisolated(unsafe) private var interruptionPipe: Int32 = -1

/// The signal handler: one byte into the pipe, nothing else.
private func interruptionHandler(_ signalNumber: Int32) {
    var byte = UInt8(truncatingIfNeeded: signalNumber)
    let saved = errno
    _ = write(interruptionPipe, &byte, 1)
    errno = saved
}
