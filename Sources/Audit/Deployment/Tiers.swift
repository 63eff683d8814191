import DequeModule
import Rules

/// Tiers (docs/contract.md §9): a request that passes a proxy, load
/// balancer or CDN and its backend is logged by each, in other formats,
/// with other client addresses, up to two seconds apart. Two flip records
/// of different inputs are twins when they carry the same state and match
/// (`Twin`: method, status, query string, and Location where both log one)
/// within `window` — unless their lines are the same bytes, a duplicate
/// (a file kept twice, `DuplicateFilter`). Two inputs most of whose flip records are twins of
/// each other are tiers of one another (or the user says so, `--tiers`).
///
/// Which inputs are tiers is decided from each input's first flip records
/// (`TwinSample`, `detect`). Twins are paired one to one, in time order,
/// only between inputs known as tiers (`known`), and each pair is audited
/// once: the record that logs a Location when only one does, else the
/// earlier. A double tap within one input stays two requests; two
/// different requests through two unrelated fronts are never joined; a
/// record without a state is never paired.
///
/// Events come in audit order and leave in it, each held until it is
/// `window` older than the newest: at most two seconds of flip events.
/// Only events of one state ever pair, so a distributed reducer, one state
/// at a time, pairs as one process does.
package struct Tiers {
    /// Two inputs by rank, the smaller first.
    package struct Pair: Hashable, Comparable, Sendable {
        package var a: Int32
        package var b: Int32
        package init(_ x: Int32, _ y: Int32) {
            a = min(x, y)
            b = max(x, y)
        }
        package static func < (l: Pair, r: Pair) -> Bool { (l.a, l.b) < (r.a, r.b) }
    }

    /// How far apart two tiers log one request (ms).
    package static let window: Int64 = 2000

    /// Pairs of inputs known as tiers: their twins are audited once.
    private(set) var known: Set<Pair>
    /// This run's inputs: events numbered after them (the previous run's
    /// waiting records) are never paired.
    private let inputs: Int32
    /// Twins audited once, per pair of tiers.
    private(set) var paired: [Pair: Int] = [:]

    private struct Entry {
        var event: FlipEvent
        var matched = false
        var dropped = false
    }
    private var held: Deque<Entry> = []
    /// The sequence number of `held.first`.
    private var base = 0
    /// Held events by twin key, as sequence numbers, oldest first.
    private var byKey: [UInt64: [Int]] = [:]
    private var out: Deque<FlipEvent> = []
    /// What was handed on in the last `window`: a record past the
    /// watermark whose twin was audited is not carried (`carry`).
    private var tail: TwinMemory

    init(known: Set<Pair>, inputs: Int) {
        self.known = known
        self.inputs = Int32(inputs)
        let count = Int32(inputs)
        tail = TwinMemory { a, b in a < count && b < count && known.contains(Pair(a, b)) }
    }

    /// Whether an event passes through untouched: no tiers known.
    var passes: Bool { known.isEmpty && held.isEmpty }

    /// Learns pairs of tiers before any event (found in the inputs' samples
    /// once every input was read: the sorting pass).
    mutating func learn(_ pairs: Set<Pair>) {
        known.formUnion(pairs)
        let (known, count) = (known, inputs)
        tail = TwinMemory { a, b in a < count && b < count && known.contains(Pair(a, b)) }
    }

    /// The records past the watermark to carry to the next run: those
    /// whose twin was audited within `window` before are left out (one
    /// request in flight at the cut, logged by two tiers on both sides of
    /// it), and of twins both past it, one is carried.
    mutating func carry(_ held: [FlipEvent]) -> [FlipEvent] {
        guard !known.isEmpty else { return held }
        return held.filter { tail.admits($0) }
    }

    /// Takes the next event in audit order; what is settled comes out of
    /// `next()`.
    mutating func add(_ event: FlipEvent) {
        // No tiers known: nothing pairs, nothing waits.
        if known.isEmpty && held.isEmpty {
            out.append(event)
            return
        }
        release(before: event.time - Self.window)
        guard let twin = event.twin, let state = event.stateKey, event.source.file < inputs else {
            if held.isEmpty { out.append(event) } else { held.append(Entry(event: event, matched: true)) }
            return
        }
        var entry = Entry(event: event)
        if let seqs = byKey[twin.key],
            let seq = seqs.first(where: { seq in
                let other = held[seq - base]
                // The same line bytes are a duplicate (a file kept twice),
                // which `DuplicateFilter` counts: not a twin.
                return !other.matched && other.event.source.file != event.source.file && other.event.stateKey == state
                    && other.event.lineKey != event.lineKey && known.contains(Pair(other.event.source.file, event.source.file))
                    && other.event.twin.map(twin.matches) == true
            })
        {
            let pair = Pair(held[seq - base].event.source.file, event.source.file)
            if known.contains(pair) {
                held[seq - base].matched = true
                entry.matched = true
                paired[pair, default: 0] += 1
                // The one that logs the Location when only one does, else
                // the earlier, is audited.
                if held[seq - base].event.twin?.location == nil && twin.location != nil {
                    held[seq - base].dropped = true
                } else {
                    entry.dropped = true
                }
            }
        }
        guard !entry.dropped else { return }
        byKey[twin.key, default: []].append(base + held.count)
        held.append(entry)
    }

    /// The next event to audit.
    mutating func next() -> FlipEvent? { out.popFirst() }

    /// Hands on everything held (the input ended, or a key did).
    mutating func flush() { release(before: .max) }

    private mutating func release(before time: Int64) {
        while let first = held.first, first.event.time < time {
            held.removeFirst()
            if let key = first.event.twin?.key, var seqs = byKey[key], seqs.first == base {
                seqs.removeFirst()
                byKey[key] = seqs.isEmpty ? nil : seqs
            }
            base += 1
            if !first.dropped {
                out.append(first.event)
                tail.remember(first.event)
            }
        }
    }

    /// The pairs `--tiers GLOB,GLOB` names among inputs named `names` (in
    /// rank order).
    package static func named(_ globs: [(String, String)], names: [String]) -> Set<Pair> {
        var pairs = Set<Pair>()
        for (first, second) in globs {
            let a = names.indices.filter { AuditConfiguration.matches(first, name: names[$0]) }
            let b = names.indices.filter { AuditConfiguration.matches(second, name: names[$0]) }
            for i in a { for j in b where i != j { pairs.insert(Pair(Int32(i), Int32(j))) } }
        }
        return pairs
    }

    /// The fewest twins that make two inputs tiers: one or two twins of
    /// two unrelated fronts (a replay through the other) never do.
    static let fewest = 3

    /// Pairs of inputs most of whose sampled flip records (of the smaller
    /// sample) are twins of the other's, at least `fewest`: tiers, found in
    /// the records themselves. Inputs by rank, `samples` in that order.
    package static func detect(_ samples: [TwinSample]) -> Set<Pair> {
        // Twins share their state and key: only records in one group can
        // pair, one to one, in time order.
        struct Record {
            var input: Int32
            var entry: TwinSample.Entry
        }
        var groups: [UInt64: [Record]] = [:]
        for (input, sample) in samples.enumerated() {
            for entry in sample.entries { groups[entry.state ^ entry.twin.key, default: []].append(Record(input: Int32(input), entry: entry)) }
        }
        var twins: [Pair: Int] = [:]
        for key in groups.keys.sorted() {
            let group = groups[key]!
            guard group.count > 1 else { continue }
            let records = group.sorted { ($0.entry.time, $0.input) < ($1.entry.time, $1.input) }
            var matched = [Bool](repeating: false, count: records.count)
            for i in records.indices where !matched[i] {
                let r = records[i]
                guard
                    let j = records.indices.first(where: { j in
                        j > i && !matched[j] && records[j].input != r.input && records[j].entry.state == r.entry.state
                            && records[j].entry.line != r.entry.line && records[j].entry.time - r.entry.time <= window
                            && records[j].entry.twin.matches(r.entry.twin)
                    })
                else { continue }
                matched[i] = true
                matched[j] = true
                twins[Pair(r.input, records[j].input), default: 0] += 1
            }
        }
        return Set(
            twins.filter { pair, n in
                n >= fewest && n * 2 > min(samples[Int(pair.a)].entries.count, samples[Int(pair.b)].entries.count)
            }.keys)
    }
}

/// Tiers for a follower, whose findings cannot wait two seconds for a
/// twin: an event whose twin, from an input known as its tier, was audited
/// within `Tiers.window` is left out (the earlier is kept, whichever logs
/// a Location). Pairs one to one, as `Tiers` does.
package struct TwinMemory {
    private struct Seen {
        var time: Int64
        var file: Int32
        var state: UInt64
        var twin: Twin
        var line: UInt64
        var matched = false
    }
    /// Whether the inputs of two ranks are tiers of one another.
    private let tiers: (Int32, Int32) -> Bool
    private var recent: Deque<Seen> = []
    /// How many of `recent` carry each state: a state seen once in the
    /// window (nearly every one) pairs with nothing, found without a scan.
    private var states: [UInt64: Int] = [:]

    package init(tiers: @escaping (Int32, Int32) -> Bool) { self.tiers = tiers }

    /// Notes `event` as audited, whatever it pairs with.
    package mutating func remember(_ event: FlipEvent) {
        forget(before: event.time - Tiers.window)
        guard let twin = event.twin, let state = event.stateKey else { return }
        add(Seen(time: event.time, file: event.source.file, state: state, twin: twin, line: event.lineKey))
    }

    private mutating func add(_ seen: Seen) {
        recent.append(seen)
        states[seen.state, default: 0] += 1
    }

    private mutating func forget(before time: Int64) {
        while let first = recent.first, first.time < time {
            recent.removeFirst()
            if let n = states[first.state], n > 1 { states[first.state] = n - 1 } else { states[first.state] = nil }
        }
    }

    /// Whether `event` is to be audited: false for the second of twins.
    package mutating func admits(_ event: FlipEvent) -> Bool {
        forget(before: event.time - Tiers.window)
        guard let twin = event.twin, let state = event.stateKey else { return true }
        if states[state] != nil,
            let i = recent.indices.first(where: { i in
                let s = recent[i]
                return !s.matched && s.file != event.source.file && s.state == state && s.line != event.lineKey && s.twin.matches(twin)
                    && tiers(s.file, event.source.file)
            })
        {
            recent[i].matched = true
            return false
        }
        add(Seen(time: event.time, file: event.source.file, state: state, twin: twin, line: event.lineKey))
        return true
    }
}
