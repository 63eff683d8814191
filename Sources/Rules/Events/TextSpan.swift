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
