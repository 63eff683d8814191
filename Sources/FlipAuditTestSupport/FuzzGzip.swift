import CLines
import Reading

#if canImport(Glibc)
    import Glibc
#endif

/// Counts the lines a splitter hands out and checks their bounds, and that
/// a line called plain has no NUL, byte ≥ 0x80 or backslash.
struct CountingSink: LineSink {
    let maxLine: Int
    var lines = 0
    var bytes = 0
    mutating func line(_ bytes: UnsafeRawBufferPointer, number: Int, plain: Bool) {
        lines += 1
        self.bytes += bytes.count
        invariant(bytes.count <= maxLine, "a line of \(bytes.count) bytes passed the \(maxLine)-byte limit")
        invariant(!bytes.contains(0x0A), "a line holds a newline")
        invariant(number == lines, "line \(number) handed out as the \(lines)th")
        invariant(!plain || !bytes.contains { $0 == 0 || $0 >= 0x80 || $0 == 0x5C }, "a line called plain holds a NUL, a byte >= 0x80 or a backslash")
    }
    mutating func overlongLine(number: Int, length: Int) {
        lines += 1
        invariant(length > maxLine, "a \(length)-byte line called over-long")
    }
}

/// The file each input is written to (one per fuzzing process).
let scratchPath = "/tmp/flipaudit-fuzz-\(getpid()).log"

/// Writes the input into a scratch file and reads it the way a log
/// file is read: magic sniffing, gzip members, damage, line splitting.
public func fuzzGzip(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    lineEndsAgree(start, count)
    let fd = open(scratchPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard fd >= 0 else { fatalError("cannot write \(scratchPath)") }
    var written = 0
    while written < count {
        let n = write(fd, start + written, count - written)
        guard n > 0 else { fatalError("write failed") }
        written += n
    }
    close(fd)
    guard let reader = try? LogFileReader(path: scratchPath) else { return 0 }
    var splitter = LineSplitter(maxLine: 512)
    var sink = CountingSink(maxLine: 512)
    var decoded = 0
    do {
        while let chunk = try reader.nextChunk() {
            decoded += chunk.count
            splitter.feed(chunk, to: &sink)
        }
        splitter.finish(to: &sink)
    } catch {
        _ = splitter.discardPartialLine()
    }
    invariant(UInt64(decoded) == reader.decodedBytes, "\(decoded) bytes handed out, \(reader.decodedBytes) counted")
    invariant(reader.compressedBytes <= UInt64(count), "read \(reader.compressedBytes) of a \(count)-byte input")
    if reader.encoding == .plain { invariant(decoded <= count, "plain input grew") }
    return 0
}

/// The splitter's one pass (`fa_line_ends`: AVX2 where the machine has
/// it) and its byte loop find the same line ends and flags in the raw
/// input, with room for many ends and for a few.
func lineEndsAgree(_ start: UnsafePointer<UInt8>, _ count: Int) {
    for capacity in [1024, 3] {
        var fast = [UInt32](repeating: 0, count: capacity)
        var slow = [UInt32](repeating: 0, count: capacity)
        let a = fast.withUnsafeMutableBufferPointer { fa_line_ends(start, count, $0.baseAddress, capacity) }
        let b = slow.withUnsafeMutableBufferPointer { fa_line_ends_portable(start, count, $0.baseAddress, capacity) }
        invariant(a == b && fast[0..<a] == slow[0..<b], "the line-end pass and its byte loop disagree (room \(capacity))")
    }
}
