import DequeModule

/// One input's part of a `Feed`: its cutter, its buffers, and its pieces
/// between cutting and the caller, in input order.
struct Lane<Scan> {
    /// Where a piece is between cutting and the caller.
    enum Stage {
        case cut(PieceCutter.Piece, slot: Int)
        case scanning
        case scanned(Scan, end: PieceCutter.PieceEnd?, weight: Int)
    }

    let cutter: PieceCutter
    let buffers: LaneBuffers
    /// Pieces not yet handed to the caller, in input order.
    var pieces = Deque<Stage>()
    /// Index in `pieces` of the first piece not yet claimed by a scanner:
    /// pieces are claimed oldest first, so the unclaimed ones are the last.
    var firstUnclaimed = 0
    /// Pieces handed to the caller so far.
    var handedOut = 0
    var freeSlots: [Int]
    /// A thread is cutting the next piece.
    var cutting = false
    /// The last piece has been cut.
    var cutAll = false
    /// Pieces claimed and not yet scanned.
    var scanning = 0
    /// Lines of the pieces scanned so far. Pieces are claimed oldest first,
    /// so when none is being scanned these are all the lines before the
    /// oldest unclaimed piece.
    var linesScanned = 0
    /// Weight of the pieces scanned and not yet taken.
    var scannedWeight = 0

    init(file: InputFile, maxLine: Int, buffers count: Int, pieceBytes: Int) {
        cutter = PieceCutter(path: file.path, size: file.identity?.size, maxLine: maxLine)
        buffers = LaneBuffers(count: count, size: pieceBytes)
        freeSlots = Array((0..<count).reversed())
    }

    /// Gives the buffers back; the lane is not used again.
    func free() {
        buffers.free()
    }

    var unclaimed: Int { pieces.count - firstUnclaimed }

    /// Every piece is cut and claimed: the input needs no more reading.
    var isRead: Bool { cutAll && unclaimed == 0 }

    /// Another piece may be cut: a buffer is free, few pieces wait to be
    /// scanned, and what waits for the caller is within bounds.
    func canCut(_ limits: FeedLimits) -> Bool {
        !cutAll && !cutting && !freeSlots.isEmpty && pieces.count < limits.depth && unclaimed < limits.readyTarget
            && scannedWeight < limits.weight
    }

    /// Claims the next cut.
    mutating func claimCut(input: Int) -> CutClaim {
        cutting = true
        let slot = freeSlots.removeLast()
        return CutClaim(input: input, slot: slot, buffers: buffers, cutter: cutter)
    }

    /// Claims the oldest unclaimed piece.
    mutating func claimScan(input: Int) -> ScanClaim {
        guard case .cut(let piece, let slot) = pieces[firstUnclaimed] else { preconditionFailure("claimed piece out of order") }
        pieces[firstUnclaimed] = .scanning
        firstUnclaimed += 1
        defer { scanning += 1 }
        return ScanClaim(
            input: input, piece: piece, slot: slot, buffers: buffers, position: handedOut + firstUnclaimed - 1,
            linesBefore: scanning == 0 ? linesScanned : nil)
    }

    /// Whether the first piece is scanned.
    var canTake: Bool {
        if case .scanned = pieces.first { return true }
        return false
    }

    /// Takes the first piece when it is scanned.
    mutating func take() -> (Scan, PieceCutter.PieceEnd?)? {
        guard case .scanned(let scan, let end, let weight) = pieces.first else { return nil }
        pieces.removeFirst()
        firstUnclaimed -= 1
        handedOut += 1
        scannedWeight -= weight
        return (scan, end)
    }

    /// Puts a cut piece after the others.
    mutating func add(_ piece: PieceCutter.Piece, slot: Int) {
        pieces.append(.cut(piece, slot: slot))
        cutting = false
        if piece.end != nil { cutAll = true }
    }

    /// Puts the scan of a claimed piece in its place and frees its buffer.
    mutating func scanned(_ claim: ScanClaim, _ scan: Scan, lines: Int, weight: Int) {
        pieces[claim.position - handedOut] = .scanned(scan, end: claim.piece.end, weight: weight)
        scannedWeight += weight
        freeSlots.append(claim.slot)
        scanning -= 1
        linesScanned += lines
    }
}
