import Parsing
import Reading

/// What makes two records of different inputs twins — one request logged
/// by two tiers, a proxy (load balancer, CDN) and its backend
/// (docs/contract.md §9): the same method, status and query string, and
/// the same Location where both log one. The path is left out (a proxy may
/// strip a prefix), and so are the client address and the format.
package struct Twin: Sendable, Hashable {
    /// Keyed fingerprint of the method, the status and the query string.
    package var key: UInt64
    /// Keyed fingerprint of the Location field; nil when the record's
    /// format logs none (any Location then matches).
    package var location: UInt64?

    package init(key: UInt64, location: UInt64?) {
        self.key = key
        self.location = location
    }

    /// The twin of a record (`Fingerprint` keyed as the run's).
    package init(_ record: LogRecord, fingerprint: Fingerprint) {
        let target = record.target
        let query = Bytes.find(.question, in: target).map { Bytes.slice(target, $0 + 1, target.count) } ?? Bytes.slice(target, 0, 0)
        let method = fingerprint.of(record.method)
        let q = fingerprint.of(query)
        key = (method &* 0x9E37_79B9_7F4A_7C15) ^ ((q << 17) | (q >> 47)) ^ UInt64(truncatingIfNeeded: record.status) &* 0xC2B2_AE3D_27D4_EB4F
        switch record.location {
        // An empty field that only its place calls the Location (nginx's
        // stock main logs X-Forwarded-For there) says nothing either way.
        case .notLogged, .emptyByPlace: location = nil
        case .empty: location = fingerprint.of(Bytes.slice(target, 0, 0))
        case .value(let url): location = fingerprint.of(url)
        }
    }

    /// Whether two records' twins match: the same key, and the same
    /// Location where both log one.
    package func matches(_ other: Twin) -> Bool {
        key == other.key && (location == nil || other.location == nil || location == other.location)
    }
}
