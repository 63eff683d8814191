import CLines

/// Receives the lines a `LineSplitter` finds.
public protocol LineSink {
    /// A complete line without its `\n` (and without a `\r` before it). The
    /// bytes are valid only during the call. `plain` says that the line has
    /// no NUL byte, no byte ≥ 0x80 and no backslash (found in the pass
    /// that finds its end, `fa_line_ends`); false says nothing.
    mutating func line(_ bytes: UnsafeRawBufferPointer, number: Int, plain: Bool)
    /// A line longer than the limit; its bytes were skipped, never held.
    mutating func overlongLine(number: Int, length: Int)
    /// The line about to be handed over ended in `\r\n` (or, the input's
    /// last, in `\r`).
    mutating func carriageReturn()
    /// The input's last line had no newline after it.
    mutating func noFinalNewline()
}

extension LineSink {
    public mutating func carriageReturn() {}
    public mutating func noFinalNewline() {}
}

/// Splits decoded chunks into lines, never rescanning a byte: one pass
/// (`fa_line_ends`, a C shim) finds a run of line ends and tells which of
/// those lines are plain (see `LineSink.line`), and the lines are handed
/// out from the ends it wrote.
///
/// ```
/// chunk   |GET /a ...\nGET /é ...\nGET /b|    (é: two bytes ≥ 0x80)
///          0         10          22
/// ends    [10, 22 | NOT_PLAIN]   "GET /b" is carried to the next chunk
/// ```
/// A line that spans two chunks is carried by its `LineFraming`: held up
/// to `maxLine` bytes, counted and skipped as it streams past when longer.
public struct LineSplitter: ~Copyable {
    /// Longest line accepted, in bytes (without the line end).
    public var maxLine: Int { framing.maxLine }
    /// Lines seen so far (the number of the last line handed out).
    public var lineCount: Int { lines }
    /// Lines handed out so far.
    @usableFromInline var lines = 0

    @usableFromInline var framing: LineFraming
    /// Where the pass writes line ends: `endsCapacity` of them, each an
    /// offset from where the pass started, `FA_LINE_NOT_PLAIN` set on a
    /// line that is not plain. Read only between a pass and the next.
    @usableFromInline let ends: UnsafeMutablePointer<UInt32>
    @usableFromInline static var endsCapacity: Int { 1024 }

    public init(maxLine: Int) {
        framing = LineFraming(maxLine: maxLine)
        ends = .allocate(capacity: Self.endsCapacity)
    }

    deinit { ends.deallocate() }

    /// Splits `chunk`, handing every complete line to `sink`.
    @inlinable public mutating func feed<Sink: LineSink>(_ chunk: UnsafeRawBufferPointer, to sink: inout Sink) {
        guard let base = chunk.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        let end = chunk.count
        var start = 0
        while start < end {
            // A pass from the next line's start: its offsets are from there.
            let from = base + start
            let window = min(end &- start, Int(FA_LINES_MAX_BYTES))
            let wholeRest = window == end &- start
            let found = fa_line_ends(from, window, ends, Self.endsCapacity)
            guard found > 0 else {
                if wholeRest { break }
                // No line end in a whole window: a line too long to keep.
                framing.carry(UnsafeRawBufferPointer(start: from, count: window))
                start &+= window
                continue
            }
            var first = 0
            var lineStart = 0
            if framing.isCarrying {
                // The carried line's end: its start came from an earlier
                // chunk, so nothing is known of it.
                let lineEnd = Int(ends[0] & ~FA_LINE_NOT_PLAIN)
                framing.carry(UnsafeRawBufferPointer(start: from, count: lineEnd))
                emitCarried(to: &sink)
                first = 1
                lineStart = lineEnd &+ 1
            }
            for k in first..<found {
                let word = ends[k]
                let lineEnd = Int(word & ~FA_LINE_NOT_PLAIN)
                emit(UnsafeRawBufferPointer(start: from + lineStart, count: lineEnd &- lineStart), plain: word & FA_LINE_NOT_PLAIN == 0, to: &sink)
                lineStart = lineEnd &+ 1
            }
            start &+= lineStart
            // Fewer ends than room: no newline after the last one.
            if found < Self.endsCapacity && wholeRest { break }
        }
        if start < end { framing.carry(UnsafeRawBufferPointer(start: base + start, count: end - start)) }
    }

    /// Hands out a last line that has no newline after it.
    @inlinable public mutating func finish<Sink: LineSink>(to sink: inout Sink) {
        if framing.isCarrying { sink.noFinalNewline() }
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
        if content.count != line.count { sink.carriageReturn() }
        sink.line(content, number: lines, plain: plain)
    }
}
