import Parsing
import Reading

/// What `state-reuse` and `code-reuse` remember: 64-bit keys of ended
/// states or returned codes, each with the log time it was remembered at,
/// for `retention` milliseconds of log time.
///
/// Every question is answered exactly by the time kept with its key. What
/// has outlived `retention` is only dropped to free memory, by a sweep of
/// the whole table each time the clock has moved a quarter of `retention`
/// on — no queue of insertion times beside the table. An entry is 16 bytes
/// (key and time) in a table at most three quarters full, so 21 to 43
/// bytes of memory per remembered key.
package struct ReuseMemory {
    private var entries: [FingerprintKey: Int64] = [:]
    let retention: Int64
    /// Clock of the last sweep.
    private var swept = Int64.min

    package init(retention: Int64) { self.retention = retention }

    /// Remembers `key` from `time` on (again, if it was known from an
    /// earlier time).
    mutating func remember(_ key: UInt64, at time: Int64) {
        sweep(now: time)
        func renew(_ entry: inout Int64) { if entry < time { entry = time } }
        renew(&entries[FingerprintKey(key), default: .min])
    }

    /// When `key` was remembered, if that is within `retention` of `now`;
    /// when it is not, `key` is remembered from `now` on and nil returned.
    /// One hash lookup.
    package mutating func time(of key: UInt64, orRememberAt now: Int64) -> Int64? {
        sweep(now: now)
        let retention = retention
        func known(_ entry: inout Int64) -> Int64? {
            if entry != .min && now - entry <= retention { return entry }
            entry = now
            return nil
        }
        return known(&entries[FingerprintKey(key), default: .min])
    }

    func contains(_ key: UInt64, now: Int64) -> Bool {
        guard let time = entries[FingerprintKey(key)] else { return false }
        return now - time <= retention
    }

    /// Every entry still within `retention` at `now`, by time and then key
    /// (for a checkpoint). Each is sorted as one 128-bit word, the time
    /// with its sign bit flipped above the key, so the sort compares
    /// integers instead of calling a closure on pairs.
    func live(now: Int64) -> [Checkpoint.Remembered] {
        let signBit = UInt64(1) << 63
        var packed: [UInt128] = []
        packed.reserveCapacity(entries.count)
        for (key, time) in entries where now - time <= retention {
            packed.append(UInt128(UInt64(bitPattern: time) ^ signBit) << 64 | UInt128(key.value))
        }
        packed.sort()
        return packed.map {
            Checkpoint.Remembered(key: UInt64(truncatingIfNeeded: $0), time: Int64(bitPattern: UInt64(truncatingIfNeeded: $0 >> 64) ^ signBit))
        }
    }

    private mutating func sweep(now: Int64) {
        guard swept == .min || now - swept > retention / 4 else { return }
        swept = now
        let retention = retention
        if entries.contains(where: { now - $0.value > retention }) {
            entries = entries.filter { now - $0.value <= retention }
        }
    }
}
