import Reading

/// The last few distinct raw byte values seen in one field, with what was
/// made of them (a String, verdicts). The same redirect URIs, client IDs and
/// return URLs come back on nearly every flip record: a hit costs a length
/// check and a `memcmp` instead of decoding, searching and allocating again.
/// Bounded: a field with ever-new values only pays the misses.
///
/// A hit moves its value one place to the front, so the values that come
/// back most often are compared first and a new value replaces one of the
/// rarest (the last place), never one that keeps coming back.
struct RecentValues<Value> {
    /// Values kept at most.
    static var capacity: Int { 32 }
    /// The raw bytes and what was made of them, most often seen first
    /// (nearly). One array, searched and reordered in place through its
    /// buffer: no reference counting per entry compared or moved.
    private var entries: [(key: [UInt8], value: Value)] = []

    /// What was kept for `raw`, if it is among the recent values.
    mutating func lookup(_ raw: UnsafeRawBufferPointer) -> Value? {
        entries.withUnsafeMutableBufferPointer { entries in
            for i in entries.indices where entries[i].key.count == raw.count {
                guard entries[i].key.withUnsafeBytes({ Bytes.equal($0, raw) }) else { continue }
                guard i > 0 else { return entries[i].value }
                entries.swapAt(i, i - 1)
                return entries[i - 1].value
            }
            return nil
        }
    }

    /// Remembers `value` for `raw`, in the last place.
    mutating func insert(_ raw: UnsafeRawBufferPointer, _ value: Value) {
        if entries.count < Self.capacity {
            entries.append((Array(raw), value))
        } else {
            entries[entries.count - 1] = (Array(raw), value)
        }
    }

    /// `lookup`, or `make` remembered.
    mutating func value(for raw: UnsafeRawBufferPointer, make: () -> Value) -> Value {
        if let known = lookup(raw) { return known }
        let value = make()
        insert(raw, value)
        return value
    }
}
