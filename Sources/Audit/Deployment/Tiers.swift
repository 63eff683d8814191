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
/// Twins are paired one to one, in time order, only between inputs known
/// as tiers (`known`), and each pair is audited once: the record that logs
/// a Location when only one does, else the earlier. A double tap within
/// one input stays two requests; two different requests through two
/// unrelated fronts are never joined; a record without a state is never
/// paired. Between other inputs twins are only counted (`twins`), so the
/// run can tell which inputs are tiers and audit them again knowing it
/// (`detected`).
///
/// Events come in audit order and leave in it, each held until it is
/// `window` older than the newest: at most two seconds of flip events.
/// Only events of one state ever pair, so a distributed reducer, one state
/// at a time, pairs as one process does.
struct Tiers {
    /// Two inputs by rank, the smaller first.
    struct Pair: Hashable, Comparable, Sendable {
        var a: Int32
        var b: Int32
        init(_ x: Int32, _ y: Int32) {
            a = min(x, y)
            b = max(x, y)
        }
        static func < (l: Pair, r: Pair) -> Bool { (l.a, l.b) < (r.a, r.b) }
    }

    /// How far apart two tiers log one request (ms).
    static let window: Int64 = 2000

    /// Pairs of inputs known as tiers: their twins are audited once.
    let known: Set<Pair>
    /// This run's inputs: events numbered after them (the previous run's
    /// waiting records) are never paired.
    private let inputs: Int32
    /// Twins seen between any two inputs, one to one.
    private(set) var twins: [Pair: Int] = [:]
    /// Of those, the ones audited once (between known tiers).
    private(set) var paired: [Pair: Int] = [:]
    /// Flip records that could have a twin, per input.
    private(set) var records: [Int32: Int] = [:]

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

    init(known: Set<Pair>, inputs: Int) {
        self.known = known
        self.inputs = Int32(inputs)
    }

    /// Takes the next event in audit order; what is settled comes out of
    /// `next()`.
    mutating func add(_ event: FlipEvent) {
        release(before: event.time - Self.window)
        guard let twin = event.twin, let state = event.stateKey, event.source.file < inputs else {
            if held.isEmpty { out.append(event) } else { held.append(Entry(event: event, matched: true)) }
            return
        }
        records[event.source.file, default: 0] += 1
        var entry = Entry(event: event)
        if let seqs = byKey[twin.key],
            let seq = seqs.first(where: { seq in
                let other = held[seq - base]
                // The same line bytes are a duplicate (a file kept twice),
                // which `DuplicateFilter` counts: not a twin.
                return !other.matched && other.event.source.file != event.source.file && other.event.stateKey == state
                    && other.event.lineKey != event.lineKey && other.event.twin.map(twin.matches) == true
            })
        {
            let pair = Pair(held[seq - base].event.source.file, event.source.file)
            twins[pair, default: 0] += 1
            held[seq - base].matched = true
            entry.matched = true
            if known.contains(pair) {
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
            if !first.dropped { out.append(first.event) }
        }
    }

    /// The pairs `--tiers GLOB,GLOB` names among inputs named `names` (in
    /// rank order).
    static func named(_ globs: [(String, String)], names: [String]) -> Set<Pair> {
        var pairs = Set<Pair>()
        for (first, second) in globs {
            let a = names.indices.filter { AuditConfiguration.matches(first, name: names[$0]) }
            let b = names.indices.filter { AuditConfiguration.matches(second, name: names[$0]) }
            for i in a { for j in b where i != j { pairs.insert(Pair(Int32(i), Int32(j))) } }
        }
        return pairs
    }

    /// Pairs of inputs most of whose flip records (of the smaller) are
    /// twins of the other's: tiers, found in the records themselves.
    var detected: Set<Pair> {
        Set(twins.filter { pair, n in n * 2 > min(records[pair.a] ?? 0, records[pair.b] ?? 0) }.keys)
    }
}
