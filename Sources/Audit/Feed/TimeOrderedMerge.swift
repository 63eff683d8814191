import DequeModule
import HeapModule
import Rules

/// Merges the flip events of every input into one stream ordered by (time,
/// file, line), holding only what the order still needs: an input is read
/// no further than needed, and an event leaves as soon as no input can
/// still produce an earlier one.
///
/// Logs are nearly in time order but not quite (several workers, request
/// start times): within an input, records up to `window` older than the
/// newest one read are put back in order. An event that would leave after
/// a later one has left ends the merge: `next()` returns nil and
/// `outOfOrder` names it, and the caller sorts the whole input instead
/// (`EventSort`). So does a flood of events inside the window past
/// `maxPending`, which must leave before they are settled. Which input is
/// read next depends only on the data, so the stream is the same however
/// the inputs are read (threads or not).
final class TimeOrderedMerge {
    /// Events held for ordering at most: past it the earliest goes out
    /// even before it is settled (should an earlier one come after, the
    /// merge stops and the input is sorted instead).
    static let maxPending = 50_000

    /// Something ordered as the stream is, by (time, file, line), its key
    /// inline: an event waiting in the heap, or an input's first queued
    /// event standing for the input.
    private struct Keyed<Value>: Comparable {
        var time: Int64
        var source: SourceRef
        var value: Value
        static func < (a: Self, b: Self) -> Bool { (a.time, a.source) < (b.time, b.source) }
        static func == (a: Self, b: Self) -> Bool { a.time == b.time && a.source == b.source }
    }

    private let feeds: [EventFeed]
    private let window: Int64
    /// Per input, its events that came in time order: the common case,
    /// kept in arrival order without heap work.
    private var inOrder: [Deque<FlipEvent>]
    /// Events that came earlier than the last one queued from their input.
    private var heap = Heap<Keyed<FlipEvent>>()
    /// Events waiting, in the queues and the heap.
    private var pending = 0
    /// Latest record time read from each input so far; an input not opened
    /// yet starts at the time of its first record (or the dawn of time).
    private var frontier: [Int64]
    private var active: [Bool]
    private var activeCount: Int
    /// Time of the last event handed out.
    private var clock = Int64.min
    /// The first event of every input whose in-order queue holds events
    /// (a handful, or as many inputs as the window spans: a folder of
    /// small files), keyed as the stream is ordered.
    private var heads = Heap<Keyed<Int>>()

    /// The inputs in the order the merge will most likely open them (by
    /// first record time), and how many of them have been asked to read
    /// ahead: opening one opens the next `readAhead` in the feed (its
    /// workers read the first few of them, oldest first), so that a folder
    /// of many small files keeps the reading threads busy while the audit
    /// works through the current one, and an input slow to audit does not
    /// leave them idle until the next is opened.
    private let openingOrder: [Int]
    private var position: [Int]
    private var prepared = 0
    static let readAhead = 32
    private let onBatch: (Int, EventBatch) -> Void
    private let onEnd: (Int, FileScan) -> Void

    /// The first event that came after a later one had left; the merge
    /// stopped there.
    private(set) var outOfOrder: SourceRef?

    /// `startTimes` are the inputs' first record times, where known.
    /// `onBatch` sees every batch as it is pulled, `onEnd` each input's end.
    init(
        feeds: [EventFeed], startTimes: [Int64?], window: Int64 = AuditConfiguration.reorderWindow,
        onBatch: @escaping (Int, EventBatch) -> Void, onEnd: @escaping (Int, FileScan) -> Void
    ) {
        self.feeds = feeds
        self.window = window
        frontier = startTimes.map { $0 ?? .min }
        inOrder = Array(repeating: Deque(), count: feeds.count)
        active = Array(repeating: true, count: feeds.count)
        activeCount = feeds.count
        openingOrder = feeds.indices.sorted { (startTimes[$0] ?? .min, $0) < (startTimes[$1] ?? .min, $1) }
        position = Array(repeating: 0, count: feeds.count)
        for (p, i) in openingOrder.enumerated() { position[i] = p }
        self.onBatch = onBatch
        self.onEnd = onEnd
        updateBounds()
    }

    /// The next event in time order, or nil when every input is done.
    func next() -> FlipEvent? {
        guard outOfOrder == nil else { return nil }
        while true {
            if pending > 0, let (from, first) = earliest(), activeCount == 0 || first < settled || pending > Self.maxPending {
                let event: FlipEvent
                if from < 0 {
                    event = heap.removeMin().value
                } else {
                    event = inOrder[from].removeFirst()
                    // `earliest` found this input's head at the top.
                    _ = heads.removeMin()
                    if let head = inOrder[from].first { heads.insert(Keyed(time: head.time, source: head.source, value: from)) }
                }
                pending -= 1
                if event.time < clock {
                    outOfOrder = event.source
                    return nil
                }
                clock = event.time
                return event
            }
            guard behind >= 0 else { return nil }
            while prepared < min(feeds.count, position[behind] + 1 + Self.readAhead) {
                feeds[openingOrder[prepared]].prepare()
                prepared += 1
            }
            switch feeds[behind].next() {
            case .batch(let batch):
                let wasEmpty = inOrder[behind].isEmpty
                for event in batch.events {
                    if let last = inOrder[behind].last, last.time > event.time {
                        heap.insert(Keyed(time: event.time, source: event.source, value: event))
                    } else {
                        inOrder[behind].append(event)
                    }
                }
                if wasEmpty, let head = inOrder[behind].first {
                    heads.insert(Keyed(time: head.time, source: head.source, value: behind))
                }
                pending += batch.events.count
                if let f = batch.frontier, f > frontier[behind] { frontier[behind] = f }
                onBatch(behind, batch)
            case .end(let scan):
                active[behind] = false
                activeCount -= 1
                onEnd(behind, scan)
            }
            updateBounds()
        }
    }

    /// No input can still produce an event older than `settled`; `behind`
    /// is the input to read next (the one furthest behind, the first such
    /// one on a tie), -1 when none.
    private var settled = Int64.min
    private var behind = -1

    /// An active input's frontier, ordered as `behind` is chosen.
    private struct Frontier: Comparable {
        var time: Int64
        var input: Int
        static func < (a: Self, b: Self) -> Bool { (a.time, a.input) < (b.time, b.input) }
    }

    /// The active inputs by frontier. Only `behind` moves on between two
    /// updates, so keeping them in a heap costs a logarithm per pull
    /// instead of a look at every input (a folder of thousands of files).
    private var frontiers = Heap<Frontier>()

    /// Recomputes `settled` and `behind` after `behind` moved on (or all
    /// of them, the first time).
    private func updateBounds() {
        if behind < 0 {
            frontiers = Heap(feeds.indices.filter { active[$0] }.map { Frontier(time: frontier[$0], input: $0) })
        } else {
            _ = frontiers.removeMin()
            if active[behind] { frontiers.insert(Frontier(time: frontier[behind], input: behind)) }
        }
        guard let first = frontiers.min else {
            settled = .max
            behind = -1
            return
        }
        behind = first.input
        settled = first.time == .min ? .min : first.time - window
    }

    /// Where the earliest waiting event is — an input's queue, or the heap
    /// (-1) — and its time.
    private func earliest() -> (Int, Int64)? {
        switch (heap.min, heads.min) {
        case (nil, nil): return nil
        case (let h?, nil): return (-1, h.time)
        case (nil, let q?): return (q.value, q.time)
        case (let h?, let q?): return (h.time, h.source) <= (q.time, q.source) ? (-1, h.time) : (q.value, q.time)
        }
    }
}
