import CSodium
import Reading

/// How states, codes and record lines become the 64-bit keys the audit
/// compares and remembers: SipHash-2-4 (`fa_keyed_hash`, libsodium), a
/// pseudorandom function made for short inputs, under a 16-byte key. The
/// key is random per process, or, for keys that must mean the same in the
/// next run (`--checkpoint`) or in every step of a distributed job, the
/// first 16 bytes of the 32-byte key kept with the checkpoint or plan.
/// Worked out where a record is scanned, so the cost is spread over the
/// scanning threads.
///
/// Chains begun before checkpoint version 3 keep HMAC-SHA256 (the first
/// 8 bytes, big-endian) under their 32-byte key: what they remember was
/// fingerprinted so, and must still match (`legacyKeyed`).
package struct Fingerprint: Sendable {
    /// The keyed HMAC state of a chain begun before version 3, boxed: a
    /// Fingerprint is copied into every scanner, and a box (one retain)
    /// is cheaper to copy than the state's 256 bytes.
    private final class Legacy: Sendable {
        let hmac: HMACSHA256
        init(_ hmac: HMACSHA256) { self.hmac = hmac }
    }
    private let legacy: Legacy?
    /// SipHash's key.
    private let sipKey: SIMD16<UInt8>
    /// The 32-byte key's bytes, to keep in a checkpoint or plan; nil for
    /// a process's own key.
    package let keyBytes: [UInt8]?

    /// Whether this is the HMAC of a chain begun before version 3.
    package var isLegacy: Bool { legacy != nil }

    private init(sipKey: SIMD16<UInt8>, legacy: Legacy?, keyBytes: [UInt8]?) {
        self.sipKey = sipKey
        self.legacy = legacy
        self.keyBytes = keyBytes
    }

    /// This process's own random key: keys that mean nothing to another run.
    package static let process: Fingerprint = {
        var generator = SystemRandomNumberGenerator()
        var key = SIMD16<UInt8>()
        for i in key.indices { key[i] = generator.next() }
        return Fingerprint(sipKey: key, legacy: nil, keyBytes: nil)
    }()

    /// SipHash-2-4 under the first 16 bytes of `key` (32 bytes).
    package static func keyed(_ key: [UInt8]) -> Fingerprint {
        precondition(key.count >= Int(FA_KEYED_HASH_KEY_BYTES), "a fingerprint key has 32 bytes")
        var sip = SIMD16<UInt8>()
        for i in sip.indices { sip[i] = key[i] }
        return Fingerprint(sipKey: sip, legacy: nil, keyBytes: key)
    }

    /// HMAC-SHA256 under `key` (32 bytes): what checkpoints before version 3
    /// remember.
    static func legacyKeyed(_ key: [UInt8]) -> Fingerprint {
        Fingerprint(sipKey: SIMD16(), legacy: Legacy(HMACSHA256(key: key)), keyBytes: key)
    }

    /// A new random 32-byte key.
    package static func newKey() -> [UInt8] {
        RandomBytes.make(32)
    }

    package func of(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        guard let legacy else {
            return withUnsafeBytes(of: sipKey) { key in
                fa_keyed_hash(
                    key.baseAddress!.assumingMemoryBound(to: UInt8.self), bytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
                    bytes.count)
            }
        }
        var hmac = legacy.hmac
        hmac.update(data: bytes)
        return hmac.finalize().withUnsafeBytes { UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)) }
    }

    package func of(_ text: String) -> UInt64 {
        if let key = text.utf8.withContiguousStorageIfAvailable({ of(UnsafeRawBufferPointer($0)) }) { return key }
        var copy = text
        return copy.withUTF8 { of(UnsafeRawBufferPointer($0)) }
    }
}
