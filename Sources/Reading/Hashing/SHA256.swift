import CSodium

/// SHA-256 (libsodium's, through `CSodium`): file digests, the seal of a
/// checkpoint or plan, a code's digest, a stage tally's sum.
package struct SHA256: Sendable {
    private var state = fa_sha256_state()

    package init() { fa_sha256_init(&state) }

    package mutating func update(data bytes: UnsafeRawBufferPointer) {
        fa_sha256_update(&state, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count)
    }

    package mutating func update(data bytes: some Collection<UInt8>) {
        if bytes.withContiguousStorageIfAvailable({ update(data: UnsafeRawBufferPointer($0)) }) == nil {
            Array(bytes).withUnsafeBytes { update(data: $0) }
        }
    }

    /// The 32-byte digest; the state is spent.
    package mutating func finalize() -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: 32) { out, count in
            fa_sha256_final(&state, out.baseAddress!)
            count = 32
        }
    }

    package static func hash(data bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var sha = SHA256()
        sha.update(data: bytes)
        return sha.finalize()
    }

    package static func hash(data bytes: some Collection<UInt8>) -> [UInt8] {
        var sha = SHA256()
        sha.update(data: bytes)
        return sha.finalize()
    }
}
