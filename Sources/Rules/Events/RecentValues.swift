import Parsing
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
    private var keys: [[UInt8]] = []
    private var values: [Value] = []

    /// What was kept for `raw`, if it is among the recent values.
    mutating func lookup(_ raw: UnsafeRawBufferPointer) -> Value? {
        for i in keys.indices where keys[i].count == raw.count {
            guard keys[i].withUnsafeBytes({ Bytes.equal($0, raw) }) else { continue }
            if i > 0 {
                keys.swapAt(i, i - 1)
                values.swapAt(i, i - 1)
                return values[i - 1]
            }
            return values[i]
        }
        return nil
    }

    /// Remembers `value` for `raw`, in the last place.
    mutating func insert(_ raw: UnsafeRawBufferPointer, _ value: Value) {
        if keys.count < Self.capacity {
            keys.append(Array(raw))
            values.append(value)
        } else {
            keys[keys.count - 1] = Array(raw)
            values[values.count - 1] = value
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
