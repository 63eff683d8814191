import Testing

@testable import Reading

/// The gzip decoder the package was built with — ISA-L's igzip by default,
/// zlib with `--traits zlib` — against gzip's header rules (RFC 1952) and
/// zlib's texts for what breaks them. CI runs this suite with both engines.
@Suite("Inflate engine (ISA-L, or zlib by trait)")
struct InflateEngineTests {
    @Test("the engine is the one the package traits chose")
    func engine() {
        #if zlib
            #expect(GzipInflater.engine == "zlib")
        #else
            #expect(GzipInflater.engine == "isa-l")
        #endif
    }

    /// CRC-32 of `bytes` (the gzip polynomial, bit by bit).
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? crc >> 1 ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static func littleEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        (0..<T.bitWidth / 8).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }

    static let text = Array("GET /oauth/authorize?state=s1\n".utf8)

    /// One gzip member of `text` in a stored deflate block, with the given
    /// header flags and fields; `headerCRC` replaces the right one.
    static func member(method: UInt8 = 8, flags: UInt8 = 0, headerCRC: UInt16? = nil) -> [UInt8] {
        var head: [UInt8] = [0x1F, 0x8B, method, flags, 0, 0, 0, 0, 0, 3]
        if flags & 0x04 != 0 { head += [6, 0] + Array("AB".utf8) + [2, 0] + Array("xy".utf8) }
        if flags & 0x08 != 0 { head += Array("a.log".utf8) + [0] }
        if flags & 0x10 != 0 { head += Array("made by hand".utf8) + [0] }
        if flags & 0x02 != 0 { head += littleEndian(headerCRC ?? UInt16(truncatingIfNeeded: crc32(head))) }
        let length = UInt16(text.count)
        let stored: [UInt8] = [0x01] + littleEndian(length) + littleEndian(~length) + text
        return head + stored + littleEndian(crc32(text)) + littleEndian(UInt32(text.count))
    }

    /// Feeds `input` in pieces of `piece` bytes into 7-byte output chunks
    /// until the member ends or is found damaged.
    static func inflate(_ input: [UInt8], piece: Int) throws -> (output: [UInt8], ended: Bool, damage: String?, used: Int) {
        let inflater = try GzipInflater()
        var out = [UInt8](repeating: 0, count: 7)
        var output: [UInt8] = []
        var i = 0
        // Grows when the decoder needs more input than one piece (as the
        // reader's buffer does).
        var window = piece
        while true {
            let end = min(input.count, i + window)
            let step = input.withUnsafeBytes { all in
                out.withUnsafeMutableBytes { inflater.inflate(from: UnsafeRawBufferPointer(rebasing: all[i..<end]), into: $0) }
            }
            i += step.consumed
            output += out[0..<step.produced]
            switch step.status {
            case .memberEnd: return (output, true, nil, i)
            case .corrupt(let reason): return (output, false, reason, i)
            case .progress:
                guard step.consumed == 0 && step.produced == 0 else {
                    window = piece
                    continue
                }
                if end == input.count { return (output, false, nil, i) }
                window += piece
            }
        }
    }

    @Test("every optional header field is read past, whatever the pieces", arguments: [1, 3, 1000])
    func headerFields(piece: Int) throws {
        // FTEXT, FHCRC, FEXTRA, FNAME, FCOMMENT
        for flags: UInt8 in [0x00, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1F] {
            let input = Self.member(flags: flags)
            let result = try Self.inflate(input, piece: piece)
            #expect(result.damage == nil, "flags \(flags)")
            #expect(result.ended, "flags \(flags)")
            #expect(result.output == Self.text, "flags \(flags)")
            // The member ends at its trailer's last byte.
            #expect(result.used == input.count, "flags \(flags)")
        }
    }

    @Test(
        "a header gzip refuses is damage, told in zlib's words",
        arguments: [
            (InflateEngineTests.member(method: 7), "unknown compression method"),
            (InflateEngineTests.member(flags: 0x20), "unknown header flags set"),
            (InflateEngineTests.member(flags: 0x80), "unknown header flags set"),
            (InflateEngineTests.member(flags: 0x0A, headerCRC: 0x1234), "header crc mismatch"),
        ])
    func badHeader(input: [UInt8], message: String) throws {
        for piece in [1, 1000] {
            let result = try Self.inflate(input, piece: piece)
            #expect(result.damage == message)
            #expect(result.output.isEmpty)
        }
    }

    @Test("damage inside deflate data: zlib's verdict, at zlib's offset, after the bytes before it")
    func deflateDamage() {
        // The reference engine's verdict on this file; the ISA-L engine hands
        // the damaged member to zlib, so both builds must give it.
        let (lines, error, _) = readLines(fixture("corrupt-middle.log.gz"))
        #expect(error == .corrupt(offset: 375, reason: "invalid bit length repeat"))
        #expect(lines.count == 3)
    }
}
