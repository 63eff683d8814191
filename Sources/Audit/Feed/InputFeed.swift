import DequeModule
import Foundation
import Parsing
import Reading
import Rules

/// What one input produced once it is read to its end.
struct FileScan: Sendable {
    var accounting: InputAccounting
    var firstLocationLine: Int64?
    var latestTime: Int64?
    var summary: FileSummary
    /// `NAME: message` when the input could not be read completely.
    var error: String?
    /// Messages for standard error, in line order (the first malformed
    /// lines, then the read error).
    var warnings: [String]
}

/// What the merge gets when it pulls an input.
enum FeedItem: Sendable {
    case batch(EventBatch)
    case end(FileScan)
}

/// One input's pipeline — reader, line splitter, scanner, assembler —
/// driven one decoded chunk at a time, on the calling thread (with zlib on
/// a thread of its own when `prefetchDepth` is set and the input is not
/// small). Run on the caller's
/// thread it is the reference path that `SharedFeed` and `ThreadedFeed`
/// must match. Batches come out through `emit`.
final class InputPipeline {
    private var scanner: LineScanner
    /// Where `scanner` came from and goes back to once the input is read.
    private let scanners: ScannerPool
    private var splitter: LineSplitter
    private var assembler: ScanAssembler
    private var reader: LogFileReader?
    private var prefetcher: ChunkPrefetcher?
    private var failure: InputError?
    /// Called per chunk with the bytes of the input read as stored (with a
    /// prefetcher, as of the chunk handed out: the reader's own count
    /// belongs to zlib's thread).
    private let progress: ((UInt64) -> Void)?
    private let emit: (EventBatch) -> Void
    private var done = false

    init(
        file: InputFile, index: Int, configuration: AuditConfiguration, scanners: ScannerPool, prefetchDepth: Int = 0,
        progress: ((UInt64) -> Void)?, emit: @escaping (EventBatch) -> Void
    ) {
        self.progress = progress
        self.emit = emit
        self.scanners = scanners
        splitter = LineSplitter(maxLine: configuration.maxLine)
        assembler = ScanAssembler(file: file, format: configuration.format)
        scanner = scanners.take(fileIndex: Int32(index))
        // Chunks come in order: every event is built with its line.
        scanner.linesBefore = 0
        do {
            let reader = try LogFileReader(path: file.path)
            self.reader = reader
            if prefetchDepth > 0 && !Self.isSmall(size: reader.sizeAtOpen) {
                prefetcher = ChunkPrefetcher(reader: reader, depth: prefetchDepth)
            }
        } catch {
            failure = error
            done = true
        }
    }

    /// Reads and scans one chunk. False once the input is done (read to its
    /// end or stopped by an error); every line before an error is scanned.
    func step() -> Bool {
        guard !done, let reader else { return false }
        do {
            if let chunk = try (prefetcher != nil ? prefetcher!.next() : reader.nextChunk()) {
                splitter.feed(chunk, to: &scanner)
                assembler.add(scanner.take(), emit: emit)
                if let progress { progress(prefetcher?.compressedBytes ?? reader.compressedBytes) }
                return true
            }
            splitter.finish(to: &scanner)
        } catch {
            failure = error
            if let cut = splitter.discardPartialLine() { scanner.cutOff(bytes: cut) }
        }
        assembler.add(scanner.take(), emit: emit)
        done = true
        return false
    }

    /// Flushes the last batch and sums up the input; call after `step()`
    /// returned false.
    func finish() -> FileScan {
        scanners.give(scanner)
        return assembler.finish(end: reader.map(InputEnd.init), failure: failure, emit: emit)
    }

    /// Time of the first record of `file` within its first
    /// `LogFileReader.bufferSize` decoded bytes (nil for inputs without a
    /// record there, and for streams — standard input, a FIFO,
    /// `/dev/stdin`, `<(...)` — which cannot be read twice: a look ahead
    /// would lose their first bytes, or wait on a FIFO's writer forever).
    /// The merge uses it to leave an input closed until the audit reaches
    /// its time. It decodes in small steps and stops at the first record:
    /// for a folder of thousands of small files, this look costs little
    /// beside the reading itself.
    static func firstRecordTime(_ file: InputFile, configuration: AuditConfiguration, scanners: ScannerPool) -> Int64? {
        guard !file.isStream, let reader = try? LogFileReader(path: file.path) else { return nil }
        var splitter = LineSplitter(maxLine: configuration.maxLine)
        var assembler = ScanAssembler(file: file, format: configuration.format)
        var scanner = scanners.take(fileIndex: 0)
        defer { scanners.give(scanner) }
        scanner.linesBefore = 0
        // A few lines at first, more while no record turns up.
        var step = 1024
        let pooled = BufferPool.shared.take(LogFileReader.bufferSize)
        defer { BufferPool.shared.give(pooled) }
        let buffer = UnsafeMutableRawBufferPointer(rebasing: pooled[0..<64 * 1024])
        var decoded = 0
        while decoded < LogFileReader.bufferSize {
            let want = min(step, buffer.count, LogFileReader.bufferSize - decoded)
            step *= 2
            guard let n = try? reader.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<want])), n > 0 else { break }
            decoded += n
            splitter.feed(UnsafeRawBufferPointer(rebasing: buffer[0..<n]), to: &scanner)
            assembler.add(scanner.take(), emit: { _ in })
            if let time = assembler.firstTime { return time }
        }
        splitter.finish(to: &scanner)
        assembler.add(scanner.take(), emit: { _ in })
        return assembler.firstTime
    }

    /// Whether an input of `size` bytes (nil for a stream) is small enough
    /// that zlib on a thread of its own would cost more than it saves: a
    /// regular file under 1 MiB.
    static func isSmall(size: UInt64?) -> Bool {
        size.map { $0 < 1 << 20 } ?? false
    }
}

/// Where the merge pulls one input's batches from, in line order.
protocol EventFeed: AnyObject {
    func next() -> FeedItem
    /// Starts reading ahead, if the feed can, before its first pull.
    func prepare()
}

extension EventFeed {
    func prepare() {}
}

/// Reads its input on the caller's thread, a chunk whenever a batch is
/// wanted.
final class DirectFeed: EventFeed {
    private var pending: [EventBatch] = []
    /// Opened on the first pull, so that inputs not reached yet hold no
    /// descriptor and no buffer.
    private var pipeline: InputPipeline?
    private let open: (DirectFeed) -> InputPipeline

    init(file: InputFile, index: Int, configuration: AuditConfiguration, scanners: ScannerPool, progress: ((UInt64) -> Void)?) {
        open = { feed in
            InputPipeline(
                file: file, index: index, configuration: configuration, scanners: scanners,
                progress: progress, emit: { [unowned feed] in feed.pending.append($0) })
        }
    }

    func next() -> FeedItem {
        if pipeline == nil { pipeline = open(self) }
        while pending.isEmpty && endScan == nil {
            if !pipeline!.step() { endScan = pipeline!.finish() }
        }
        if !pending.isEmpty { return .batch(pending.removeFirst()) }
        return .end(endScan!)
    }

    /// The input's summary once it is read; its last batch may still wait.
    private var endScan: FileScan?
}
/// Reads its input on a thread of its own (plus zlib's prefetch thread),
/// at most `depth` batches ahead of the merge: a `ReadAhead` reader once
/// the merge says it will open the input soon (`prepare()`), or a thread
/// started for it on the first pull if no reader took it before.
/// Used when several inputs are read side by side: their pipelines give the
/// two cores enough independent work, and cost less memory than a
/// `SharedFeed` each deep enough to keep up (two 1 GB files, measured
/// with the static Swift runtime: 58 MiB here; 66–67 MiB with a SharedFeed
/// of 64 pieces per input, a little faster; 63–65 MiB with 16 or 32, no
/// clear gain).
final class ThreadedFeed: EventFeed, @unchecked Sendable {
    /// What the scanning thread has read and the merge not yet pulled, in
    /// order (at most `depth` items), and whether a thread reads the input.
    private let queue: HandOff<(items: Deque<FeedItem>, claimed: Bool)>
    /// Reads the input to its end into `queue`.
    private let read: @Sendable () -> Void
    private let readAhead: ReadAhead
    private var offered = false
    /// Once pulled, the input is claimed: by a reader, or by a thread
    /// started then.
    private var pulled = false

    init(
        file: InputFile, index: Int, configuration: AuditConfiguration, scanners: ScannerPool, readAhead: ReadAhead,
        depth: Int = 16, prefetchDepth: Int, progress: (@Sendable (UInt64) -> Void)?
    ) {
        let queue = HandOff((items: Deque<FeedItem>(), claimed: false))
        self.queue = queue
        self.readAhead = readAhead
        read = {
            /// Waits for room, then queues `item`.
            func put(_ item: FeedItem) {
                queue.wait(
                    for: { $0.items.count < depth ? $0.items.append(item) : nil }, until: { $0.items.count < depth })
            }
            let pipeline = InputPipeline(
                file: file, index: index, configuration: configuration, scanners: scanners, prefetchDepth: prefetchDepth,
                progress: progress, emit: { put(.batch($0)) })
            while pipeline.step() {}
            put(.end(pipeline.finish()))
        }
    }

    /// True for the one caller that gets to read the input.
    private func claim() -> Bool {
        queue.change { s -> Bool in
            guard !s.claimed else { return false }
            s.claimed = true
            return true
        }
    }

    func prepare() {
        guard !offered else { return }
        offered = true
        let read = self.read
        readAhead.offer { [self] in if claim() { read() } }
    }

    func next() -> FeedItem {
        if !pulled {
            pulled = true
            if claim() { WorkerThread.scan.start(read) }
        }
        return queue.wait(for: { $0.items.popFirst() }, until: { !$0.items.isEmpty })
    }
}
