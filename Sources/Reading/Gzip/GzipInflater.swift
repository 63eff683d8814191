import CDeflate
import CZlib

/// The only place that talks to zlib. A heap-allocated `z_stream` that
/// inflates one gzip member at a time; `reset()` starts the next member of a
/// multi-member file (or of the next file: `BufferPool` keeps streams),
/// `deinit` releases zlib's state.
///
/// zlib parses each member's header and trailer but is told not to compute
/// the CRC-32 (`inflateValidate(0)`): its table-driven CRC took a quarter of
/// the inflating thread's time. The CRC is computed here with libdeflate's
/// carry-less-multiply version over the same output, and the member's
/// trailer (CRC-32 and length, the last 8 input bytes zlib consumed before
/// `Z_STREAM_END`) is checked against it, with zlib's own messages.
///
/// Every zlib return code is handled on purpose in `inflate(from:into:)`.
final class GzipInflater {
    /// What one call to `inflate` did.
    struct Step {
        /// Input bytes consumed.
        var consumed: Int
        /// Output bytes produced.
        var produced: Int
        /// How the call ended.
        var status: Status
    }

    /// The outcome of one `inflate` call, reduced to what the reader needs.
    enum Status: Equatable {
        /// More input or more output space is needed; nothing is wrong.
        case progress
        /// The end of the current gzip member (its CRC-32 and length checked).
        case memberEnd
        /// The data is not a valid deflate/gzip stream; zlib's message.
        case corrupt(String)
    }

    private let stream: UnsafeMutablePointer<z_stream>
    /// CRC-32 of the current member's output so far.
    private var crc: UInt32 = 0
    /// Length of the current member's output so far, modulo 2^32 (as gzip
    /// stores it).
    private var length: UInt32 = 0
    /// The last 8 input bytes consumed, the oldest in the low byte: at the
    /// end of a member, its trailer.
    private var lastInput: UInt64 = 0

    /// Sets up zlib for gzip decoding (window bits 15 + 16: gzip header only).
    init() throws(InputError) {
        stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let rc = czlib_inflateInit2(stream, 15 + 16)
        guard rc == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw InputError.decoderUnavailable(rc == Z_MEM_ERROR ? "out of memory" : "zlib error \(rc)")
        }
        // Kept across inflateReset: the check is ours (see the type's note).
        _ = inflateValidate(stream, 0)
    }

    deinit {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Prepares for the next gzip member, keeping the allocated window.
    func reset() {
        _ = inflateReset(stream)
        crc = 0
        length = 0
        lastInput = 0
    }

    /// Inflates as much of `input` into `output` as fits.
    func inflate(from input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Step {
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = uInt(input.count)
        stream.pointee.next_out = output.baseAddress?.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_out = uInt(output.count)
        let rc = CZlib.inflate(stream, Z_NO_FLUSH)
        let consumed = input.count - Int(stream.pointee.avail_in)
        let produced = output.count - Int(stream.pointee.avail_out)
        if produced > 0 {
            crc = libdeflate_crc32(crc, output.baseAddress, produced)
            length &+= UInt32(truncatingIfNeeded: produced)
        }
        if let base = input.baseAddress {
            for i in max(0, consumed - 8)..<consumed {
                lastInput = lastInput >> 8 | UInt64(base.load(fromByteOffset: i, as: UInt8.self)) << 56
            }
        }
        let status: Status
        switch rc {
        case Z_OK:
            status = .progress
        case Z_BUF_ERROR:
            // No progress was possible: the caller must bring more input (or
            // knows the input has ended, which makes it a truncation).
            status = .progress
        case Z_STREAM_END:
            if UInt32(truncatingIfNeeded: lastInput) != crc {
                status = .corrupt("incorrect data check")
            } else if UInt32(truncatingIfNeeded: lastInput >> 32) != length {
                status = .corrupt("incorrect length check")
            } else {
                status = .memberEnd
            }
        case Z_NEED_DICT:
            status = .corrupt("the stream asks for a preset dictionary, which gzip never uses")
        case Z_DATA_ERROR:
            status = .corrupt(stream.pointee.msg.map { String(cString: $0) } ?? "invalid deflate data")
        case Z_MEM_ERROR:
            status = .corrupt("zlib ran out of memory")
        case Z_STREAM_ERROR:
            status = .corrupt("zlib stream state is inconsistent")
        default:
            status = .corrupt("zlib returned \(rc)")
        }
        return Step(consumed: consumed, produced: produced, status: status)
    }
}
