import Parsing
import Rules

/// Times that cannot be wrong silently (docs/contract.md §9): two inputs
/// that log the same flows (a proxy and its backend, or a request on one
/// server and its return on another) whose records of one state sit a
/// whole number of quarter hours apart, state after state, are read in
/// two different zones — a log whose times carry no zone read in the
/// wrong `--tz`, or a server whose clock or zone is off. The audit's
/// sessions across them are then wrong (a return before its request),
/// so the run says so, naming both inputs, the offset and what fixes it.
///
/// Decided from each input's first flip records (`TwinSample`), as tiers
/// are, so every driver says the same.
package struct ClockOffset: Sendable, Equatable {
    /// The two inputs: `second`'s records read `offset` after `first`'s.
    package var first: String
    package var second: String
    /// Milliseconds, a non-zero multiple of 15 minutes.
    package var offset: Int64
    /// The states both log that show it.
    package var states: Int
    /// Which of the two has times with no zone (HAProxy, IIS): read in
    /// `--tz`, the one a setting fixes (nil: neither, or both).
    package var zoneless: String?
    /// A time of the records compared (the zone's offset then counts).
    package var at: Int64

    static let quarter: Int64 = 900_000
    /// How far a state's records may sit from a whole quarter hour apart:
    /// a return comes seconds after its request, tiers log within two.
    static let slack: Int64 = 150_000
    /// States both inputs log, at least, before an offset is told.
    static let fewest = 8

    /// The offsets between inputs' samples (`names` and `zoneless`, whose
    /// times were read in `--tz`, by rank):
    /// a pair is told when at least `fewest` states both log lie a whole
    /// number of quarter hours apart, and four in five of those that lie
    /// near any whole number of them (none included) agree on one offset.
    package static func detect(_ samples: [TwinSample], names: [String], zoneless: [Bool]) -> [ClockOffset] {
        // Each state's records across inputs (a few of each: a state
        // repeated without end compares nothing more).
        var byState: [UInt64: [(input: Int, time: Int64)]] = [:]
        for i in samples.indices {
            for e in samples[i].entries where byState[e.state, default: []].count < 16 { byState[e.state, default: []].append((i, e.time)) }
        }
        // Per pair of inputs and state both log: the offset its records
        // agree on, in quarter hours (0 when any two of them sit close).
        var votes: [Tiers.Pair: [UInt64: Int64]] = [:]
        for (state, seen) in byState where seen.count > 1 {
            for a in seen.indices {
                for b in seen.indices where seen[b].input > seen[a].input {
                    let pair = Tiers.Pair(Int32(seen[a].input), Int32(seen[b].input))
                    guard votes[pair]?[state] != 0 else { continue }
                    let d = seen[b].time - seen[a].time
                    let k = (d + (d >= 0 ? quarter / 2 : -quarter / 2)) / quarter
                    guard abs(d - k * quarter) <= slack else { continue }
                    if k == 0 || votes[pair]?[state] == nil { votes[pair, default: [:]][state] = k }
                }
            }
        }
        var found: [ClockOffset] = []
        for (pair, byPair) in votes.sorted(by: { $0.key < $1.key }) {
            var tally: [Int64: Int] = [:]
            for k in byPair.values { tally[k, default: 0] += 1 }
            guard let (k, n) = tally.filter({ $0.key != 0 }).max(by: { ($0.value, -$0.key) < ($1.value, -$1.key) }), n >= fewest,
                n * 5 >= byPair.count * 4
            else { continue }
            let (i, j) = (Int(pair.a), Int(pair.b))
            let zoneless = [i, j].filter { zoneless.indices.contains($0) && zoneless[$0] }
            found.append(
                ClockOffset(
                    first: names[i], second: names[j], offset: k * quarter, states: n, zoneless: zoneless.count == 1 ? names[zoneless[0]] : nil,
                    at: samples[i].entries.first?.time ?? 0))
        }
        return found
    }

    /// `+1 h`, `-3 h 30 min`.
    package static func duration(_ ms: Int64) -> String {
        let minutes = abs(ms) / 60_000
        let (h, m) = (minutes / 60, minutes % 60)
        let parts = (h > 0 ? ["\(h) h"] : []) + (m > 0 ? ["\(m) min"] : [])
        return (ms < 0 ? "-" : "+") + parts.joined(separator: " ")
    }

    /// The `--tz` that reads `zoneless` right: its times run `offset` ahead
    /// of the other's when it is `second` (a zone east of the one it was
    /// read in by that much), behind when it is `first`.
    package func zoneSetting(readIn base: Int64) -> String? {
        guard let zoneless else { return nil }
        let east = (zoneless == second ? offset : -offset) + base
        let minutes = abs(east) / 60_000
        let sign = east < 0 ? "-" : "+"
        let hh = minutes / 60 < 10 ? "0\(minutes / 60)" : "\(minutes / 60)"
        let mm = minutes % 60 < 10 ? "0\(minutes % 60)" : "\(minutes % 60)"
        return "\(sign)\(hh):\(mm)"
    }

    /// The sentence said on standard error; `zone`: `--tz`'s (UTC when nil).
    package func sentence(zone: LocalZone?) -> String {
        let base = zone?.offset(at: at) ?? 0
        let escape = { (s: String) in s }
        let head =
            "\(escape(second))'s records sit \(Self.duration(offset)) from \(escape(first))'s on \(states) states both log: "
            + "they are read in different zones, and sessions across them are wrong"
        if let zone = zoneSetting(readIn: base), let zoneless {
            return head + "; \(escape(zoneless))'s times carry no zone: read them with --tz \(zone)"
        }
        return head + "; give the log whose times are off a format with its zone (--log-format with %z), or mend its server's clock or zone"
    }
}
