import Audit
import Foundation
import Reports
import Writing

/// A progress line on standard error (a terminal): percent of all input
/// bytes, rate, time left, files done (`ProgressText`), redrawn at most ten
/// times a second and erased before any other output. Inputs are read side
/// by side, so it adds up each one's latest position.
final class ProgressLine: @unchecked Sendable {
    private let lock = NSLock()
    private let started = ContinuousClock.now
    private var last: ContinuousClock.Instant?
    private var shown = false
    /// Per input (by number): bytes read as stored, and whether it is done.
    private var positions: [Int: UInt64] = [:]
    private var finished: Set<Int> = []
    /// The line on screen, not drawn again while it reads the same.
    private var lastText = ""
    /// The terminal's width: a longer line would wrap, and `\r` would
    /// then no longer return to its start.
    private let columns: Int = {
        var size = winsize()
        return ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0 ? Int(size.ws_col) : 80
    }()

    func update(_ p: Analyzer.Progress) {
        lock.lock(); defer { lock.unlock() }
        positions[p.fileNumber] = p.compressedBytes
        if p.finished { finished.insert(p.fileNumber) }
        let now = ContinuousClock.now
        if let last, now - last < .milliseconds(100) { return }
        last = now
        let elapsed = now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let text = String(
            ProgressText.line(
                read: positions.values.reduce(0, +), total: p.totalBytes,
                filesDone: finished.count, fileCount: p.fileCount, elapsed: seconds
            )
            .prefix(columns - 1))
        guard text != lastText else { return }
        lastText = text
        StandardStreams.writeError("\r\u{1B}[K" + text, newline: false)
        shown = true
    }

    func clear() {
        lock.lock(); defer { lock.unlock() }
        guard shown else { return }
        StandardStreams.writeError("\r\u{1B}[K", newline: false)
        shown = false
        lastText = ""
    }
}
