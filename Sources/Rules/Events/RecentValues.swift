import Parsing
import Reading

/// The last few distinct raw byte values seen in one field, with what was
/// made of them (a String, verdicts). The same redirect URIs, client IDs and
/// return URLs come back on nearly every flip record: a hit costs a length
/// check and a `memcmp` instead of decoding, searching and allocating again.
/// Bounded: a field with ever-new values only pays the misses.
struct RecentValues<Value> {
    /// Values kept at most; replaced round-robin.
    static var capacity: Int { 16 }

    private var keys: [[UInt8]] = []
    private var values: [Value] = []
    private var nextSlot = 0

    /// What was kept for `raw`, if it is among the recent values.
    func lookup(_ raw: UnsafeRawBufferPointer) -> Value? {
        for i in keys.indices where keys[i].count == raw.count {
            if keys[i].withUnsafeBytes({ Bytes.equal($0, raw) }) { return values[i] }
        }
        return nil
    }

    /// Remembers `value` for `raw`.
    mutating func insert(_ raw: UnsafeRawBufferPointer, _ value: Value) {
        if keys.count < Self.capacity {
            keys.append(Array(raw))
            values.append(value)
        } else {
            keys[nextSlot] = Array(raw)
            values[nextSlot] = value
            nextSlot = (nextSlot + 1) % Self.capacity
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
