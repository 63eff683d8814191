/// `SessionTable`'s index from a state's fingerprint to the slot of the
/// open session that has it: one array of entries, each a key and a slot
/// side by side (a slot of -1 marks an empty entry), probed linearly from
/// the entry the key's high bits pick after a multiply, at most three
/// quarters full. A removal shifts the entries after it back, so no probe
/// meets a tombstone. Keys are keyed fingerprints (`Fingerprint`): no log
/// line chooses where they land.
///
/// A `Dictionary` hashes the key again, and reads its occupancy bits, keys
/// and values in three places; a probe here reads one cache line.
struct StateIndex {
    private struct Entry {
        var key: UInt64
        var slot: Int32
    }

    private static let empty = Entry(key: 0, slot: -1)
    private var entries = [Entry](repeating: empty, count: 16)
    /// Entries in use.
    private var count = 0
    /// 64 minus log2 of the entry count.
    private var shift = 60

    /// The first entry `key` may be in.
    @inline(__always)
    private func home(_ key: UInt64) -> Int { Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) &>> UInt64(shift)) }

    /// The entry that holds `key`, or the empty one where it would go.
    @inline(__always)
    private func probe(_ key: UInt64) -> Int {
        let mask = entries.count - 1
        var i = home(key)
        while entries[i].slot >= 0 && entries[i].key != key { i = (i + 1) & mask }
        return i
    }

    /// The slot `key` names, if any.
    subscript(key: UInt64) -> Int32? {
        let slot = entries[probe(key)].slot
        return slot >= 0 ? slot : nil
    }

    /// Names `slot` by `key`; the slot it named before, if any.
    mutating func update(_ slot: Int32, for key: UInt64) -> Int32? {
        let i = probe(key)
        let old = entries[i].slot
        entries[i] = Entry(key: key, slot: slot)
        if old >= 0 { return old }
        count += 1
        if 4 * count > 3 * entries.count { grow() }
        return nil
    }

    /// Forgets `key`.
    mutating func remove(_ key: UInt64) {
        var hole = probe(key)
        guard entries[hole].slot >= 0 else { return }
        count -= 1
        let mask = entries.count - 1
        var j = hole
        while true {
            j = (j + 1) & mask
            guard entries[j].slot >= 0 else { break }
            // An entry stays when its home lies cyclically in (hole, j]:
            // its probe never passed the hole.
            let h = home(entries[j].key)
            let stays = hole <= j ? (hole < h && h <= j) : (hole < h || h <= j)
            if !stays {
                entries[hole] = entries[j]
                hole = j
            }
        }
        entries[hole] = Self.empty
    }

    private mutating func grow() {
        let old = entries
        entries = [Entry](repeating: Self.empty, count: 2 * old.count)
        shift -= 1
        for e in old where e.slot >= 0 { entries[probe(e.key)] = e }
    }

    mutating func removeAll() { self = StateIndex() }
}
