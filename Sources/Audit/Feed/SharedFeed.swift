import DequeModule
import Parsing
import Reading
import Rules

/// Scans pieces of one input: a line splitter and a line scanner that
/// keep their caches from piece to piece. One per thread.
final class PieceScanner {
    private var splitter: LineSplitter
    private var scanner: LineScanner

    init(fileIndex: Int, configuration: AuditConfiguration) {
        splitter = LineSplitter(maxLine: configuration.maxLine)
        // `Analyzer.run` has built the log_format parser once, so this
        // cannot fail.
        scanner = try! LineScanner(fileIndex: Int32(fileIndex), configuration: configuration)
    }

    /// The lines of `piece`, whose bytes are `bytes`; `linesBefore`: the
    /// lines of the input before it, when known.
    func scan(_ piece: PieceCutter.Piece, bytes: UnsafeRawBufferPointer, linesBefore: Int?) -> PieceScan {
        scanner.linesBefore = linesBefore
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
/// whole lines (`PieceCutter`); pieces are scanned by whichever thread is
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
        case cut(PieceCutter.Piece, slot: Int)
        case scanning
        case scanned(PieceScan, end: PieceCutter.PieceEnd?)
    }

    /// A piece a thread has claimed to scan: its place for good (pieces
    /// handed out before it, plus its index in `pieces`), and the lines of
    /// the input before it when they are known.
    private struct Claim {
        var piece: PieceCutter.Piece
        var slot: Int
        var position: Int
        var linesBefore: Int?
    }

    /// What the audit thread does next: take the next scan in input order,
    /// or scan a piece while that one is not ready.
    private enum AuditStep {
        case take(PieceScan, end: PieceCutter.PieceEnd?)
        case scan(Claim)
    }

    /// What the reader thread does next.
    private enum ReaderStep {
        case cut(slot: Int)
        case scan(Claim)
        case stop
    }

    /// What the two threads share, in a `HandOff`.
    private struct Pieces {
        /// Pieces not yet handed to the audit, in input order.
        var pieces = Deque<Stage>()
        /// Index in `pieces` of the first piece not yet claimed by a
        /// scanner: pieces are claimed oldest first, so the unclaimed ones
        /// are the last.
        var firstUnclaimed = 0
        /// Pieces handed to the audit so far.
        var handedOut = 0
        var freeSlots: [Int]
        /// The last piece has been cut.
        var cutAll = false
        /// Pieces claimed and not yet scanned.
        var scanning = 0
        /// Lines of the pieces scanned so far. Pieces are claimed oldest
        /// first, so when none is being scanned these are all the lines
        /// before the oldest unclaimed piece.
        var linesScanned = 0
        /// Flip events in pieces scanned and not yet handed to the audit: a
        /// log that is all flip traffic holds `eventBudget` of them, not
        /// `depth` pieces' worth.
        var scannedEvents = 0
        let depth: Int
        /// Pieces the reader keeps cut and unclaimed before it scans
        /// instead: with the pieces being scanned on both threads and the
        /// one being cut, what the buffers are for.
        let readyTarget: Int

        var unclaimed: Int { pieces.count - firstUnclaimed }

        /// The reader may cut another piece.
        var canCut: Bool {
            !cutAll && !freeSlots.isEmpty && pieces.count < depth && unclaimed < readyTarget
                && scannedEvents < SharedFeed.eventBudget
        }

        /// Whether `readerStep` has something to do.
        var readerCanGo: Bool { canCut || unclaimed > 0 || cutAll }

        /// Whether `auditStep` has something to do.
        var auditCanGo: Bool {
            if case .scanned = pieces.first { return true }
            return unclaimed > 0
        }

        /// Cuts while few pieces wait to be scanned and a buffer is free;
        /// scans the oldest waiting one otherwise.
        mutating func readerStep() -> ReaderStep? {
            if canCut { return .cut(slot: freeSlots.removeLast()) }
            if unclaimed > 0 { return .scan(claim()) }
            return cutAll ? .stop : nil
        }

        /// Takes the next scan in input order, or claims a piece to scan
        /// while it is not ready.
        mutating func auditStep() -> AuditStep? {
            if case .scanned(let scan, let end) = pieces.first {
                pieces.removeFirst()
                scannedEvents -= scan.events.count
                firstUnclaimed -= 1
                handedOut += 1
                return .take(scan, end: end)
            }
            return unclaimed > 0 ? .scan(claim()) : nil
        }

        /// Claims the oldest unclaimed piece.
        private mutating func claim() -> Claim {
            guard case .cut(let piece, let slot) = pieces[firstUnclaimed] else { preconditionFailure("claimed piece out of order") }
            pieces[firstUnclaimed] = .scanning
            firstUnclaimed += 1
            defer { scanning += 1 }
            return Claim(
                piece: piece, slot: slot, position: handedOut + firstUnclaimed - 1, linesBefore: scanning == 0 ? linesScanned : nil)
        }

        /// Puts the scan of a claimed piece in its place and frees its slot.
        mutating func scanned(_ claim: Claim, _ scan: PieceScan) {
            pieces[claim.position - handedOut] = .scanned(scan, end: claim.piece.end)
            scannedEvents += scan.events.count
            freeSlots.append(claim.slot)
            scanning -= 1
            linesScanned += scan.accounting.lines
        }
    }

    private let file: InputFile
    private let index: Int
    private let configuration: AuditConfiguration
    private let buffers: Int
    private let bufferSize: Int
    private let progress: (@Sendable (UInt64) -> Void)?
    private let shared: HandOff<Pieces>
    static let eventBudget = 8192

    // Set before the reader thread starts, then only read.
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
        let depth = max(depth, 2)
        buffers = min(depth, Self.buffers)
        self.bufferSize = max(bufferSize, PieceCutter.minimumBuffer(maxLine: configuration.maxLine))
        self.progress = progress
        assembler = ScanAssembler(file: file, format: configuration.format)
        shared = HandOff(Pieces(freeSlots: Array((0..<buffers).reversed()), depth: depth, readyTarget: min(4, buffers / 2)))
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

    /// Opens the input and starts the reader thread (on the first pull,
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
        scanner = PieceScanner(fileIndex: index, configuration: configuration)
        let cutter = PieceCutter(reader: reader, maxLine: configuration.maxLine)
        // The thread holds the feed until the last piece is cut and every
        // piece it claimed is scanned.
        WorkerThread.read.start { [self] in self.read(cutter) }
    }

    /// Buffers for pieces not scanned yet.
    static let buffers = 8

    /// The reader thread: cuts pieces while few are waiting to be scanned
    /// and a buffer is free, scans the oldest waiting one otherwise.
    private func read(_ cutter: PieceCutter) {
        let scanner = PieceScanner(fileIndex: index, configuration: configuration)
        while true {
            switch shared.wait(for: { $0.readerStep() }, until: { $0.readerCanGo }) {
            case .cut(let slot):
                let piece = cutter.cut(into: slots[slot])
                progress?(cutter.compressedBytes)
                shared.change {
                    $0.pieces.append(.cut(piece, slot: slot))
                    if piece.end != nil { $0.cutAll = true }
                }
            case .scan(let claim):
                scan(claim, with: scanner)
            case .stop:
                return
            }
        }
    }

    /// Scans a claimed piece and puts its scan in place.
    private func scan(_ claim: Claim, with scanner: PieceScanner) {
        let bytes = UnsafeRawBufferPointer(rebasing: slots[claim.slot][claim.piece.range])
        let scan = scanner.scan(claim.piece, bytes: bytes, linesBefore: claim.linesBefore)
        shared.change { $0.scanned(claim, scan) }
    }

    /// The next scan in input order, scanning pieces on this thread while it
    /// is not ready.
    private func nextScan() -> (PieceScan, PieceCutter.PieceEnd?) {
        while true {
            switch shared.wait(for: { $0.auditStep() }, until: { $0.auditCanGo }) {
            case .take(let scan, let end): return (scan, end)
            case .scan(let claim): scan(claim, with: scanner!)
            }
        }
    }
}
