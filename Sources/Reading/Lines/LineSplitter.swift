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
/// not plain — see `LineSink.line`). A line that spans two chunks is
/// carried by its `LineFraming`: held up to `maxLine` bytes, counted and
/// skipped as it streams past when longer.
public struct LineSplitter: ~Copyable {
    /// Longest line accepted, in bytes (without the line end).
    public var maxLine: Int { framing.maxLine }
    /// Lines seen so far (the number of the last line handed out).
    public var lineCount: Int { lines }
    /// Lines handed out so far.
    @usableFromInline var lines = 0

    @usableFromInline var framing: LineFraming

    public init(maxLine: Int) {
        framing = LineFraming(maxLine: maxLine)
    }

    /// Splits `chunk`, handing every complete line to `sink`.
    @inlinable public mutating func feed<Sink: LineSink>(_ chunk: UnsafeRawBufferPointer, to sink: inout Sink) {
        guard let base = chunk.baseAddress else { return }
        var start = 0
        let end = chunk.count
        // The next NUL, byte ≥ 0x80 or backslash: lines ending before it
        // are plain.
        var mark = Bytes.LineCheck.firstMark(in: chunk, from: 0) ?? end
        while start < end {
            guard let hit = memchr(base + start, Int32(UInt8.newline), end - start) else {
                framing.carry(UnsafeRawBufferPointer(start: base + start, count: end - start))
                return
            }
            let lineEnd = UnsafeRawPointer(hit) - base
            if !framing.isCarrying {
                emit(UnsafeRawBufferPointer(start: base + start, count: lineEnd - start), plain: lineEnd <= mark, to: &sink)
            } else {
                framing.carry(UnsafeRawBufferPointer(start: base + start, count: lineEnd - start))
                emitCarried(to: &sink)
            }
            start = lineEnd + 1
            if mark < start { mark = Bytes.LineCheck.firstMark(in: chunk, from: start) ?? end }
        }
    }

    /// Hands out a last line that has no newline after it.
    @inlinable public mutating func finish<Sink: LineSink>(to sink: inout Sink) {
        emitCarried(to: &sink)
    }

    /// Drops a partial last line (when the input was cut off) and tells how
    /// many bytes it had, or `nil` when there was none.
    public mutating func discardPartialLine() -> Int? {
        framing.dropCarried()
    }

    @inlinable mutating func emitCarried<Sink: LineSink>(to sink: inout Sink) {
        switch framing.endCarried() {
        case .none:
            break
        case .line(let line):
            // Its start came from an earlier chunk: nothing is known of it.
            emit(line, plain: false, to: &sink)
        case .overlong(let length):
            lines += 1
            sink.overlongLine(number: lines, length: length)
        }
    }

    @inlinable mutating func emit<Sink: LineSink>(_ line: UnsafeRawBufferPointer, plain: Bool, to sink: inout Sink) {
        lines += 1
        let content = LineFraming.content(line)
        if content.count > framing.maxLine {
            sink.overlongLine(number: lines, length: content.count)
            return
        }
        sink.line(content, number: lines, plain: plain)
    }
}
