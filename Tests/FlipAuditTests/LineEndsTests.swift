import CLines
import Reading
import Testing

/// The one pass that finds line ends and plain lines (`fa_line_ends`): its
/// fast path (AVX2 where this machine has it) against the byte loop and
/// against the rule written out here, and the splitter resuming it when
/// a chunk holds more lines than its room for ends.
@Suite("Line ends and plain lines in one pass")
struct LineEndsTests {
    /// The rule: each newline's offset, flagged when a NUL, a byte ≥ 0x80
    /// or a backslash lies between it and the line end before it.
    static func expected(_ bytes: [UInt8], capacity: Int) -> [UInt32] {
        var ends: [UInt32] = []
        var start = 0
        for (i, b) in bytes.enumerated() where b == UInt8(ascii: "\n") {
            guard ends.count < capacity else { break }
            let marked = bytes[start..<i].contains { $0 == 0 || $0 >= 0x80 || $0 == UInt8(ascii: "\\") }
            ends.append(UInt32(i) | (marked ? FA_LINE_NOT_PLAIN : 0))
            start = i + 1
        }
        return ends
    }

    static func run(_ bytes: [UInt8], capacity: Int, portable: Bool) -> [UInt32] {
        var ends = [UInt32](repeating: 0xDEAD_BEEF, count: capacity + 1)
        let found = bytes.withUnsafeBufferPointer { b in
            ends.withUnsafeMutableBufferPointer { e in
                portable
                    ? fa_line_ends_portable(b.baseAddress, b.count, e.baseAddress, capacity)
                    : fa_line_ends(b.baseAddress, b.count, e.baseAddress, capacity)
            }
        }
        // Nothing is written past the room given.
        #expect(ends[capacity] == 0xDEAD_BEEF)
        return Array(ends[0..<found])
    }

    /// Seeded buffers of every length to 300 bytes (every tail length and
    /// several 64-byte steps), with newlines, marks, `\r` and plain bytes
    /// at every offset, and rooms from none to plenty.
    @Test("the fast pass, the byte loop and the rule agree", arguments: [1, 2, 3, 4])
    func agree(seed: UInt64) {
        var random = SplitMix(seed: seed)
        let alphabet: [UInt8] = [0x61, 0x20, 0x0A, 0x0A, 0x5C, 0x00, 0x80, 0xC3, 0xFF, 0x7F, 0x0D, 0x5B, 0x01]
        for length in 0...300 {
            // Sparse marks and newlines, as in logs, and dense ones.
            let dense = length % 2 == 0
            let bytes = (0..<length).map { _ -> UInt8 in
                let r = random.next()
                if dense || r % 16 == 0 { return alphabet[Int((r >> 8) % UInt64(alphabet.count))] }
                return r % 7 == 0 ? 0x0A : 0x61
            }
            for capacity in [0, 1, 2, 5, 1024] {
                let rule = Self.expected(bytes, capacity: capacity)
                #expect(Self.run(bytes, capacity: capacity, portable: false) == rule, "length \(length), room \(capacity)")
                #expect(Self.run(bytes, capacity: capacity, portable: true) == rule, "length \(length), room \(capacity)")
            }
        }
    }

    @Test("a mark in the line before, or right after a newline, does not taint a line")
    func marksStayInTheirLine() {
        // 64-byte steps: the mark sits at the last byte before a step's
        // newline, and at the first byte after one.
        var bytes = [UInt8](repeating: 0x61, count: 200)
        bytes[62] = 0x5C
        bytes[63] = 0x0A
        bytes[64] = 0x80
        bytes[100] = 0x0A
        bytes[130] = 0x0A
        bytes[199] = 0x0A
        let want: [UInt32] = [63 | FA_LINE_NOT_PLAIN, 100 | FA_LINE_NOT_PLAIN, 130, 199]
        #expect(Self.run(bytes, capacity: 10, portable: false) == want)
        #expect(Self.run(bytes, capacity: 10, portable: true) == want)
    }

    /// More lines in one chunk than the splitter has room for ends: every
    /// line comes out once, in order, with its plain flag.
    @Test("the splitter resumes the pass when its room for ends is full")
    func manyLinesInOneChunk() {
        var text: [UInt8] = []
        var lines: [String] = []
        for i in 0..<3_000 {
            let line = i % 97 == 0 ? "line \(i) caf\u{E9}" : (i % 89 == 0 ? "line \(i) a\\b" : "line \(i) " + String(repeating: "x", count: i % 70))
            lines.append(line)
            text += Array(line.utf8) + [0x0A]
        }
        text += Array("tail".utf8)
        var splitter = LineSplitter(maxLine: 256)
        var sink = CollectingSink()
        text.withUnsafeBytes { splitter.feed($0, to: &sink) }
        #expect(sink.lines == lines)
        #expect(sink.numbers == Array(1...3_000))
        #expect(sink.plain == lines.map { !$0.utf8.contains { $0 >= 0x80 || $0 == UInt8(ascii: "\\") } })
        splitter.finish(to: &sink)
        #expect(sink.lines.last == "tail")
    }
}
