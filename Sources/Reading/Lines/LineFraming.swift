/// What framing lines means, for both ways the input is cut into lines:
/// `LineSplitter` (lines handed to a sink one by one) and `PieceCutter`
/// (pieces of whole lines). A line ends at `\n`; a `\r` just before it
/// belongs to the line end; a line longer than `maxLine` bytes is
/// over-long. A line that a buffer's end cuts in two is carried to the
/// next buffer: held while it fits in `maxLine` + 1 bytes (room for the
/// `\r` its end will strip), and past that only measured as it streams by
/// — its length so far and its last byte, which tells whether a `\r` ends
/// it — never held.
///
/// Everything here is byte-based and inlined into the framing loops: no
/// String, no closure or protocol call per line.
@usableFromInline final class LineFraming {
    /// Longest line accepted, in bytes (without the line end).
    @usableFromInline let maxLine: Int

    /// A carried line that fits, or nothing while it is over-long.
    private let held: UnsafeMutableRawBufferPointer
    @usableFromInline var heldCount = 0
    /// Inside an over-long carried line: its length so far.
    @usableFromInline var overlongLength: Int?
    /// The last byte carried, while the carried line is over-long.
    private var lastByte: UInt8 = 0

    /// How a carried line ended.
    @usableFromInline enum Carried {
        /// No line was carried.
        case none
        /// The line as carried (a `\r` of its line end still on it); valid
        /// until the next `carry`.
        case line(UnsafeRawBufferPointer)
        /// An over-long line: its length, without a `\r` before its end.
        case overlong(length: Int)
    }

    @usableFromInline init(maxLine: Int) {
        self.maxLine = maxLine
        // A pooled read buffer when it is large enough: every input frames
        // its lines, and a folder of small files would fault in a fresh
        // one for each.
        let limit = Self.carryLimit(maxLine: maxLine)
        held = BufferPool.shared.take(limit <= LogFileReader.bufferSize ? LogFileReader.bufferSize : limit)
    }

    deinit { BufferPool.shared.give(held) }

    /// The most bytes of a carried line that are held.
    static func carryLimit(maxLine: Int) -> Int { max(maxLine + 1, 1) }

    /// A line is being carried (held or measured).
    @inlinable var isCarrying: Bool { heldCount > 0 || overlongLength != nil }

    /// The line being carried is over-long.
    var isOverlong: Bool { overlongLength != nil }

    /// The carried line goes on with `bytes`.
    @usableFromInline func carry(_ bytes: UnsafeRawBufferPointer) {
        if let last = bytes.last { lastByte = last }
        if let long = overlongLength {
            overlongLength = long + bytes.count
        } else if heldCount + bytes.count > Self.carryLimit(maxLine: maxLine) {
            overlongLength = heldCount + bytes.count
            heldCount = 0
        } else if bytes.count > 0 {
            (held.baseAddress! + heldCount).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
            heldCount += bytes.count
        }
    }

    /// The carried line has ended (a line end follows it, or the input's
    /// end): what it was. Nothing is carried afterwards.
    @usableFromInline func endCarried() -> Carried {
        defer {
            heldCount = 0
            overlongLength = nil
        }
        if let long = overlongLength { return .overlong(length: long - (lastByte == .carriageReturn ? 1 : 0)) }
        if heldCount == 0 { return .none }
        return .line(UnsafeRawBufferPointer(start: held.baseAddress!, count: heldCount))
    }

    /// Copies a held carried line to `destination` (the start of the next
    /// buffer) and carries it no more; its length. Nothing is copied while
    /// the carried line is over-long: it stays measured.
    func moveHeld(to destination: UnsafeMutableRawPointer) -> Int {
        let count = heldCount
        if count > 0 { destination.copyMemory(from: held.baseAddress!, byteCount: count) }
        heldCount = 0
        return count
    }

    /// Drops the carried line (the input was cut off in it): its length as
    /// carried, or nil when there was none.
    @usableFromInline func dropCarried() -> Int? {
        defer {
            heldCount = 0
            overlongLength = nil
        }
        if let long = overlongLength { return long }
        return heldCount > 0 ? heldCount : nil
    }

    /// A line without its line end's `\r`, if it has one (`line` comes
    /// without its `\n`).
    @inline(__always)
    @inlinable static func content(_ line: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        let count = line.count
        if count > 0 && line[count - 1] == .carriageReturn { return UnsafeRawBufferPointer(start: line.baseAddress, count: count - 1) }
        return line
    }

    /// Where the whole lines of `bytes[start...]` end: just past its last
    /// `\n`, or `start` when it has none.
    static func endOfLastLine(in bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
        // Lines are short: a backward byte loop finds the last newline in a
        // few hundred steps.
        var i = bytes.count
        while i > start && bytes[i - 1] != .newline { i -= 1 }
        return i
    }
}
