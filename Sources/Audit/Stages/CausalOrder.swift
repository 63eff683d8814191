import Rules

/// Causal order across inputs (docs/contract.md §3): two records of
/// different inputs whose times cannot be told apart at the coarser of
/// their precisions — a whole second against milliseconds — are in causal
/// order: a state's request before its return, whatever the inputs' ranks.
/// A browser that goes out through one front (logging whole seconds) and
/// comes back through another within one logged second is one session,
/// never a `state-reuse` or an `unknown-state`.
///
/// Events come in (time, file, line) order. Those of one whole second are
/// held, then handed on with, for each state, its events permuted among the
/// places they held: a request with no return moves before the earliest
/// return of that state from another input that it cannot be told apart
/// from, never before an earlier event of its own input (line order within
/// an input stays). Events of other states keep their places, so one
/// process (every state in one stream) and a distributed reducer (one
/// state at a time) hand the rules the same order of each state's events.
package struct CausalOrder {
    /// The second being held (its start, ms), its events in order, and
    /// the input of the first of them.
    private var second = Int64.min
    private var held: [FlipEvent] = []
    private var heldFile: Int32 = 0
    /// Whether the held second has events of more than one input: only
    /// then can anything move.
    private var mixed = false
    private var out = EventQueue()

    /// Takes the next event; what is settled comes out of `next()`.
    /// Events are moved, never copied, from here to `next()`.
    mutating func add(_ event: consuming FlipEvent) {
        let s = Self.second(of: event.time)
        if s != second {
            flush()
            second = s
        }
        if held.isEmpty {
            heldFile = event.source.file
        } else if heldFile != event.source.file {
            mixed = true
        }
        held.append(consume event)
    }

    /// The next event in causal order, once its second is complete.
    mutating func next() -> FlipEvent? { out.popFirst() }

    /// Hands on the held second (the input ended, or a key did).
    mutating func flush() {
        if mixed { Self.reorder(&held) }
        out.append(moving: &held)
        mixed = false
        second = .min
    }

    private static func second(of time: Int64) -> Int64 { time >= 0 ? time / 1000 : (time - 999) / 1000 }

    /// Whether some request without a return comes after a return of
    /// another input in `events` (only then can a state's order change).
    private static func needsOrder(_ events: [FlipEvent]) -> Bool {
        var start = 0
        while start < events.count && !events[start].hasReturn { start += 1 }
        var p = start + 1
        while p < events.count {
            if !events[p].hasReturn, let state = events[p].stateKey {
                let file = events[p].source.file
                var q = start
                while q < p {
                    if events[q].hasReturn && events[q].source.file != file && events[q].stateKey == state { return true }
                    q += 1
                }
            }
            p += 1
        }
        return false
    }

    /// Whether two times cannot be told apart: the same millisecond, or
    /// the same second with one of them logged in whole seconds.
    private static func together(_ a: Int64, _ b: Int64) -> Bool {
        a == b || (second(of: a) == second(of: b) && (a % 1000 == 0 || b % 1000 == 0))
    }

    /// Permutes each state's events among their places (events in time
    /// order; a follower hands its batches of one release here).
    package static func reorder(_ events: inout [FlipEvent]) {
        // Most seconds need nothing: no request without a return has an
        // earlier return of another input (a quick look, no table).
        guard needsOrder(events) else { return }
        var places: [UInt64: [Int]] = [:]
        var files: [UInt64: Int32] = [:]
        var mixed = Set<UInt64>()
        for (i, e) in events.enumerated() {
            guard let s = e.stateKey else { continue }
            places[s, default: []].append(i)
            if let f = files[s], f != e.source.file { mixed.insert(s) } else { files[s] = e.source.file }
        }
        for s in mixed {
            let at = places[s]!
            var list = at.map { events[$0] }
            var moved = false
            for p in list.indices where list[p].returned == nil {
                let r = list[p]
                // Not before an earlier event of its own input.
                var floor = 0
                for q in stride(from: p - 1, through: 0, by: -1) where list[q].source.file == r.source.file {
                    floor = q + 1
                    break
                }
                guard
                    let q = (floor..<p).first(where: {
                        list[$0].returned != nil && list[$0].source.file != r.source.file && together(list[$0].time, r.time)
                    })
                else { continue }
                list.remove(at: p)
                list.insert(r, at: q)
                moved = true
            }
            if moved { for (k, i) in at.enumerated() { events[i] = list[k] } }
        }
    }
}
