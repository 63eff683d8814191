/// Cuts an input's decoded bytes into pieces of whole lines, so that each
/// piece can be scanned by any thread, in any order. The partial line at a
/// piece's end is carried to the start of the next one (at most `maxLine`
/// + 1 bytes); a line longer than that is counted as it streams past, never
/// held. Also decides the input's format from its first readable line, as
/// `ChunkScanner` would: a piece scanned ahead of its turn must know it.
/// Used by one thread at a time (`@unchecked Sendable`: it is handed to the
/// thread that reads the input).
final class LineChunker: @unchecked Sendable {
    /// The bytes of whole lines at `range` of the buffer a piece was cut into.
    struct Piece: Sendable {
        /// An over-long line that ends at `range`'s start (its bytes were
        /// skipped): its length. It is the piece's first line.
        var leadingOverlong: Int?
        var range: Range<Int>
        /// The input's format, once a readable line has been seen.
        var format: RecordFormat?
        /// Set on the last piece of the input.
        var end: PieceEnd?
    }

    /// How an input ended, told with its last piece. After a clean end the
    /// piece's bytes may finish with a line that has no newline.
    struct PieceEnd: Sendable {
        /// The last line, over-long and not ended by a newline: its length.
        var trailingOverlong: Int?
        /// A partial line dropped because the input stopped early: its length.
        var cutOff: Int?
        /// Why the input stopped early, if it did.
        var failure: InputError?
        var input: InputEnd
    }

    private let reader: LogFileReader
    private let maxLine: Int
    private let setting: AuditConfiguration.Format
    private var format: RecordFormat?
    private let carry: UnsafeMutableRawBufferPointer
    private var carryCount = 0
    /// Inside an over-long line: its length so far, and its last byte.
    private var overlong: Int?
    private var lastSkipped: UInt8 = 0

    init(reader: LogFileReader, maxLine: Int, format: AuditConfiguration.Format) {
        self.reader = reader
        self.maxLine = maxLine
        setting = format
        carry = .allocate(byteCount: maxLine + 1, alignment: 16)
    }

    deinit { carry.deallocate() }

    /// Decoded bytes read so far.
    var decodedBytes: UInt64 { reader.decodedBytes }

    /// Bytes of the input read as stored (compressed for gzip), for progress.
    var compressedBytes: UInt64 { reader.compressedBytes }

    /// The smallest buffer `cut(into:)` accepts: a carried line plus at
    /// least one fresh byte.
    static func minimumBuffer(maxLine: Int) -> Int { maxLine + 2 }

    /// Fills `buffer` with the carried partial line and fresh bytes and cuts
    /// the next piece from it. Call until a piece with an `end` comes back.
    func cut(into buffer: UnsafeMutableRawBufferPointer) -> Piece {
        precondition(buffer.count >= Self.minimumBuffer(maxLine: maxLine))
        let base = buffer.baseAddress!
        var n = carryCount
        if carryCount > 0 { base.copyMemory(from: carry.baseAddress!, byteCount: carryCount) }
        carryCount = 0
        var failure: InputError?
        var ended = false
        while n < buffer.count {
            do {
                let count = try reader.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[n...]))
                if count == 0 { ended = true; break }
                n += count
            } catch {
                failure = error
                ended = true
                break
            }
        }
        let bytes = UnsafeRawBufferPointer(start: base, count: n)
        var start = 0
        var leading: Int?
        if let long = overlong {
            if let i = Bytes.find(.newline, in: bytes) {
                let endsInCR = (i > 0 ? bytes[i - 1] : lastSkipped) == .carriageReturn
                leading = long + i - (endsInCR ? 1 : 0)
                overlong = nil
                start = i + 1
            } else {
                if n > 0 { lastSkipped = bytes[n - 1] }
                overlong = long + n
                start = n
            }
        }
        // Whole lines end after the last newline; the rest is a partial line.
        var stop = start
        if overlong == nil {
            // Lines are short: a backward byte loop finds the last newline
            // in a few hundred steps.
            var i = n
            while i > start && bytes[i - 1] != .newline { i -= 1 }
            stop = i
        }
        let tail = overlong == nil ? n - stop : 0
        if !ended {
            if tail > maxLine + 1 {
                overlong = tail
                lastSkipped = bytes[n - 1]
            } else if tail > 0 {
                carry.baseAddress!.copyMemory(from: base + stop, byteCount: tail)
                carryCount = tail
            }
            detectFormat(in: Bytes.slice(bytes, start, stop))
            return Piece(leadingOverlong: leading, range: start..<stop, format: format)
        }
        var end = PieceEnd(input: InputEnd(reader))
        if let failure {
            end.failure = failure
            end.cutOff = overlong ?? (tail > 0 ? tail : nil)
        } else if let long = overlong {
            end.trailingOverlong = long - (lastSkipped == .carriageReturn ? 1 : 0)
        } else if tail > maxLine + 1 {
            end.trailingOverlong = tail - (bytes[n - 1] == .carriageReturn ? 1 : 0)
        } else {
            // The last line, without a newline, stays in the piece.
            stop = n
        }
        overlong = nil
        detectFormat(in: Bytes.slice(bytes, start, stop))
        return Piece(leadingOverlong: leading, range: start..<stop, format: format, end: end)
    }

    /// Sets `format` from the first line of `bytes` it can be detected from
    /// (none is over-long, blank, or unreadable), unless known already.
    private func detectFormat(in bytes: UnsafeRawBufferPointer) {
        var start = 0
        while format == nil && start < bytes.count {
            let end = Bytes.find(.newline, in: bytes, from: start) ?? bytes.count
            var count = end - start
            if count > 0 && bytes[start + count - 1] == .carriageReturn { count -= 1 }
            let line = Bytes.slice(bytes, start, start + count)
            if count <= maxLine && RecordFormat.isDetectable(line) { format = RecordFormat.detect(line, setting: setting) }
            start = end + 1
        }
    }
}
