/// What a `Feed`'s threads share, in its `HandOff`: the open inputs'
/// lanes, the order they were opened in, and whether the feed stopped.
struct FeedState<Scan> {
    var lanes: [Int: Lane<Scan>] = [:]
    /// Open inputs, in the order they were opened: the order the caller
    /// needs them, which is the order workers serve them.
    var order: [Int] = []
    var stopped = false
    let limits: FeedLimits

    init(limits: FeedLimits) {
        self.limits = limits
    }

    /// A worker's next task: for the first input (in `order`, among the
    /// first `inputsAhead` still being read) that has work, a cut while
    /// few of its pieces wait, else a scan.
    mutating func workerTask() -> FeedTask<Scan>? {
        if stopped { return .stop }
        for input in reading {
            if lanes[input]!.canCut(limits) { return .cut(lanes[input]!.claimCut(input: input)) }
            if lanes[input]!.unclaimed > 0 { return .scan(lanes[input]!.claimScan(input: input)) }
        }
        return nil
    }

    /// Whether `workerTask` has something to do.
    var workerCanGo: Bool {
        stopped || reading.contains { lanes[$0]!.unclaimed > 0 || lanes[$0]!.canCut(limits) }
    }

    /// The first `inputsAhead` open inputs, in `order`, that are still
    /// being read: an input whose pieces are all cut and claimed only
    /// waits for the caller, and takes no worker's place (a folder of
    /// small files is read ahead of the caller, not just beside it).
    private var reading: some Sequence<Int> {
        order.lazy.filter { !lanes[$0]!.isRead }.prefix(limits.inputsAhead)
    }

    /// The caller's next task for `input`: take its next piece when it is
    /// scanned; else scan a waiting piece of it, or cut one; else what a
    /// worker would do next (a folder of small files: the next file is cut
    /// while a worker cuts this one). Never the last with no workers: there
    /// the caller's input always has something to do.
    mutating func callerTask(_ input: Int) -> FeedTask<Scan>? {
        guard lanes[input] != nil else { return .stop }
        if let (scan, end) = lanes[input]!.take() {
            if end != nil {
                lanes.removeValue(forKey: input)!.free()
                order.removeAll { $0 == input }
            }
            return .take(scan, end: end)
        }
        if lanes[input]!.unclaimed > 0 { return .scan(lanes[input]!.claimScan(input: input)) }
        if lanes[input]!.canCut(limits) { return .cut(lanes[input]!.claimCut(input: input)) }
        return stopped ? nil : workerTask()
    }

    /// Whether `callerTask(input)` has something to do.
    func callerCanGo(_ input: Int) -> Bool {
        guard let lane = lanes[input] else { return true }
        return lane.canTake || lane.unclaimed > 0 || lane.canCut(limits) || (!stopped && workerCanGo)
    }

    /// Puts a cut piece in its lane.
    mutating func cut(_ claim: CutClaim, _ piece: PieceCutter.Piece) {
        lanes[claim.input]!.add(piece, slot: claim.slot)
    }

    /// Puts the scan of a claimed piece in its place.
    mutating func scanned(_ claim: ScanClaim, _ scan: Scan, lines: Int, weight: Int) {
        lanes[claim.input]!.scanned(claim, scan, lines: lines, weight: weight)
        // A read input's buffers are no thread's now: back to the pool.
        if lanes[claim.input]!.isRead && lanes[claim.input]!.scanning == 0 { lanes[claim.input]!.free() }
    }
}
