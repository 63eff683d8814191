#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Receives the lines a `LineSplitter` finds.
public protocol LineSink {
    /// A complete line without its `\n` (and without a `\r` before it). The
    /// bytes are valid only during the call. `plain` says that the line has
    /// no NUL byte, no byte ≥ 0x80 and no backslash (found by one pass
    /// over the chunk, `Bytes.LineCheck.firstMark`); false says nothing.
    mutating func line(_ bytes: UnsafeRawBufferPointer, number: Int, plain: Bool)
    /// A line longer than the limit; its bytes were skipped, never held.
    mutating func overlongLine(number: Int, length: Int)
}

/// Splits decoded chunks into lines with `memchr`, never rescanning a byte
/// (but for one more pass over each chunk, for the bytes that make a line
/// not plain — see `LineSink.line`).
/// A line that spans two chunks is carried in a buffer of at most `maxLine`
/// bytes; a longer one is counted and skipped as it streams past.
public struct LineSplitter: ~Copyable {
    /// Longest line accepted, in bytes (without the line end).
    public let maxLine: Int
    /// Lines seen so far (the number of the last line handed out).
    public private(set) var lineCount = 0

    private let carry: UnsafeMutableRawBufferPointer
    private var carryCount = 0
    /// Inside an over-long line: its length so far, and its last byte (a
    /// `\r` there is the line end's, not counted).
    private var overlongLength: Int?
    private var lastSkipped: UInt8 = 0

    public init(maxLine: Int) {
        self.maxLine = maxLine
        carry = .allocate(byteCount: max(maxLine + 1, 1), alignment: 16)
    }

    deinit { carry.deallocate() }

    /// Splits `chunk`, handing every complete line to `sink`.
    public mutating func feed<Sink: LineSink>(_ chunk: UnsafeRawBufferPointer, to sink: inout Sink) {
        guard let base = chunk.baseAddress else { return }
        var start = 0
        let end = chunk.count
        // The next NUL, byte ≥ 0x80 or backslash: lines ending before it
        // are plain.
        var mark = Bytes.LineCheck.firstMark(in: chunk, from: 0) ?? end
        while start < end {
            guard let hit = memchr(base + start, Int32(UInt8.newline), end - start) else {
                append(UnsafeRawBufferPointer(start: base + start, count: end - start))
                return
            }
            let lineEnd = UnsafeRawPointer(hit) - base
            if carryCount == 0 && overlongLength == nil {
                emit(UnsafeRawBufferPointer(start: base + start, count: lineEnd - start), plain: lineEnd <= mark, to: &sink)
            } else {
                append(UnsafeRawBufferPointer(start: base + start, count: lineEnd - start))
                emitCarry(to: &sink)
            }
            start = lineEnd + 1
            if mark < start { mark = Bytes.LineCheck.firstMark(in: chunk, from: start) ?? end }
        }
    }

    /// Hands out a last line that has no newline after it.
    public mutating func finish<Sink: LineSink>(to sink: inout Sink) {
        if carryCount > 0 || overlongLength != nil { emitCarry(to: &sink) }
    }

    /// Drops a partial last line (when the input was cut off) and tells how
    /// many bytes it had, or `nil` when there was none.
    public mutating func discardPartialLine() -> Int? {
        defer { carryCount = 0; overlongLength = nil }
        if let long = overlongLength { return long }
        return carryCount > 0 ? carryCount : nil
    }

    private mutating func append(_ piece: UnsafeRawBufferPointer) {
        if let last = piece.last { lastSkipped = last }
        if let long = overlongLength {
            overlongLength = long + piece.count
        } else if carryCount + piece.count > maxLine + 1 {
            // +1 leaves room for a `\r` that the line end will strip.
            overlongLength = carryCount + piece.count
            carryCount = 0
        } else if piece.count > 0 {
            (carry.baseAddress! + carryCount).copyMemory(from: piece.baseAddress!, byteCount: piece.count)
            carryCount += piece.count
        }
    }

    private mutating func emitCarry<Sink: LineSink>(to sink: inout Sink) {
        if let long = overlongLength {
            lineCount += 1
            sink.overlongLine(number: lineCount, length: long - (lastSkipped == .carriageReturn ? 1 : 0))
            overlongLength = nil
            carryCount = 0
            return
        }
        let line = UnsafeRawBufferPointer(start: carry.baseAddress!, count: carryCount)
        carryCount = 0
        // Its start came from an earlier chunk: nothing is known of it.
        emit(line, plain: false, to: &sink)
    }

    private mutating func emit<Sink: LineSink>(_ line: UnsafeRawBufferPointer, plain: Bool, to sink: inout Sink) {
        lineCount += 1
        var count = line.count
        if count > 0 && line[count - 1] == UInt8.carriageReturn { count -= 1 }
        if count > maxLine {
            sink.overlongLine(number: lineCount, length: count)
            return
        }
        sink.line(UnsafeRawBufferPointer(start: line.baseAddress, count: count), number: lineCount, plain: plain)
    }
}
