/// How much of one input a `Feed` holds between cutting and the caller.
struct FeedLimits: Sendable {
    /// Pieces, at most.
    var depth: Int
    /// Pieces kept cut and unclaimed before a worker scans instead of
    /// cutting more.
    var readyTarget: Int
    /// Weight (flip events) of pieces scanned and not taken, at most: a log
    /// that is all flip traffic holds this many events, not `depth`
    /// pieces' worth.
    var weight = 8192
    /// Open inputs a worker serves at once: the first ones in the order
    /// they were opened. Each input being read holds a decoder, a read
    /// buffer, a line buffer and its pieces' buffers; a folder of small
    /// files opens eight ahead, and reading all of them at once cost more
    /// memory and page faults than it won.
    var inputsAhead = 3
}
