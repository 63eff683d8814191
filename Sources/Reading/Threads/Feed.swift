/// Reads inputs for one pass of an audit: the only place where reading
/// threads are started and meet.
///
///     input ─▶ PieceCutter ─▶ pieces of whole lines ─▶ scanned by any thread ─▶ next(input): in order
///              (one per input, cut     (up to `depth` per input,                (the caller)
///               by one thread at a      `buffers` of them holding bytes)
///               time)
///
/// A pool of `workers` threads and the caller share the work. A worker
/// serves the open inputs still being read, in the order they were opened
/// (the order the caller will need them): it cuts the next piece of an
/// input while few of its pieces wait and a buffer is free, then scans the
/// oldest waiting piece of that input (most often the one it cut, still in
/// its cache); or it scans a waiting piece. The caller works too whenever
/// the piece it needs next is not scanned yet: it scans a waiting piece of
/// that input, or cuts one, and when that input has nothing to do (its
/// next piece is being cut or scanned), it takes a worker's task for the
/// inputs ahead instead of waiting. With no workers the caller does
/// everything, in order: that is the reference path, the same code with no
/// other thread.
///
/// Each thread has its own scanner, made by `makeScanner` and kept for the
/// pass. The workers start with the first `open` and end after `stop()`.
///
/// Not `Sendable` in use: `open`, `next` and `stop` are the caller's, on one
/// thread. Workers reach the state they share with it only through one
/// `HandOff` (hence `@unchecked Sendable`); a cutter is used by the one
/// thread that claimed its input's cut, a buffer by the one thread that
/// cut into it or claimed its piece.
package final class Feed<Scanner: PieceScanning>: @unchecked Sendable {
    /// How the feed is sized.
    package struct Shape: Sendable {
        /// Worker threads beside the caller; 0 for the reference path.
        package var workers: Int
        /// Pieces of one input between cutting and the caller, at most.
        package var depth: Int
        /// Buffers per input: pieces cut and not scanned yet, at most.
        package var buffers: Int
        /// Bytes per buffer.
        package var pieceBytes: Int

        package init(workers: Int, depth: Int, buffers: Int, pieceBytes: Int) {
            self.workers = workers
            self.depth = max(depth, 2)
            self.buffers = max(min(buffers, self.depth), 2)
            self.pieceBytes = pieceBytes
        }
    }

    private let shape: Shape
    private let maxLine: Int
    private let inputs: [InputFile]
    private let makeScanner: @Sendable () -> Scanner
    private let progress: (@Sendable (Int, UInt64) -> Void)?
    private let shared: HandOff<FeedState<Scanner.Scan>>

    // The caller's own.
    private var callerScanner: Scanner?
    private var started = false
    /// Inputs opened so far.
    private var opened = Set<Int>()

    /// `progress` is told, after each piece is cut, the bytes of its input
    /// read as stored.
    package init(
        inputs: [InputFile], maxLine: Int, shape: Shape, makeScanner: @escaping @Sendable () -> Scanner,
        progress: (@Sendable (Int, UInt64) -> Void)? = nil
    ) {
        self.inputs = inputs
        self.maxLine = maxLine
        self.shape = Shape(
            workers: shape.workers, depth: shape.depth, buffers: shape.buffers,
            pieceBytes: max(shape.pieceBytes, PieceCutter.minimumBuffer(maxLine: maxLine)))
        self.makeScanner = makeScanner
        self.progress = progress
        shared = HandOff(FeedState(limits: FeedLimits(depth: self.shape.depth, readyTarget: min(4, self.shape.buffers / 2))))
    }

    deinit {
        // Every worker has ended: each held the feed until then.
        shared.change { state in
            for lane in state.lanes.values { lane.free() }
            state.lanes = [:]
        }
    }

    /// Lets the workers read `input` ahead of the caller's first pull.
    /// Inputs are served in the order they are opened.
    package func open(_ input: Int) {
        if !started {
            started = true
            for _ in 0..<shape.workers { WorkerThread.read.start { [self] in work() } }
        }
        guard !opened.contains(input) else { return }
        opened.insert(input)
        let lane = Lane<Scanner.Scan>(file: inputs[input], maxLine: maxLine, buffers: shape.buffers, pieceBytes: shape.pieceBytes)
        shared.change { state in
            state.lanes[input] = lane
            state.order.append(input)
        }
    }

    /// The scan of `input`'s next piece, in input order, and with its last
    /// piece how the input ended. Call until an end comes back.
    package func next(_ input: Int) -> (Scanner.Scan, PieceCutter.PieceEnd?) {
        open(input)
        if callerScanner == nil { callerScanner = makeScanner() }
        while true {
            switch shared.wait(for: { $0.callerTask(input) }, until: { $0.callerCanGo(input) }) {
            case .take(let scan, let end): return (scan, end)
            case .scan(let claim): scan(claim, with: callerScanner!)
            case .cut(let claim): if let next = cut(claim) { scan(next, with: callerScanner!) }
            case .stop: preconditionFailure("a stopped feed was pulled")
            }
        }
    }

    /// Ends the workers once they finish what they hold. Call when the pass
    /// ends (a stopped pass leaves no thread waiting).
    package func stop() {
        shared.change { $0.stopped = true }
    }

    /// A worker: takes tasks until the feed stops.
    private func work() {
        let scanner = makeScanner()
        while true {
            switch shared.wait(for: { $0.workerTask() }, until: { $0.workerCanGo }) {
            case .cut(let claim): if let next = cut(claim) { scan(next, with: scanner) }
            case .scan(let claim): scan(claim, with: scanner)
            case .take, .stop: return
            }
        }
    }

    /// Cuts the claimed piece and, in the same turn, claims the oldest
    /// piece of that input waiting to be scanned (most often the one just
    /// cut): scanned next by the same thread, its bytes still in that
    /// core's cache, while another thread may cut the piece after it.
    private func cut(_ claim: CutClaim) -> ScanClaim? {
        let piece = claim.cutter.cut(into: claim.buffers[claim.slot])
        progress?(claim.input, claim.cutter.compressedBytes)
        return shared.change { state in
            state.cut(claim, piece)
            return state.lanes[claim.input]!.unclaimed > 0 ? state.lanes[claim.input]!.claimScan(input: claim.input) : nil
        }
    }

    private func scan(_ claim: ScanClaim, with scanner: Scanner) {
        let bytes = UnsafeRawBufferPointer(rebasing: claim.buffers[claim.slot][claim.piece.range])
        let scan = scanner.scan(claim.piece, of: claim.input, bytes: bytes, linesBefore: claim.linesBefore)
        shared.change { $0.scanned(claim, scan, lines: Scanner.lines(in: scan), weight: Scanner.weight(of: scan)) }
    }
}

/// A piece a thread claimed to cut: its input, cutter and buffer.
struct CutClaim {
    var input: Int
    var slot: Int
    var buffers: LaneBuffers
    var cutter: PieceCutter
}

/// A piece a thread claimed to scan: its place for good (pieces handed out
/// before it, plus its index in the lane), and the input's lines before it
/// when they are known.
struct ScanClaim {
    var input: Int
    var piece: PieceCutter.Piece
    var slot: Int
    var buffers: LaneBuffers
    var position: Int
    var linesBefore: Int?
}

/// What a thread does next.
enum FeedTask<Scan> {
    case cut(CutClaim)
    case scan(ScanClaim)
    /// The caller's next scan in input order.
    case take(Scan, end: PieceCutter.PieceEnd?)
    case stop
}
