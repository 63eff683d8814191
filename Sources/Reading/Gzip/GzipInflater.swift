import CInflate

/// The only place that talks to the gzip decoder (`Sources/CInflate`:
/// ISA-L's igzip by default, zlib with the package trait `zlib`). Inflates
/// one gzip member at a time; `reset()` starts the next member of a
/// multi-member file (or of the next file: `BufferPool` keeps decoders),
/// `deinit` releases the decoder's state.
///
/// Each member's header is parsed and its trailer checked (CRC-32, then
/// length) by the decoder, with zlib's messages whichever engine is built.
package final class GzipInflater {
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
        /// The data is not a valid gzip stream; the decoder's message.
        case corrupt(String)
    }

    /// The engine built: "isa-l" (the default) or "zlib" (`--traits zlib`).
    static let engine = String(cString: fa_inflate_engine())

    private let inflater: OpaquePointer
    /// A decoder for a short look at an input's first bytes: zlib, which
    /// decodes no further than asked, whichever engine is built
    /// (`fa_inflater_new_look`). Not kept by `BufferPool`.
    let look: Bool

    /// Sets up the decoder for a gzip member.
    init(look: Bool = false) throws(InputError) {
        guard let inflater = look ? fa_inflater_new_look() : fa_inflater_new() else {
            throw InputError.decoderUnavailable("out of memory")
        }
        self.inflater = inflater
        self.look = look
    }

    deinit {
        if look { fa_inflater_free_look(inflater) } else { fa_inflater_free(inflater) }
    }

    /// Prepares for the next gzip member, keeping the allocated state.
    func reset() {
        if look { fa_inflater_reset_look(inflater) } else { fa_inflater_reset(inflater) }
    }

    /// The first `count` bytes (or fewer, when it holds fewer) that the
    /// gzip bytes `head` (a file's first bytes) inflate to; nil when they
    /// are not gzip (a follower's look at a rotated file `compress` made).
    package static func head(of head: [UInt8], count: Int) -> [UInt8]? {
        guard let inflater = try? GzipInflater(look: true) else { return nil }
        var output = [UInt8](repeating: 0, count: count)
        let step = head.withUnsafeBytes { input in output.withUnsafeMutableBytes { inflater.inflate(from: input, into: $0) } }
        if case .corrupt = step.status { return nil }
        return Array(output[..<step.produced])
    }

    /// Inflates as much of `input` into `output` as fits.
    func inflate(from input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Step {
        var consumed = 0
        var produced = 0
        var message: UnsafePointer<CChar>?
        let rc = (look ? fa_inflate_look : fa_inflate)(
            inflater, input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count,
            output.baseAddress?.assumingMemoryBound(to: UInt8.self), output.count, &consumed, &produced, &message)
        let status: Status
        switch rc {
        case FA_INFLATE_PROGRESS:
            status = .progress
        case FA_INFLATE_MEMBER_END:
            status = .memberEnd
        default:
            status = .corrupt(message.map { String(cString: $0) } ?? "invalid deflate data")
        }
        return Step(consumed: consumed, produced: produced, status: status)
    }
}
