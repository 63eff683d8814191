import CSodium

/// Bytes from the system's random source (libsodium's `randombytes_buf`):
/// the keys of checkpoints and distributed jobs.
package enum RandomBytes {
    package static func make(_ count: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { out, written in
            // libsodium fails to start only when the system has no random
            // source at all; nothing can be keyed then.
            precondition(fa_random(out.baseAddress!, count) == 0, "libsodium could not be initialised (no random source)")
            written = count
        }
    }
}
