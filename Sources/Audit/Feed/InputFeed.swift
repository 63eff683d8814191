import Reading
import Rules

/// Where the merge pulls one input's batches from, in line order.
protocol EventFeed: AnyObject {
    func next() -> FeedItem
    /// Lets the input be read ahead of its first pull.
    func prepare()
}

/// One input of a pass's `Feed`, as the merge pulls it: its piece scans,
/// in input order, put back together into batches (`ScanAssembler`).
final class InputFeed: EventFeed {
    private let feed: Feed<PieceScanner>
    private let index: Int
    private var assembler: ScanAssembler
    private var batches: [EventBatch] = []
    private var endScan: FileScan?

    init(_ feed: Feed<PieceScanner>, index: Int, file: InputFile, format: AuditConfiguration.Format, zone: String? = nil) {
        self.feed = feed
        self.index = index
        assembler = ScanAssembler(file: file, format: format, zone: zone)
    }

    func prepare() { feed.open(index) }

    func next() -> FeedItem {
        while true {
            if !batches.isEmpty { return .batch(batches.removeFirst()) }
            if let endScan { return .end(endScan) }
            let (scan, end) = feed.next(index)
            assembler.add(scan, emit: { batches.append($0) })
            if let end {
                endScan = assembler.finish(end: end.input, failure: end.failure, emit: { batches.append($0) })
            }
        }
    }
}
