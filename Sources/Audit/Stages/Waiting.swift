import DequeModule
import Rules

/// Records past the watermark wait (docs/contract.md §9): a chained run
/// audits only the records up to its watermark — the smallest, over its
/// inputs, of each one's newest record time — and hands the flip records
/// after it to the next run, which audits them in order with its own. So
/// servers whose logs were cut at different times chain to the rows of one
/// run over all their logs.
///
///     previous run's waiting ─┐
///                             ├─► by time, waiting first ─► ≤ bound: audited
///     this run's events ──────┘                             > bound: held
///
/// At equal times the waiting records come first: their files rank before
/// this run's in one run over both nights (an earlier first record), so a
/// record fed again tonight is the duplicate, not the one that waited.
///
/// While inputs are still being read the watermark is not known yet:
/// `bound` is the one the inputs that ended give, and only falls as more
/// end. The merge hands out an event only once every open input has read
/// past it, so an event within `bound` is within the watermark — except
/// one the merge let go early (a flood past its limit); `audited` tells the
/// caller, which then audits again with every event sorted.
///
/// A class: the merge it pulls from tells it, through the audit's
/// callbacks, of inputs that ended while it pulls. Not `Sendable`: the
/// audit's thread only.
final class Waiting {
    /// Off (no `--checkpoint`): every event is audited.
    let on: Bool
    /// The previous run's watermark (no record at or before it waits).
    private let floor: Int64
    /// The previous run's waiting records, in this run's file numbering
    /// (after its inputs), in (time, file, line) order.
    private var carried: Deque<FlipEvent>
    /// The next event of the pulled stream, taken to compare.
    private var pulled: FlipEvent?
    private var pulledEnd = false
    /// The smallest newest record time of the inputs that ended.
    private var newestOfEnded: Int64?
    /// Inputs not ended yet.
    private var open: Int
    /// This run's records past the watermark, in audit order.
    private(set) var held: [FlipEvent] = []
    /// The latest time of an event audited.
    private(set) var audited = Int64.min

    /// `carried`: the previous run's checkpoint, whose waiting records are
    /// read with `codec` and numbered after this run's `inputs` files.
    init(on: Bool, carried: Checkpoint?, inputs: Int, codec: EventCodec) {
        self.on = on
        open = inputs
        floor = carried?.watermark ?? Checkpoint.noWatermark
        var codec = codec
        // Checked when the checkpoint was read (`Checkpoint.decode`).
        let events = (carried?.waiting ?? []).compactMap { line in
            (try? codec.decode(line[...])).map {
                FlipEvent($0, source: SourceRef(file: $0.source.file + Int32(inputs), line: $0.source.line))
            }
        }
        self.carried = Deque(events.sorted { ($0.time, $0.source) < ($1.time, $1.source) })
    }

    /// Input ended whose newest audited record is at `newest`.
    func ended(newest: Int64?) {
        open -= 1
        guard let newest else { return }
        newestOfEnded = min(newestOfEnded ?? newest, newest)
    }

    /// Records after this wait: the watermark as far as the ended inputs
    /// tell it, never before the previous run's. Once every input ended,
    /// the watermark itself (the previous run's when none had a record).
    var bound: Int64 {
        guard on else { return .max }
        guard let newest = newestOfEnded else { return open > 0 ? .max : floor }
        return max(newest, floor)
    }

    /// The next event: the earlier of `pull()`'s and the carried ones
    /// (a carried one on a tie).
    func next(_ pull: () -> FlipEvent?) -> FlipEvent? {
        if pulled == nil && !pulledEnd {
            pulled = pull()
            pulledEnd = pulled == nil
        }
        if let first = carried.first, pulled.map({ first.time <= $0.time }) ?? true {
            return carried.removeFirst()
        }
        defer { pulled = nil }
        return pulled
    }

    /// Whether `event` waits for the next run (it is held); if not, the
    /// caller audits it.
    func holds(_ event: FlipEvent) -> Bool {
        if event.time > bound {
            held.append(event)
            return true
        }
        audited = max(audited, event.time)
        return false
    }
}
