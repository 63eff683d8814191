/// A `Fingerprint` as a dictionary or set key. Its 64 bits are already a
/// keyed hash (SipHash under this process's seed, or HMAC-SHA256 under the
/// checkpoint's key), so nobody can make two of them collide on purpose:
/// the table's hash is the fingerprint folded with the table's own seed
/// and mixed, not a second SipHash over it, which `UInt64` keys cost on
/// every lookup.
struct FingerprintKey: Hashable, Sendable {
    let value: UInt64

    @inline(__always)
    init(_ value: UInt64) { self.value = value }

    func hash(into hasher: inout Hasher) { hasher.combine(value) }

    /// The table's hash: `value` with `seed` (each table's own) folded in,
    /// then mixed so that the low bits, which pick the bucket, depend on
    /// all 64 — two tables of different seeds order the same keys
    /// differently, as they would with `Hasher`.
    @inline(__always)
    func _rawHashValue(seed: Int) -> Int {
        var x = value ^ UInt64(UInt(bitPattern: seed))
        x = (x ^ (x &>> 32)) &* 0xd6e8_feb8_6659_fd93
        x = (x ^ (x &>> 32)) &* 0xd6e8_feb8_6659_fd93
        return Int(truncatingIfNeeded: x ^ (x &>> 32))
    }
}
