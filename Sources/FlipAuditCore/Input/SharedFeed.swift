import DequeModule
import Foundation

/// Scans pieces of one input: a line splitter and a chunk scanner that
/// keep their caches from piece to piece. One per thread.
final class PieceScanner {
    private var splitter: LineSplitter
    private var scanner: ChunkScanner

    init(fileIndex: Int, configuration: AuditConfiguration) {
        splitter = LineSplitter(maxLine: configuration.maxLine)
        // `Analyzer.run` has built the log_format parser once, so this
        // cannot fail.
        scanner = try! ChunkScanner(fileIndex: Int32(fileIndex), configuration: configuration)
    }

    /// The lines of `piece`, whose bytes are `bytes`.
    func scan(_ piece: LineChunker.Piece, bytes: UnsafeRawBufferPointer) -> ChunkScan {
        scanner.format = piece.format
        if let long = piece.leadingOverlong { scanner.overlongLine(number: 0, length: long) }
        splitter.feed(bytes, to: &scanner)
        if let end = piece.end {
            // A last line without a newline.
            splitter.finish(to: &scanner)
            if let long = end.trailingOverlong { scanner.overlongLine(number: 0, length: long) }
            if let cut = end.cutOff { scanner.cutOff(bytes: cut) }
        }
        return scanner.take()
    }
}

/// Reads one input with two threads sharing the work. A thread of its own
/// inflates the input into a pool of buffers and cuts it into pieces of
/// whole lines (`LineChunker`); pieces are scanned by whichever thread is
/// free — that thread once it is far enough ahead, or the caller's (the
/// audit's) whenever the piece it needs next is not scanned yet — and put
/// back in order on the caller's thread (`ScanAssembler`). So both cores
/// stay busy whichever of inflating, parsing or auditing is the slower, and
/// no thread waits for a hand-over while there is work it could do.
///
/// Memory: at most `depth` pieces between cutting and the audit, but only
/// the few not scanned yet hold a buffer (`buffers` of them); a scanned
/// piece is its events.
final class SharedFeed: EventFeed, @unchecked Sendable {
    /// Where a piece is between cutting and the audit.
    private enum Stage {
        case cut(LineChunker.Piece, slot: Int)
        case scanning
        case scanned(ChunkScan, end: LineChunker.PieceEnd?)
    }

    private let file: InputFile
    private let index: Int
    private let configuration: AuditConfiguration
    private let depth: Int
    private let buffers: Int
    private let bufferSize: Int
    private let progress: (@Sendable (UInt64) -> Void)?

    // Guarded by `condition`.
    private let condition = NSCondition()
    /// Pieces not yet handed to the audit, in input order.
    private var pieces = Deque<Stage>()
    /// Index in `pieces` of the first piece not yet claimed by a scanner:
    /// pieces are claimed oldest first, so the unclaimed ones are the last.
    private var firstUnclaimed = 0
    private var freeSlots: [Int] = []
    /// The last piece has been cut.
    private var cutAll = false
    /// Flip events in pieces scanned and not yet handed to the audit: a log
    /// that is all flip traffic holds `eventBudget` of them, not `depth`
    /// pieces' worth.
    private var scannedEvents = 0
    static let eventBudget = 8192
    private var producerWaiting = false
    private var consumerWaiting = false

    // The producer thread's own.
    private var slots: [UnsafeMutableRawBufferPointer] = []

    // The caller's own.
    private var started = false
    private var scanner: PieceScanner?
    private var assembler: ScanAssembler
    private var batches = Deque<EventBatch>()
    private var endScan: FileScan?

    /// `min(depth, buffers)` buffers of `bufferSize` bytes (raised to what
    /// a carried line needs, if less).
    init(
        file: InputFile, index: Int, configuration: AuditConfiguration, depth: Int,
        bufferSize: Int = LogFileReader.bufferSize, progress: (@Sendable (UInt64) -> Void)?
    ) {
        self.file = file
        self.index = index
        self.configuration = configuration
        self.depth = max(depth, 2)
        buffers = min(self.depth, Self.buffers)
        self.bufferSize = max(bufferSize, LineChunker.minimumBuffer(maxLine: configuration.maxLine))
        self.progress = progress
        assembler = ScanAssembler(file: file)
    }

    deinit {
        for slot in slots { slot.deallocate() }
    }

    func next() -> FeedItem {
        if !started { start() }
        while true {
            if let batch = batches.popFirst() { return .batch(batch) }
            if let endScan { return .end(endScan) }
            let (scan, end) = nextScan()
            assembler.add(scan, emit: { batches.append($0) })
            if let end {
                endScan = assembler.finish(end: end.input, failure: end.failure, emit: { batches.append($0) })
            }
        }
    }

    /// Opens the input and starts the producer thread (on the first pull,
    /// so inputs not reached yet hold no descriptor and no buffer).
    private func start() {
        started = true
        let reader: LogFileReader
        do {
            reader = try LogFileReader(path: file.path)
        } catch {
            endScan = assembler.finish(end: nil, failure: error, emit: { batches.append($0) })
            return
        }
        slots = (0..<buffers).map { _ in .allocate(byteCount: bufferSize, alignment: 16) }
        freeSlots = Array(slots.indices.reversed())
        scanner = PieceScanner(fileIndex: index, configuration: configuration)
        let chunker = LineChunker(reader: reader, maxLine: configuration.maxLine, format: configuration.format)
        // The thread holds the feed until the last piece is cut and every
        // piece it claimed is scanned.
        let thread = Thread { [self] in self.produce(chunker) }
        thread.stackSize = 4 << 20
        thread.name = "flipaudit-read"
        thread.start()
    }

    /// Pieces the producer keeps cut and unclaimed before it scans instead:
    /// with the pieces being scanned on both threads and the one being
    /// cut, what the buffers are for.
    private var readyTarget: Int { min(4, buffers / 2) }
    /// Buffers for pieces not scanned yet.
    static let buffers = 8

    /// The producer: cuts pieces while few are waiting to be scanned and a
    /// buffer is free, scans the oldest waiting one otherwise.
    private func produce(_ chunker: LineChunker) {
        let scanner = PieceScanner(fileIndex: index, configuration: configuration)
        while true {
            condition.lock()
            var slot: Int?
            var claimed: (piece: LineChunker.Piece, slot: Int, position: Int)?
            while true {
                let unclaimed = pieces.count - firstUnclaimed
                if !cutAll && !freeSlots.isEmpty && pieces.count < depth && unclaimed < readyTarget
                    && scannedEvents < Self.eventBudget
                {
                    slot = freeSlots.removeLast()
                    break
                }
                if unclaimed > 0 {
                    claimed = claim()
                    break
                }
                if cutAll {
                    condition.unlock()
                    return
                }
                producerWaiting = true
                condition.wait()
            }
            condition.unlock()
            if let slot {
                let piece = chunker.cut(into: slots[slot])
                progress?(chunker.compressedBytes)
                condition.lock()
                pieces.append(.cut(piece, slot: slot))
                if piece.end != nil { cutAll = true }
                wakeConsumer()
                condition.unlock()
            } else if let claimed {
                scan(claimed, with: scanner)
            }
        }
    }

    /// Claims the oldest unclaimed piece (lock held).
    private func claim() -> (piece: LineChunker.Piece, slot: Int, position: Int) {
        guard case .cut(let piece, let slot) = pieces[firstUnclaimed] else { preconditionFailure("claimed piece out of order") }
        pieces[firstUnclaimed] = .scanning
        firstUnclaimed += 1
        return (piece, slot, firstUnclaimed - 1 + handedOut)
    }

    /// Pieces handed to the audit so far (lock held): with a position in
    /// `pieces`, numbers a piece for good.
    private var handedOut = 0

    /// Scans a claimed piece (lock not held) and puts its scan in place.
    private func scan(_ claimed: (piece: LineChunker.Piece, slot: Int, position: Int), with scanner: PieceScanner) {
        let bytes = UnsafeRawBufferPointer(rebasing: slots[claimed.slot][claimed.piece.range])
        let scan = scanner.scan(claimed.piece, bytes: bytes)
        condition.lock()
        pieces[claimed.position - handedOut] = .scanned(scan, end: claimed.piece.end)
        scannedEvents += scan.events.count
        freeSlots.append(claimed.slot)
        wakeConsumer()
        wakeProducer()
        condition.unlock()
    }

    /// The next scan in input order, scanning pieces on this thread while it
    /// is not ready.
    private func nextScan() -> (ChunkScan, LineChunker.PieceEnd?) {
        condition.lock()
        while true {
            if case .scanned(let scan, let end) = pieces.first {
                pieces.removeFirst()
                scannedEvents -= scan.events.count
                firstUnclaimed -= 1
                handedOut += 1
                wakeProducer()
                condition.unlock()
                return (scan, end)
            }
            if pieces.count > firstUnclaimed {
                let claimed = claim()
                condition.unlock()
                scan(claimed, with: scanner!)
                condition.lock()
                continue
            }
            consumerWaiting = true
            condition.wait()
        }
    }

    private func wakeConsumer() {
        if consumerWaiting {
            consumerWaiting = false
            condition.broadcast()
        }
    }

    private func wakeProducer() {
        if producerWaiting {
            producerWaiting = false
            condition.broadcast()
        }
    }
}
