import Reading
import Testing

/// libsodium's SHA-256, HMAC-SHA256 and random bytes through `CSodium`,
/// against the published test vectors (FIPS 180-2, RFC 4231).
@Suite("Hashes through libsodium")
struct HashingTests {
    private func hex(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    @Test("SHA-256 of FIPS 180-2's examples, whole and fed in pieces")
    func sha256() {
        #expect(hex(SHA256.hash(data: Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(hex(SHA256.hash(data: [UInt8]())) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        let long = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        var pieces = SHA256()
        for cut in stride(from: 0, to: long.count, by: 7) { pieces.update(data: long[cut..<min(cut + 7, long.count)]) }
        #expect(hex(pieces.finalize()) == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test("HMAC-SHA256 of RFC 4231's cases 1, 2 and 6 (a key longer than a block)")
    func hmac() {
        #expect(
            hex(HMACSHA256.code(for: Array("Hi There".utf8), key: Array(repeating: 0x0b, count: 20)))
                == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        #expect(
            hex(HMACSHA256.code(for: Array("what do ya want for nothing?".utf8), key: Array("Jefe".utf8)))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(
            hex(HMACSHA256.code(for: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8), key: Array(repeating: 0xaa, count: 131)))
                == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
        // A keyed state copied before use: each copy gives the same code.
        let keyed = HMACSHA256(key: Array("Jefe".utf8))
        var a = keyed
        var b = keyed
        Array("what do ya want for nothing?".utf8).withUnsafeBytes { a.update(data: $0) }
        Array("what do ya want for nothing?".utf8).withUnsafeBytes { b.update(data: $0) }
        #expect(a.finalize() == b.finalize())
    }

    @Test("random keys have their length and differ")
    func random() {
        let keys = (0..<8).map { _ in RandomBytes.make(32) }
        #expect(keys.allSatisfy { $0.count == 32 })
        #expect(Set(keys).count == 8)
    }
}
