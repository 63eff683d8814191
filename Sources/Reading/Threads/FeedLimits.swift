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
    /// Open inputs being read at once: the first ones, in the order they
    /// were opened, not yet read to their end. Each holds a decoder, a read
    /// buffer, a line buffer and its pieces' buffers; a folder of small
    /// files opens 32 ahead, and reading all of them at once would cost
    /// more memory and page faults than it won. An input read to its end
    /// holds only its events until the caller takes them.
    var inputsAhead = 3
}
