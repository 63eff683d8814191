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
}
