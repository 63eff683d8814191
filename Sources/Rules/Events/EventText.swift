import Parsing
import Reading

/// The texts of one flip event while it is built: decoded field values
/// appended back to back, each named by a `TextSpan`, then copied out at
/// their size into the event (`EventStorage`).
///
/// ```
///  storage  [ 198.51.100.7 | st-8f2… | 4/0Ad… | 0 0 0 0 0 … ]
///             └──────────── count ───────────┘└─ room ──┘
/// ```
/// `storage` keeps its length, zeros past `count`: appending is one copy
/// of the bytes into room already there, and `removeAll` only resets
/// `count`. An `Array`'s own `append(contentsOf:)` and
/// `removeAll(keepingCapacity:)` spend about 120 and 70 instructions a
/// call on their generic paths, and an event makes two or three.
/// A value, as the extractor that holds it.
struct EventText {
    private var storage: [UInt8] = []
    /// Bytes appended since `removeAll`.
    private(set) var count = 0

    init() {}

    /// `body` over the bytes at `span` (empty when absent).
    func bytes<R>(_ span: TextSpan, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        storage.withUnsafeBytes { all in
            span.isAbsent ? body(Bytes.slice(all, 0, 0)) : body(Bytes.slice(all, Int(span.start), Int(span.start + span.count)))
        }
    }

    /// `body` over every byte appended since `removeAll`.
    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        storage.withUnsafeBytes { body(Bytes.slice($0, 0, count)) }
    }

    /// Forgets the texts; the room stays.
    mutating func removeAll() { count = 0 }

    /// Appends `bytes` and says where they went.
    mutating func span(appending bytes: UnsafeRawBufferPointer) -> TextSpan {
        let start = count
        let n = bytes.count
        if n > 0 {
            if storage.count - start < n { storage.append(contentsOf: repeatElement(0, count: max(n, storage.count, 256))) }
            precondition(storage.count - start >= n, "an event's text outgrew its room")
            storage.withUnsafeMutableBytes { ($0.baseAddress! + start).copyMemory(from: bytes.baseAddress!, byteCount: n) }
            count += n
        }
        return TextSpan(start: UInt32(start), count: UInt32(n))
    }

    /// `span` cut to at most `limit` bytes, at the start of a UTF-8
    /// sequence (the bytes after it stay in the buffer, unused).
    func cut(_ span: TextSpan, to limit: Int) -> TextSpan {
        guard span.isFilled, span.count > limit else { return span }
        var n = limit
        storage.withUnsafeBytes { bytes in
            while n > 0 && bytes[Int(span.start) + n] & 0xC0 == 0x80 { n -= 1 }
        }
        return TextSpan(start: span.start, count: UInt32(n))
    }

    /// Appends `text` (nil: nothing) and says where it went.
    mutating func span(appending text: String?) -> TextSpan {
        guard var text else { return .absent }
        return text.withUTF8 { span(appending: UnsafeRawBufferPointer($0)) }
    }

    /// Appends the decoded value of a query parameter, as
    /// `PercentDecoding.decode` (`exact` for a state) makes it; whether its
    /// encoding is malformed. A value with nothing to decode — nearly all,
    /// told by one pass (`hasValueMark`) — is copied as it is, without a
    /// String.
    mutating func span(decoding raw: UnsafeRawBufferPointer, exact: Bool) -> (TextSpan, malformed: Bool) {
        if !Bytes.hasValueMark(raw)
            || (Bytes.find(.percent, in: raw) == nil && Bytes.find(.plus, in: raw) == nil
                && (!exact || Bytes.find(.backslash, in: raw) == nil) && Bytes.isValidText(raw))
        {
            return (span(appending: raw), false)
        }
        let (text, malformed) = exact ? PercentDecoding.exact(raw) : PercentDecoding.decode(raw)
        return (span(appending: text), malformed)
    }
}
