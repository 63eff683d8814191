import Foundation
import Testing

@testable import Reading

/// The gzip reader and the line splitter over real fixture files.
@Suite("Reading gzip and plain input")
struct GzipInputTests {
    @Test("every member of a multi-member gzip is read, same lines as gzip -dc")
    func multiMember() throws {
        let path = fixture("multi-member.log.gz")
        let (lines, error, reader) = readLines(path)
        #expect(error == nil)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "gzip -dc '\(path)'"]
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let expected = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(lines.count == 9)
        #expect(lines == expected)
        #expect(reader?.encoding == .gzip)
        #expect(reader?.decodedBytes == UInt64(data.count))
        #expect(lines[6].contains("state=m3"))
    }

    @Test("a truncated member keeps the lines before the damage and reports the offset")
    func truncated() {
        let (lines, error, _) = readLines(fixture("truncated.log.gz"))
        guard case .truncated(let offset)? = error else {
            Issue.record("expected truncation, got \(String(describing: error))")
            return
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: fixture("truncated.log.gz"))[.size] as? Int) ?? 0
        #expect(offset == UInt64(size))
        #expect(lines.count >= 3)
        #expect(lines.prefix(3).allSatisfy { $0.contains("t1") || !$0.contains("state=") })
        #expect(lines[0].contains("state=t1"))
    }

    @Test("a corrupt member in the middle keeps the members before it")
    func corruptMiddle() {
        let (lines, error, _) = readLines(fixture("corrupt-middle.log.gz"))
        guard case .corrupt(let offset, let reason)? = error else {
            Issue.record("expected corruption, got \(String(describing: error))")
            return
        }
        #expect(offset > 0)
        #expect(!reason.isEmpty)
        #expect(lines.count >= 3)
        #expect(lines[0].contains("state=c1"))
        #expect(!lines.contains { $0.contains("state=c3") })
    }

    /// `multi-member.log.gz` with one byte of its last member's trailer
    /// (the last 8 bytes: CRC-32, then length) flipped, written beside the
    /// test's other temporary files.
    func damagedTrailer(byteFromEnd: Int) throws -> String {
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: fixture("multi-member.log.gz"))))
        bytes[bytes.count - byteFromEnd] ^= 0x01
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("flipaudit-trailer-\(byteFromEnd)-\(getpid()).log.gz").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test(
        "a wrong CRC-32 or length in a member's trailer is corruption, the lines before are kept",
        arguments: [(8, "incorrect data check"), (5, "incorrect data check"), (4, "incorrect length check"), (1, "incorrect length check")])
    func damagedTrailer(byteFromEnd: Int, message: String) throws {
        let path = try damagedTrailer(byteFromEnd: byteFromEnd)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (lines, error, _) = readLines(path)
        guard case .corrupt(let offset, let reason)? = error else {
            Issue.record("expected corruption, got \(String(describing: error))")
            return
        }
        #expect(reason == message)
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        #expect(offset == UInt64(size))
        // The whole member is decoded before its trailer is checked.
        #expect(lines.count == 9)
    }

    @Test("the trailer is checked when it arrives a byte at a time")
    func trailerAcrossCalls() throws {
        func inflateByteByByte(_ path: String) throws -> (ends: Int, corrupt: [String], output: Int) {
            let input = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            let inflater = try GzipInflater()
            var output = [UInt8](repeating: 0, count: 64)
            var ends = 0, produced = 0, i = 0
            var corrupt: [String] = []
            while i < input.count {
                let step = input.withUnsafeBytes { all in
                    output.withUnsafeMutableBytes { inflater.inflate(from: UnsafeRawBufferPointer(rebasing: all[i..<i + 1]), into: $0) }
                }
                i += step.consumed
                produced += step.produced
                switch step.status {
                case .memberEnd:
                    ends += 1
                    inflater.reset()
                case .corrupt(let reason): corrupt.append(reason); return (ends, corrupt, produced)
                case .progress: if step.consumed == 0 && step.produced == 0 { return (ends, corrupt, produced) }
                }
            }
            return (ends, corrupt, produced)
        }
        let clean = try inflateByteByByte(fixture("multi-member.log.gz"))
        #expect(clean.corrupt.isEmpty)
        #expect(clean.ends == 3)
        let damaged = try damagedTrailer(byteFromEnd: 6)
        defer { try? FileManager.default.removeItem(atPath: damaged) }
        let bad = try inflateByteByByte(damaged)
        #expect(bad.corrupt == ["incorrect data check"])
        #expect(bad.ends == 2)
        #expect(bad.output == clean.output)
    }

    @Test("bytes after the last member are an error, the member is kept")
    func trailingGarbage() {
        let (lines, error, _) = readLines(fixture("trailing-garbage.log.gz"))
        #expect(lines.count == 3)
        guard case .trailingGarbage? = error else {
            Issue.record("expected trailing garbage, got \(String(describing: error))")
            return
        }
    }

    @Test("zero-byte, empty and empty-member inputs are empty, not errors", arguments: ["zero-byte.log.gz", "empty-file.log", "empty-member.log.gz"])
    func emptyInputs(name: String) {
        let (lines, error, _) = readLines(fixture(name))
        #expect(error == nil)
        #expect(lines.isEmpty)
    }

    @Test("plain text passes through unchanged")
    func plain() throws {
        let (lines, error, reader) = readLines(fixture("plain.log"))
        #expect(error == nil)
        #expect(reader?.encoding == .plain)
        let text = try String(contentsOfFile: fixture("plain.log"), encoding: .utf8)
        #expect(lines == text.split(separator: "\n").map(String.init))
    }

    @Test("CRLF line ends are stripped and a last line without newline is kept")
    func crlf() {
        let (lines, error, _) = readLines(fixture("crlf.log.gz"))
        #expect(error == nil)
        #expect(lines.count == 3)
        #expect(lines.allSatisfy { !$0.hasSuffix("\r") })
        #expect(lines[2].hasSuffix("\"-\""))
    }

    @Test(
        "zstd, bzip2 and xz are named, with how to pipe them in", arguments: [("access.log.zst", "zstd"), ("access.log.bz2", "bzip2"), ("access.log.xz", "xz")])
    func otherCompressions(name: String, format: String) {
        let (lines, error, _) = readLines(fixture(name))
        #expect(lines.isEmpty)
        #expect(error == .unsupportedCompression(format: format, tool: format, path: fixture(name)))
        // The command names the file itself, ready to paste.
        #expect("\(error!)".contains("\(format) -dc \(fixture(name)) | flipaudit -"))
        #expect(!"\(error!)".contains("FILE"))
    }

    @Test("a missing path is reported as missing")
    func missing() {
        let (_, error, _) = readLines("/nonexistent/flipaudit/access.log.gz")
        #expect(error == .missing)
    }
}

/// Line framing across chunk boundaries and the over-long line rule.
@Suite("Splitting lines")
struct LineSplitterTests {
    /// Feeds `text` in pieces of `size` bytes.
    func split(_ text: String, pieceSize: Int, maxLine: Int = 64) -> CollectingSink {
        var splitter = LineSplitter(maxLine: maxLine)
        var sink = CollectingSink()
        let bytes = Array(text.utf8)
        var i = 0
        while i < bytes.count {
            let piece = Array(bytes[i..<min(i + pieceSize, bytes.count)])
            piece.withUnsafeBytes { splitter.feed($0, to: &sink) }
            i += pieceSize
        }
        splitter.finish(to: &sink)
        return sink
    }

    @Test("the same lines whatever the chunk size", arguments: [1, 2, 3, 7, 64, 4096])
    func chunkSizes(size: Int) {
        let text = "alpha\nbeta\r\n\ngamma delta\nlast-without-newline"
        let sink = split(text, pieceSize: size)
        #expect(sink.lines == ["alpha", "beta", "", "gamma delta", "last-without-newline"])
        #expect(sink.numbers == [1, 2, 3, 4, 5])
    }

    @Test("an over-long line is counted with its length and skipped; its neighbours are intact", arguments: [1, 5, 100, 1000])
    func overlong(size: Int) {
        let long = String(repeating: "x", count: 300)
        let sink = split("before\n\(long)\nafter\n", pieceSize: size, maxLine: 64)
        #expect(sink.lines == ["before", "after"])
        #expect(sink.overlong.count == 1)
        #expect(sink.overlong.first?.number == 2)
        #expect(sink.overlong.first?.length == 300)
        #expect(sink.numbers == [1, 3])
    }

    /// A line is called plain only when it has no NUL, byte ≥ 0x80 or
    /// backslash; one wholly inside a chunk without such bytes before its
    /// end is called plain; a line carried over from an earlier chunk never.
    @Test("lines are called plain exactly when the splitter can know it", arguments: [1, 7, 40, 4096])
    func plainLines(size: Int) {
        let lines = [
            "GET /a", "bad \\x16", "after the bad one", "caf\u{E9}", "",
            String(repeating: "z", count: 35), "nul\u{0}here", "last",
        ]
        var bytes: [UInt8] = []
        for line in lines { bytes += Array(line.utf8) + [UInt8(ascii: "\n")] }
        var splitter = LineSplitter(maxLine: 64)
        var sink = CollectingSink()
        var lineStarts: [Int] = [0]
        for (i, b) in bytes.enumerated() where b == UInt8(ascii: "\n") { lineStarts.append(i + 1) }
        var i = 0
        while i < bytes.count {
            let piece = Array(bytes[i..<min(i + size, bytes.count)])
            piece.withUnsafeBytes { splitter.feed($0, to: &sink) }
            i += size
        }
        #expect(sink.lines == lines)
        for (n, line) in lines.enumerated() {
            let marked = line.utf8.contains { $0 == 0 || $0 >= 0x80 || $0 == UInt8(ascii: "\\") }
            // Whole inside one chunk: starts and ends (newline included) in the same piece.
            let inside = lineStarts[n] / size == (lineStarts[n + 1] - 1) / size
            #expect(sink.plain[n] == (!marked && inside), "line \(n + 1) at piece size \(size)")
        }
    }

    @Test("a line of exactly max-line bytes is kept, even with CRLF")
    func exactlyMax() {
        let line = String(repeating: "y", count: 64)
        let sink = split("\(line)\r\n\(line)\n", pieceSize: 10, maxLine: 64)
        #expect(sink.lines == [line, line])
        #expect(sink.overlong.isEmpty)
    }
}
