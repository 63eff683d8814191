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
    /// Whether its events carry twins (`AuditConfiguration.keysLines`):
    /// without, the sample stays empty and no event need be looked at.
    private let twins: Bool

    init(twins: Bool) { self.twins = twins }

    /// Takes in the next batch.
    mutating func see(_ batch: EventBatch) {
        locationLines.take(batch.locationLines)
        // Read in place: a copy of each event would retain and release it,
        // two atomic operations on a line the reading thread just wrote.
        batch.events.withUnsafeBufferPointer { events in
            for i in events.indices { outOfOrder.see(events[i].time) }
            if twins && !sample.isFull { for i in events.indices { sample.see(events[i]) } }
        }
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
        _ feed: EventFeed, twins: Bool, batch: (EventBatch) throws(Failure) -> Void
    ) throws(Failure) -> (scan: FileScan, step: ReadStep) {
        var step = ReadStep(twins: twins)
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
