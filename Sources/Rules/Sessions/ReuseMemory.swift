/// What `state-reuse` and `code-reuse` remember: 64-bit keys of ended
/// states or returned codes, each with the log time it was remembered at,
/// for `retention` milliseconds of log time.
///
/// Every question is answered exactly by the time kept with its key. What
/// has outlived `retention` is only dropped to free memory, by a sweep of
/// the whole table each time the clock has moved a quarter of `retention`
/// on — no queue of insertion times beside the table.
///
/// The table is one array of slots, each a key and its time side by side
/// (16 bytes; `Int64.min` marks an empty slot), probed linearly from the
/// slot the key's high bits pick, at most three quarters full: a question
/// reads one cache line, where a `Dictionary` reads its occupancy bits,
/// its keys and its values in three. Keys are keyed fingerprints
/// (`Fingerprint`): no log line can choose where they land. 21 to 43
/// bytes of memory per remembered key.
package struct ReuseMemory {
    fileprivate struct Slot {
        var key: UInt64
        var time: Int64
    }

    private static let empty = Slot(key: 0, time: .min)
    private var slots = [Slot](repeating: empty, count: 16)
    /// Slots in use.
    private var count = 0
    /// 64 minus log2 of the slot count: the key's high bits after a
    /// multiply pick the first slot.
    private var shift = 60
    let retention: Int64
    /// Clock of the last sweep.
    private var swept = Int64.min

    /// What was remembered since it was last taken (a follower's journal,
    /// `CheckpointJournal`); nil when nobody takes it.
    var changes: [Checkpoint.Remembered]?
    package init(retention: Int64) { self.retention = retention }
    /// What was remembered since the last call, in order; kept from now on.
    mutating func takeChanges() -> [Checkpoint.Remembered] {
        defer { changes = [] }
        return changes ?? []
    }

    /// Remembers `key` from `time` on (again, if it was known from an
    /// earlier time).
    mutating func remember(_ key: UInt64, at time: Int64) {
        sweep(now: time)
        let i = slot(of: key)
        if slots[i].time == .min {
            insert(key, time, at: i)
        } else if slots[i].time < time {
            slots[i].time = time
        } else {
            return
        }
        changes?.append(Checkpoint.Remembered(key: key, time: time))
    }

    /// When `key` was remembered, if that is within `retention` of `now`;
    /// when it is not, `key` is remembered from `now` on and nil returned.
    /// One probe of the table.
    package mutating func time(of key: UInt64, orRememberAt now: Int64) -> Int64? {
        sweep(now: now)
        let i = slot(of: key)
        let known = slots[i].time
        if known == .min {
            insert(key, now, at: i)
            changes?.append(Checkpoint.Remembered(key: key, time: now))
            return nil
        }
        if now - known <= retention { return known }
        slots[i].time = now
        changes?.append(Checkpoint.Remembered(key: key, time: now))
        return nil
    }

    func contains(_ key: UInt64, now: Int64) -> Bool {
        let time = slots[slot(of: key)].time
        return time != .min && now - time <= retention
    }

    /// Every entry still within `retention` at `now`, by time and then key
    /// (for a checkpoint). Each is sorted as one 128-bit word, the time
    /// with its sign bit flipped above the key, so the sort compares
    /// integers instead of calling a closure on pairs.
    func live(now: Int64) -> [Checkpoint.Remembered] { frozen().live(now: now) }

    /// The table as it is now, for another thread to list (`live`): the
    /// slots are shared, and copied by this memory's next write.
    package func frozen() -> Frozen { Frozen(slots: slots, count: count, retention: retention) }

    /// A remembered table taken at a commit (`frozen`).
    package struct Frozen: Sendable {
        fileprivate let slots: [Slot]
        let count: Int
        let retention: Int64

        func live(now: Int64) -> [Checkpoint.Remembered] {
            let signBit = UInt64(1) << 63
            var packed: [UInt128] = []
            packed.reserveCapacity(count)
            for s in slots where s.time != .min && now - s.time <= retention {
                packed.append(UInt128(UInt64(bitPattern: s.time) ^ signBit) << 64 | UInt128(s.key))
            }
            packed.sort()
            return packed.map {
                Checkpoint.Remembered(key: UInt64(truncatingIfNeeded: $0), time: Int64(bitPattern: UInt64(truncatingIfNeeded: $0 >> 64) ^ signBit))
            }
        }
    }

    /// The slot that holds `key`, or the empty slot where it would go.
    @inline(__always)
    private func slot(of key: UInt64) -> Int {
        slots.withUnsafeBufferPointer { s in
            let mask = s.count &- 1
            var i = Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) &>> UInt64(shift))
            while s[i].time != .min && s[i].key != key { i = (i &+ 1) & mask }
            return i
        }
    }

    /// Puts `key` in the empty slot `i` (from `slot(of:)`), growing the
    /// table when that makes it more than three quarters full.
    private mutating func insert(_ key: UInt64, _ time: Int64, at i: Int) {
        slots[i] = Slot(key: key, time: time)
        count += 1
        if count * 4 > slots.count * 3 { rebuild(keeping: { _ in true }, capacity: slots.count * 2) }
    }

    /// The table anew with the slots `keep` takes, at `capacity` slots (a
    /// power of two) or the least that holds them.
    private mutating func rebuild(keeping keep: (Slot) -> Bool, capacity: Int) {
        let old = slots
        var size = 16
        var kept = 0
        for s in old where s.time != .min && keep(s) { kept += 1 }
        while size < capacity || kept * 4 > size * 3 { size *= 2 }
        slots = [Slot](repeating: Self.empty, count: size)
        shift = 64 - size.trailingZeroBitCount
        count = kept
        for s in old where s.time != .min && keep(s) { slots[slot(of: s.key)] = s }
    }

    private mutating func sweep(now: Int64) {
        guard swept == .min || now - swept > retention / 4 else { return }
        swept = now
        let retention = retention
        if slots.contains(where: { $0.time != .min && now - $0.time > retention }) {
            rebuild(keeping: { now - $0.time <= retention }, capacity: 16)
        }
    }
}
