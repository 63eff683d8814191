/// What a `Feed` does with the pieces it cuts: scans one piece of whole
/// lines of one input into a `Scan`. Each thread of a feed has its own
/// scanner (made by the feed's factory), kept for every piece it scans,
/// whichever input the piece is of; so a scanner is used by one thread at
/// a time and needs no lock.
package protocol PieceScanning: AnyObject, SendableMetatype {
    associatedtype Scan: Sendable

    /// Scans `piece` of input `input`, whose bytes are `bytes`.
    /// `linesBefore` is the number of the input's lines before the piece
    /// when every earlier piece has been scanned, nil when some is still
    /// being scanned (the piece is read ahead of its turn).
    func scan(_ piece: PieceCutter.Piece, of input: Int, bytes: UnsafeRawBufferPointer, linesBefore: Int?) -> Scan

    /// The lines `scan` read.
    static func lines(in scan: Scan) -> Int

    /// What `scan` holds in memory until it is taken (flip events): a feed
    /// keeps at most `FeedLimits.weight` of it per input, scanned and not
    /// taken.
    static func weight(of scan: Scan) -> Int
}
