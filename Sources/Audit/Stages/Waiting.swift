import DequeModule
import Rules

/// Records past the watermark wait (docs/contract.md §9): a chained run
/// audits only the records up to its watermark and hands the flip records
/// after it to the next run, which audits them in order with its own. So
/// servers whose logs were cut at different times chain to the rows of one
/// run over all their logs.
///
///     previous run's waiting ─┐
///                             ├─► by time, waiting first ─► ≤ watermark: audited
///     this run's events ──────┘                             > watermark: held
///
/// The watermark is the smallest end of the run's streams (`Streams`: a
/// server's consecutive files are one stream, and only its last file ends
/// it) that are not quiet: a stream whose end lies more than the session
/// timeout before the newest stream's end (a legacy server, a vhost with
/// no traffic since 23:20) holds nothing back. `--cut-at` moves every
/// stream's end to the cut at least. Never before the previous run's.
///
/// At equal times the waiting records come first: their files rank before
/// this run's in one run over both nights (an earlier first record), so a
/// record fed again tonight is the duplicate, not the one that waited.
///
/// While inputs are still being read the watermark is not known yet. An
/// event at or before every ended stream's end is audited at once (`ready`);
/// one after the end of a stream that may still turn out quiet waits here
/// (`undecided`) until the audit's time passes that end by the session
/// timeout (the stream is quiet) or every input ended (`finish`, where the
/// streams are worked out from what each input held: `Streams.ends`). While
/// reading, which file continues which is judged by the inputs' first
/// records as ranked (`FirstRecord`). The merge hands out an event only
/// once every open input has read past it, so an event let through is
/// within the watermark — except one the merge let go early (a flood past
/// its limit), or one past a file taken for continued that was not;
/// `audited` tells the caller, which then audits again with every event
/// sorted.
///
/// A class: the merge it pulls from tells it, through the audit's
/// callbacks, of inputs that ended while it pulls. Not `Sendable`: the
/// audit's thread only.
final class Waiting {
    /// Off (no `--checkpoint`): every event is audited.
    let on: Bool
    private let streams: Streams
    /// Per input, the time of its first record as ranked.
    private let starts: [Int64?]
    /// The previous run's watermark (no record at or before it waits).
    private let floor: Int64
    private let timeout: Int64
    private let cut: Int64?
    /// The previous run's waiting records, in this run's file numbering
    /// (after its inputs), in (time, file, line) order.
    private var carried: Deque<FlipEvent>
    /// The next event of the pulled stream, taken to compare.
    private var pulled: FlipEvent?
    private var pulledEnd = false
    /// Inputs not ended yet.
    private var open: Int
    /// Inputs that ended with no audited record.
    private var endedEmpty = Set<Int>()
    /// Inputs that ended and that a later file of their stream continues,
    /// by that file.
    private var continued: [Int: [Int64]] = [:]
    /// The ends of the streams that ended, as far as known while reading;
    /// once every input ended, the streams themselves (`finish`).
    private var known: [(end: Int64, last: Int64)] = []
    private(set) var ends: [Streams.End] = []
    /// The newest record time known: of the ended streams, and of this
    /// run's events seen.
    private var newest = Int64.min
    /// The bound, as far as known, and when it must be worked out again
    /// (`newest` passing a stream's last record by the timeout).
    private var cachedBound: Int64 = .max
    private var recheckAfter: Int64 = .max
    private var boundKnown = false
    /// Events after an ended stream's end, not known yet to lie inside the
    /// watermark, in audit order.
    private var undecided: Deque<FlipEvent> = []
    /// Events to audit, in order.
    private var out = EventQueue()
    private var finished = false
    private var final: Int64?
    /// This run's records past the watermark, in audit order.
    private(set) var held: [FlipEvent] = []

    /// Keeps, of the records past the watermark, those `keep` carries.
    func carry(_ keep: ([FlipEvent]) -> [FlipEvent]) { held = keep(held) }
    /// The latest time of an event audited.
    private(set) var audited = Int64.min

    /// `carried`: the previous run's checkpoint, whose waiting records are
    /// read with `codec` and numbered after this run's inputs; `starts`
    /// the inputs' first record times as ranked.
    init(
        on: Bool, carried: Checkpoint?, streams: Streams, starts: [Int64?], configuration: AuditConfiguration, codec: EventCodec
    ) {
        self.on = on
        self.streams = streams
        self.starts = starts
        open = streams.keys.count
        floor = carried?.watermark ?? Checkpoint.noWatermark
        timeout = Int64(configuration.sessionTimeoutSeconds) * 1000
        cut = configuration.cutAt
        let inputs = streams.keys.count
        var codec = codec
        // Checked when the checkpoint was read (`Checkpoint.decode`).
        let events = (carried?.waiting ?? []).compactMap { line in
            (try? codec.decode(line[...])).map {
                FlipEvent($0, source: SourceRef(file: $0.source.file + Int32(inputs), line: $0.source.line))
            }
        }
        self.carried = Deque(events.sorted { ($0.time, $0.source) < ($1.time, $1.source) })
    }

    /// Input `index` ended; its newest audited record is at `newest`.
    func ended(_ index: Int, newest last: Int64?) {
        open -= 1
        boundKnown = false
        guard let last else {
            endedEmpty.insert(index)
            // Files it was to continue end their streams after all.
            for end in continued.removeValue(forKey: index) ?? [] { record(end) }
            return
        }
        continued[index] = nil
        if let next = streams.successor(of: index, after: last, starts: starts), !endedEmpty.contains(next) {
            continued[next, default: []].append(last)
            return
        }
        record(last)
    }

    private func record(_ last: Int64) {
        let end = max(last, cut ?? last)
        known.append((end, last))
        newest = max(newest, end)
    }

    /// The next event: the earlier of `stream`'s and the carried ones
    /// (a carried one on a tie).
    func next(_ stream: some EventStream) -> FlipEvent? {
        if pulled == nil && !pulledEnd {
            pulled = stream.next()
            pulledEnd = pulled == nil
        }
        if let first = carried.first, pulled.map({ first.time <= $0.time }) ?? true {
            return carried.removeFirst()
        }
        return pulled.take()
    }

    /// Takes the next event in audit order; what may be audited comes out
    /// of `ready()`.
    func add(_ event: consuming FlipEvent) {
        guard on else {
            out.append(consume event)
            return
        }
        // This run's events only: a waiting record of the previous run
        // says nothing of tonight's streams.
        if event.time > newest && Int(event.source.file) < streams.keys.count {
            newest = event.time
            if newest > recheckAfter { boundKnown = false }
        }
        if undecided.isEmpty && event.time <= bound {
            audit(consume event)
            return
        }
        undecided.append(consume event)
        settle()
    }

    /// The next event to audit.
    func ready() -> FlipEvent? { out.popFirst() }

    /// Every input ended and every event was added; `first` and `last`
    /// hold each input's first and newest audited record. The streams are
    /// worked out, the undecided events inside the watermark come out of
    /// `ready()`, and the others are held.
    func finish(first: [Int64?], last: [Int64?]) {
        finished = true
        ends = streams.ends(first: first, last: last, cut: cut)
        final = Streams.watermark(ends, timeout: timeout).map { max($0, floor) } ?? (floor == Checkpoint.noWatermark ? nil : floor)
        boundKnown = false
        settle()
        held += undecided
        undecided = []
    }

    private func settle() {
        let b = bound
        while let first = undecided.first, first.time <= b {
            audit(undecided.removeFirst())
        }
    }

    private func audit(_ event: consuming FlipEvent) {
        audited = max(audited, event.time)
        out.append(consume event)
    }

    /// Records after this wait: once every input ended, the watermark;
    /// before, the smallest end of the ended streams whose last record is
    /// not passed by more than the session timeout (those are quiet for
    /// sure: the newest end is at least `newest`), never before the
    /// previous run's watermark; unbounded while none is known.
    var bound: Int64 {
        guard on else { return .max }
        if finished { return final ?? .max }
        if boundKnown { return cachedBound }
        boundKnown = true
        var smallest = Int64.max
        var recheck = Int64.max
        for e in known where e.last + timeout >= newest {
            smallest = min(smallest, e.end)
            recheck = min(recheck, e.last + timeout)
        }
        cachedBound = max(smallest, floor)
        recheckAfter = recheck
        return cachedBound
    }

    /// The run's watermark once every input ended: the streams' (never
    /// before the previous run's); nil when no record was audited and no
    /// run came before.
    var watermark: Int64? { final }

    /// The stream whose end is the watermark (the one the waiting records
    /// wait for), when records wait.
    var holder: Streams.End? {
        guard !held.isEmpty else { return nil }
        return ends.filter { !Streams.quiet($0, among: ends, timeout: timeout) }.min { ($0.end, $0.input) < ($1.end, $1.input) }
    }
}
