import Parsing
import Reading

/// What makes two records of different inputs twins — one request logged
/// by two tiers, a proxy (load balancer, CDN) and its backend
/// (docs/contract.md §9): the same method, status and query string, and
/// the same Location where both log one. The path is left out (a proxy may
/// strip a prefix), and so are the client address and the format.
package struct Twin: Sendable, Hashable {
    /// Hash of the method, the status and the query string.
    package var key: UInt64
    /// Hash of the Location field; nil when the record's format logs none
    /// (any Location then matches).
    package var location: UInt64?

    package init(key: UInt64, location: UInt64?) {
        self.key = key
        self.location = location
    }

    /// The twin of a record. Unkeyed (a fast hash, the same in every
    /// process): twins must also share their state, whose fingerprint is
    /// keyed, so a crafted collision here pairs nothing.
    package init(_ record: LogRecord) {
        let target = record.target
        let query = Bytes.find(.question, in: target).map { Bytes.slice(target, $0 + 1, target.count) } ?? Bytes.slice(target, 0, 0)
        // The method's first eight bytes, packed, seed the query's hash.
        var method: UInt64 = 0
        var i = 0
        let m = record.method
        while i < m.count && i < 8 {
            method |= UInt64(m[i]) << (8 * UInt64(i))
            i += 1
        }
        key = Self.hash(query, seed: method ^ (UInt64(truncatingIfNeeded: record.status) << 56))
        switch record.location {
        // An empty field that only its place calls the Location (nginx's
        // stock main logs X-Forwarded-For there) says nothing either way.
        case .notLogged, .emptyByPlace: location = nil
        case .empty: location = 0
        case .value(let url): location = Self.hash(url, seed: 1)
        }
    }

    /// A 64-bit hash of `bytes`, eight at a time (multiply and fold, as
    /// wyhash mixes): a query costs a few dozen nanoseconds.
    static func hash(_ bytes: UnsafeRawBufferPointer, seed: UInt64) -> UInt64 {
        @inline(__always) func mix(_ a: UInt64, _ b: UInt64) -> UInt64 {
            let m = a.multipliedFullWidth(by: b)
            return m.high ^ m.low
        }
        var h = seed ^ 0xA076_1D64_78BD_642F ^ UInt64(bytes.count)
        var i = 0
        let n = bytes.count
        while i + 16 <= n {
            h = mix(
                h ^ bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self) ^ 0xE703_7ED1_A0B4_28DB,
                bytes.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self) ^ 0x8EBC_6AF0_9C88_C6E3)
            i += 16
        }
        if i + 8 <= n {
            h = mix(h ^ bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self), 0xE703_7ED1_A0B4_28DB)
            i += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while i < n {
            tail |= UInt64(bytes[i]) << shift
            shift += 8
            i += 1
        }
        return mix(h ^ tail ^ 0x8EBC_6AF0_9C88_C6E3, 0x5899_65CC_7537_4CC3)
    }

    /// Whether two records' twins match: the same key, and the same
    /// Location where both log one.
    package func matches(_ other: Twin) -> Bool {
        key == other.key && (location == nil || other.location == nil || location == other.location)
    }
}
