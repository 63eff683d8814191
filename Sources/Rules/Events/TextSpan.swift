import Parsing
import Reading

/// Where one text of a flip event lies in the event's text buffer: the
/// decoded values of its fields, back to back in one allocation, made into
/// Strings only where they are kept (a session's state) or shown (a
/// finding). `absent` stands for a field the record did not have.
package struct TextSpan: Sendable, Equatable {
    let start: UInt32
    let count: UInt32

    static let absent = TextSpan(start: 0, count: .max)

    var isAbsent: Bool { count == .max }
    /// Present and not empty.
    var isFilled: Bool { !isAbsent && count > 0 }
}

extension [UInt8] {
    /// `body` over the bytes at `span` (empty when absent).
    func bytes<R>(_ span: TextSpan, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        withUnsafeBytes { all in
            span.isAbsent ? body(Bytes.slice(all, 0, 0)) : body(Bytes.slice(all, Int(span.start), Int(span.start + span.count)))
        }
    }

    /// Appends `bytes` and says where they went.
    mutating func span(appending bytes: UnsafeRawBufferPointer) -> TextSpan {
        let start = UInt32(count)
        append(contentsOf: bytes)
        return TextSpan(start: start, count: UInt32(bytes.count))
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
