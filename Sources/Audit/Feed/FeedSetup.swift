import Foundation
import Reading
import Rules

/// How the audit's inputs are read: the feed both drivers build (one
/// process, the distributed read stage) and the progress line's 100 %.
enum FeedSetup {
    /// The feed that reads `inputs`: a pool of worker threads, one fewer
    /// than the cores, or none without `parallel`. The audit thread works
    /// too, on any input whenever the one it needs has nothing ready: a
    /// worker more would only take turns with it on a core. Read `alone`
    /// (one input, or one after another), an input gets up to 64 pieces of
    /// 256 KiB between cutting and the audit; read side by side, 16 each.
    static func feed(
        _ inputs: [InputFile], configuration: AuditConfiguration, alone: Bool, firstRank: Int = 0,
        progress: (@Sendable (Int, UInt64) -> Void)?
    ) -> Feed<PieceScanner> {
        let workers = configuration.parallel ? max(1, ProcessInfo.processInfo.activeProcessorCount - 1) : 0
        let shape = Feed<PieceScanner>.Shape(
            workers: workers, depth: alone ? 64 : 16, buffers: alone ? 8 : 4,
            pieceBytes: max(LogFileReader.bufferSize, 2 * PieceCutter.minimumBuffer(maxLine: configuration.maxLine)))
        return Feed(
            inputs: inputs, maxLine: configuration.maxLine, shape: shape,
            makeScanner: { [names = inputs.map(\.displayName)] in PieceScanner(configuration: configuration, firstRank: firstRank, names: names) },
            progress: progress)
    }

    /// The sizes of the inputs added up, or nil when one is not a regular
    /// file (standard input, a FIFO): the progress line's 100 %.
    static func totalSize(_ inputs: [InputFile]) -> UInt64? {
        var total: UInt64 = 0
        for input in inputs {
            // stat, not lstat: a symlink counts as the file it names.
            var info = stat()
            guard let path = input.path, stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
            total += UInt64(max(0, info.st_size))
        }
        return total
    }
}
