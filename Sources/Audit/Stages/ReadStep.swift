import Rules

/// The read stage of one input, as both drivers run it: the input's
/// batches in line order (from an `EventFeed`), and beside the events what
/// the rules and the report need of it — records that came out of time
/// order, the first line that logged a Location field, and the scan's
/// summary. One process feeds its events to the merge (`Analyzer`) or the
/// sort; a distributed read writes them as lines (`ReadStage`).
struct ReadStep {
    private var outOfOrder = OutOfOrderCount()
    /// The first lines of the input that logged a Location field, as far
    /// as it has been read.
    private(set) var locationLines = LocationLines()
    /// Its first flip records that could have a twin (tiers).
    private(set) var sample = TwinSample()

    /// Takes in the next batch.
    mutating func see(_ batch: EventBatch) {
        locationLines.take(batch.locationLines)
        for event in batch.events { outOfOrder.see(event.time) }
        if !sample.isFull { for event in batch.events { sample.see(event) } }
    }

    /// The input's end: its scan, with the records out of time order
    /// counted and its twin sample.
    mutating func finish(_ scan: FileScan) -> FileScan {
        locationLines.take(scan.locationLines)
        var scan = scan
        scan.accounting.outOfOrderRecords = outOfOrder.count
        scan.sample = sample
        return scan
    }

    /// Reads `feed` to its end, handing each batch to `batch` once seen;
    /// the input's end, and the step with what it saw.
    static func read<Failure: Error>(
        _ feed: EventFeed, batch: (EventBatch) throws(Failure) -> Void
    ) throws(Failure) -> (scan: FileScan, step: ReadStep) {
        var step = ReadStep()
        while true {
            switch feed.next() {
            case .batch(let b):
                step.see(b)
                try batch(b)
            case .end(let scan):
                return (step.finish(scan), step)
            }
        }
    }
}
