import CLines

/// Cuts an input's decoded bytes into pieces of whole lines, so that each
/// piece can be scanned by any thread, in any order. The partial line at a
/// piece's end is carried to the start of the next one by its
/// `LineFraming` (an over-long one is measured as it streams past, never
/// held); the piece then says where an over-long line ended. It decides
/// nothing about formats: under `--format auto` each line is read in the
/// format its first byte shows (`RecordFormat.shape`), wherever it falls.
/// Used by one thread at a time (`@unchecked Sendable`: it is handed to the
/// thread that reads the input).
package final class PieceCutter: @unchecked Sendable {
    /// The bytes of whole lines at `range` of the buffer a piece was cut into.
    package struct Piece: Sendable {
        /// An over-long line that ends at `range`'s start (its bytes were
        /// skipped): its length. It is the piece's first line.
        package var leadingOverlong: Int?
        package var range: Range<Int>
        /// Set on the last piece of the input.
        package var end: PieceEnd?
        /// The last W3C `#Fields:` line before the piece, which names the
        /// columns of its lines up to one of its own.
        package var header: [UInt8]? = nil
    }

    /// How an input ended, told with its last piece. After a clean end the
    /// piece's bytes may finish with a line that has no newline.
    package struct PieceEnd: Sendable {
        /// The last line, over-long and not ended by a newline: its length.
        package var trailingOverlong: Int?
        /// A partial line dropped because the input stopped early: its length.
        package var cutOff: Int?
        /// Why the input stopped early, if it did.
        package var failure: InputError?
        /// What the reader says of the input; nil when it could not be
        /// opened.
        package var input: InputEnd?
    }

    private let path: String?
    /// The size the run first saw the file at (`FileIdentity.size`).
    private let size: UInt64?
    /// Opened on the first cut, so that an input not reached yet holds no
    /// descriptor.
    private var reader: LogFileReader?
    private let maxLine: Int
    /// Made on the first cut, by the thread that cuts: its line buffer is
    /// not taken for an input not reached yet.
    private var lazyFraming: LineFraming?

    /// Cuts the file at `path` (standard input for nil), read to `size`
    /// when given (`LogFileReader.init(path:size:look:)`).
    package init(path: String?, size: UInt64? = nil, maxLine: Int) {
        self.path = path
        self.size = size
        self.maxLine = maxLine
    }

    /// Cuts what `reader` reads.
    package init(reader: LogFileReader, maxLine: Int) {
        path = nil
        size = nil
        self.reader = reader
        self.maxLine = maxLine
    }

    /// Bytes of the input read as stored (compressed for gzip), for progress.
    package var compressedBytes: UInt64 { reader?.compressedBytes ?? readBytes }
    /// `compressedBytes` once the last piece is cut, and the reader let go.
    private var readBytes: UInt64 = 0
    /// The last piece is cut.
    private var cutAll = false

    /// The smallest buffer `cut(into:)` accepts: a carried line plus at
    /// least one fresh byte.
    package static func minimumBuffer(maxLine: Int) -> Int { LineFraming.carryLimit(maxLine: maxLine) + 1 }

    /// Fills `buffer` with the carried partial line and fresh bytes and cuts
    /// the next piece from it. Call until a piece with an `end` comes back.
    package func cut(into buffer: UnsafeMutableRawBufferPointer) -> Piece {
        precondition(buffer.count >= Self.minimumBuffer(maxLine: maxLine))
        // The reader is let go at the end: a cut after it would read the
        // input again from its first byte.
        precondition(!cutAll, "a piece cut after the last one")
        if reader == nil {
            do {
                reader = try LogFileReader(path: path, size: size)
            } catch {
                return Piece(range: 0..<0, end: PieceEnd(failure: error, input: nil))
            }
        }
        let reader = reader!
        if lazyFraming == nil { lazyFraming = LineFraming(maxLine: maxLine) }
        let framing = lazyFraming!
        let base = buffer.baseAddress!
        var n = framing.moveHeld(to: base)
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
        if framing.isOverlong {
            // The over-long line carried in goes on to the first newline.
            let lineEnd = Bytes.find(.newline, in: bytes) ?? n
            framing.carry(Bytes.slice(bytes, 0, lineEnd))
            if lineEnd < n {
                if case .overlong(let length) = framing.endCarried() { leading = length }
                start = lineEnd + 1
            } else {
                start = n
            }
        }
        // Whole lines end after the last newline; the rest is a partial line.
        var stop = framing.isOverlong ? n : LineFraming.endOfLastLine(in: bytes, from: start)
        framing.carry(Bytes.slice(bytes, stop, n))
        if !ended {
            return headed(Piece(leadingOverlong: leading, range: start..<stop), bytes)
        }
        var end = PieceEnd(input: InputEnd(reader))
        // The input is read: its decoder and line buffer go back to the
        // pool while its pieces wait for the caller.
        readBytes = reader.compressedBytes
        cutAll = true
        self.reader = nil
        lazyFraming = nil
        if let failure {
            end.failure = failure
            end.cutOff = framing.dropCarried()
        } else {
            switch framing.endCarried() {
            case .none: break
            // The last line, without a newline, stays in the piece.
            case .line: stop = n
            case .overlong(let length): end.trailingOverlong = length
            }
        }
        return headed(Piece(leadingOverlong: leading, range: start..<stop, end: end), bytes)
    }

    /// The last W3C `#Fields:` line cut so far.
    private var header: [UInt8]?

    /// `piece` with the header in force before it; remembers its own last
    /// one for the pieces after. A `#` is rare in other logs: the search
    /// costs one `memrchr` over the piece.
    private func headed(_ piece: Piece, _ bytes: UnsafeRawBufferPointer) -> Piece {
        var piece = piece
        piece.header = header
        let prefix: StaticString = "#Fields:"
        let range = piece.range
        guard let base = bytes.baseAddress, !range.isEmpty else { return piece }
        let found = fa_last_line_with_prefix(
            base.assumingMemoryBound(to: UInt8.self) + range.lowerBound, range.count, prefix.utf8Start, prefix.utf8CodeUnitCount)
        if found >= 0 {
            let at = range.lowerBound + found
            let lineEnd = Bytes.find(.newline, in: bytes, from: at).map { min($0, range.upperBound) } ?? range.upperBound
            header = Array(Bytes.slice(bytes, at, lineEnd))
        }
        return piece
    }
}
