import CSodium

/// HMAC-SHA256 (libsodium's, through `CSodium`): the fingerprint of chains
/// begun before checkpoint version 3, and a distributed job's identity.
/// A value: a keyed state copied and finished once per message.
package struct HMACSHA256: Sendable {
    private var state = fa_hmac_sha256_state()

    package init(key: [UInt8]) {
        key.withUnsafeBufferPointer { fa_hmac_sha256_init(&state, $0.baseAddress, $0.count) }
    }

    package mutating func update(data bytes: UnsafeRawBufferPointer) {
        fa_hmac_sha256_update(&state, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count)
    }

    /// The 32-byte code; the state is spent.
    package mutating func finalize() -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: 32) { out, count in
            fa_hmac_sha256_final(&state, out.baseAddress!)
            count = 32
        }
    }

    package static func code(for message: [UInt8], key: [UInt8]) -> [UInt8] {
        var mac = HMACSHA256(key: key)
        message.withUnsafeBytes { mac.update(data: $0) }
        return mac.finalize()
    }
}
