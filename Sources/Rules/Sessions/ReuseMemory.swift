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
    /// The time of an old slot whose key was moved before its turn.
    private static let gone = Int64.min + 1
    private var slots = [Slot](repeating: empty, count: 16)
    /// Slots in use.
    private var count = 0
    /// 64 minus log2 of the slot count: the key's high bits after a
    /// multiply pick the first slot.
    private var shift = 60
    /// The table before the last growth or sweep, its slots from `moved`
    /// on not moved yet; its keys older than `dropBefore` are dropped.
    private var old: [Slot] = []
    private var oldShift = 60
    private var moved = 0
    private var dropBefore = Int64.min
    let retention: Int64
    /// Slots of the old table not moved over yet.
    var unmoved: Int { old.count - moved }
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
        step()
        sweep(now: time)
        let i = current(key)
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
    /// One probe of the table (two while the old one is being moved).
    package mutating func time(of key: UInt64, orRememberAt now: Int64) -> Int64? {
        step()
        sweep(now: now)
        let i = current(key)
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
        var time = slots[slot(of: key)].time
        if time == .min, moved < old.count, let i = oldSlot(of: key) { time = old[i].time }
        return time != .min && now - time <= retention
    }

    /// Every entry still within `retention` at `now`, by time and then key
    /// (for a checkpoint). Each is sorted as one 128-bit word, the time
    /// with its sign bit flipped above the key, so the sort compares
    /// integers instead of calling a closure on pairs.
    func live(now: Int64) -> [Checkpoint.Remembered] {
        var packed: [UInt128] = []
        packed.reserveCapacity(count + old.count - moved)
        for s in slots where s.time != .min && now - s.time <= retention {
            packed.append(Checkpoint.Remembered(key: s.key, time: s.time).packed)
        }
        for s in old[moved...] where s.time > Self.gone && s.time >= dropBefore && now - s.time <= retention {
            packed.append(Checkpoint.Remembered(key: s.key, time: s.time).packed)
        }
        packed.sort()
        return packed.map(Checkpoint.Remembered.init(packed:))
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

    /// The slot of `key` in the new table, or the empty one where it would
    /// go: a key still in the old table is moved over first.
    @inline(__always)
    private mutating func current(_ key: UInt64) -> Int {
        let i = slot(of: key)
        guard slots[i].time == .min, moved < old.count, let j = oldSlot(of: key) else { return i }
        let time = old[j].time
        old[j].time = Self.gone
        insert(key, time, at: i)
        return slot(of: key)
    }

    /// The old table's slot that holds `key`, not moved yet, not dropped.
    private func oldSlot(of key: UInt64) -> Int? {
        old.withUnsafeBufferPointer { s in
            let mask = s.count &- 1
            var i = Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) &>> UInt64(oldShift))
            while s[i].time != .min {
                if s[i].key == key {
                    return i >= moved && s[i].time > Self.gone && s[i].time >= dropBefore ? i : nil
                }
                i = (i &+ 1) & mask
            }
            return nil
        }
    }

    /// Puts `key` in the empty slot `i` (from `slot(of:)`), growing the
    /// table first when it would be more than three quarters full.
    private mutating func insert(_ key: UInt64, _ time: Int64, at i: Int) {
        var i = i
        if (count + 1) * 4 > slots.count * 3 {
            resize(to: slots.count * 2, dropping: .min)
            i = slot(of: key)
        }
        slots[i] = Slot(key: key, time: time)
        count += 1
    }

    /// Moves the old table's next slots over, if it has any: eight, or as
    /// many more as the old table is larger than the new (a sweep that
    /// shrank it), so the move ends before writes can fill the new one
    /// past three eighths more.
    @inline(__always)
    private mutating func step() {
        if moved < old.count { move(8 * max(1, old.count / slots.count)) }
    }

    private mutating func move(_ n: Int) {
        let end = min(old.count, moved + n)
        while moved < end {
            let s = old[moved]
            moved += 1
            guard s.time > Self.gone && s.time >= dropBefore else { continue }
            slots[slot(of: s.key)] = s
            count += 1
        }
        if moved == old.count {
            old = []
            moved = 0
        }
    }

    /// A new empty table of `size` slots beside the one there is, which
    /// becomes the old one (the one before moved over first), its keys
    /// older than `before` to be dropped.
    private mutating func resize(to size: Int, dropping before: Int64) {
        if moved < old.count { move(old.count) }
        old = slots
        oldShift = shift
        moved = 0
        dropBefore = before
        slots = [Slot](repeating: Self.empty, count: size)
        shift = 64 - size.trailingZeroBitCount
        count = 0
    }

    private mutating func sweep(now: Int64) {
        // A move under way ends first: the sweep waits for a later write
        // rather than finish it in one go.
        guard swept == .min || now - swept > retention / 4, moved >= old.count else { return }
        swept = now
        let from = now - retention
        var kept = 0
        for s in slots where s.time >= from { kept += 1 }
        guard kept < count else { return }
        var size = 16
        while kept * 8 > size * 3 { size *= 2 }
        resize(to: size, dropping: from)
    }
}
