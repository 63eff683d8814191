import Crypto
import Parsing
import Reading

/// How states and codes become the 64-bit keys the audit compares and
/// remembers. Either Swift's `Hasher` (SipHash under this process's random
/// seed: fast, and nobody can make two values collide on purpose), or, for
/// keys that must mean the same in the next run (`--checkpoint`), the
/// first 8 bytes of HMAC-SHA256 under a key kept with the checkpoint.
/// Worked out where a record is scanned, so the cost is spread over the
/// scanning threads.
///
/// The HMAC is keyed once: each fingerprint updates a copy of it. Keying
/// hashes two blocks of its own and costs more than the rest of a short
/// value's code; the copy's hashers are copy-on-write values, so a copy
/// made on any thread shares nothing that it writes.
///
/// `@unchecked Sendable`: `HMAC` is an immutable value here (only copies
/// are updated) that this swift-crypto release does not mark Sendable.
package struct Fingerprint: @unchecked Sendable {
    /// The keyed HMAC, boxed: a Fingerprint is copied into every scanner,
    /// and Swift copies and destroys an optional `HMAC` (a generic struct)
    /// through its runtime's value witnesses; a box costs one retain.
    private final class Keyed {
        let hmac: HMAC<SHA256>
        init(_ hmac: HMAC<SHA256>) { self.hmac = hmac }
    }
    private let keyed: Keyed?
    /// The key's bytes, to keep in a checkpoint.
    package let keyBytes: [UInt8]?

    /// This process's `Hasher`: keys that mean nothing to another run.
    package static let process = Fingerprint(keyed: nil, keyBytes: nil)

    /// HMAC-SHA256 under `key` (32 bytes).
    package static func keyed(_ key: [UInt8]) -> Fingerprint {
        Fingerprint(keyed: Keyed(HMAC<SHA256>(key: SymmetricKey(data: key))), keyBytes: key)
    }

    /// A new random 32-byte key.
    package static func newKey() -> [UInt8] {
        SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }
    }

    func of(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        guard let keyed else {
            var hasher = Hasher()
            hasher.combine(bytes: bytes)
            return UInt64(UInt(bitPattern: hasher.finalize()))
        }
        var hmac = keyed.hmac
        hmac.update(data: bytes)
        return hmac.finalize().withUnsafeBytes { UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)) }
    }

    func of(_ text: String) -> UInt64 {
        if let key = text.utf8.withContiguousStorageIfAvailable({ of(UnsafeRawBufferPointer($0)) }) { return key }
        var copy = text
        return copy.withUTF8 { of(UnsafeRawBufferPointer($0)) }
    }
}
