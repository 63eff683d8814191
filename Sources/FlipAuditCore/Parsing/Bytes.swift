#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Small byte-range helpers shared by the parsers. Ranges are
/// `UnsafeRawBufferPointer` views into a line that lives only as long as the
/// parse; nothing here allocates.
enum Bytes {
    /// Index of the first `byte` at or after `from`, using `memchr`.
    @inline(__always)
    static func find(_ byte: UInt8, in buffer: UnsafeRawBufferPointer, from: Int = 0) -> Int? {
        guard from < buffer.count, let base = buffer.baseAddress else { return nil }
        guard let hit = memchr(base + from, Int32(byte), buffer.count - from) else { return nil }
        return UnsafeRawPointer(hit) - base
    }

    /// Index of the first `byte` at or after `from`, by a plain loop: for
    /// fields of a few bytes, where a `memchr` call costs more than it saves.
    @inline(__always)
    static func scan(_ byte: UInt8, in buffer: UnsafeRawBufferPointer, from: Int = 0) -> Int? {
        guard let base = buffer.baseAddress else { return nil }
        var i = max(from, 0)
        let count = buffer.count
        while i < count {
            if base.load(fromByteOffset: i, as: UInt8.self) == byte { return i }
            i += 1
        }
        return nil
    }

    /// The sub-range `lower..<upper`, as a view.
    @inline(__always)
    static func slice(_ buffer: UnsafeRawBufferPointer, _ lower: Int, _ upper: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: buffer[lower..<upper])
    }

    /// Whether `buffer` holds exactly the ASCII text `literal`.
    @inline(__always)
    static func equals(_ buffer: UnsafeRawBufferPointer, _ literal: StaticString) -> Bool {
        guard buffer.count == literal.utf8CodeUnitCount else { return false }
        if buffer.count == 0 { return true }
        return memcmp(buffer.baseAddress!, literal.utf8Start, buffer.count) == 0
    }

    /// Whether `buffer` starts with the ASCII text `literal`.
    @inline(__always)
    static func hasPrefix(_ buffer: UnsafeRawBufferPointer, _ literal: StaticString) -> Bool {
        guard buffer.count >= literal.utf8CodeUnitCount else { return false }
        return memcmp(buffer.baseAddress!, literal.utf8Start, literal.utf8CodeUnitCount) == 0
    }

    /// Whether two views hold the same bytes.
    @inline(__always)
    static func equal(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        guard a.count == b.count else { return false }
        if a.count == 0 { return true }
        return memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0
    }

    /// Case-insensitive search for an ASCII needle (lowercase) in `buffer`.
    static func containsCaseInsensitive(_ buffer: UnsafeRawBufferPointer, _ needle: StaticString) -> Bool {
        let n = needle.utf8CodeUnitCount
        guard n > 0, buffer.count >= n else { return n == 0 }
        let first = needle.utf8Start[0]
        var i = 0
        while i <= buffer.count - n {
            if asciiLower(buffer[i]) == first {
                var j = 1
                while j < n && asciiLower(buffer[i + j]) == needle.utf8Start[j] { j += 1 }
                if j == n { return true }
            }
            i += 1
        }
        return false
    }

    @inline(__always)
    static func asciiLower(_ b: UInt8) -> UInt8 {
        (b >= 65 && b <= 90) ? b | 0x20 : b
    }

    /// A non-negative decimal integer, or nil when `buffer` is not all digits.
    @inline(__always)
    static func parseInt(_ buffer: UnsafeRawBufferPointer) -> Int? {
        guard !buffer.isEmpty, buffer.count <= 18 else { return nil }
        var value = 0
        for b in buffer {
            guard b >= .zero && b <= .nine else { return nil }
            value = value &* 10 &+ Int(b &- .zero)
        }
        return value
    }

    /// What one pass over a line tells before it is parsed: whether it has
    /// bytes ≥ 0x80 (so may not be valid UTF-8), NUL bytes, or backslashes
    /// (so quoted fields may need unescaping). Eight bytes at a time.
    struct LineCheck {
        var highOrNUL = false
        var backslash = false

        init(_ buffer: UnsafeRawBufferPointer) {
            guard let base = buffer.baseAddress else { return }
            let count = buffer.count
            let high: UInt64 = 0x8080_8080_8080_8080
            let ones: UInt64 = 0x0101_0101_0101_0101
            let backslashes: UInt64 = 0x5C5C_5C5C_5C5C_5C5C
            var bad: UInt64 = 0
            var back: UInt64 = 0
            @inline(__always) func add(_ w: UInt64) {
                // High bit set, or a zero byte (borrow into the high bit).
                bad |= w | ((w &- ones) & ~w)
                let x = w ^ backslashes
                back |= (x &- ones) & ~x
            }
            if count >= 8 {
                var i = 0
                while i + 8 <= count {
                    add(base.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                    i += 8
                }
                // The last bytes: one word ending at the end (overlapping).
                if i < count { add(base.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)) }
            } else {
                for i in 0..<count {
                    let b = base.load(fromByteOffset: i, as: UInt8.self)
                    if b == 0 || b >= 0x80 { highOrNUL = true }
                    if b == .backslash { backslash = true }
                }
            }
            highOrNUL = highOrNUL || bad & high != 0
            backslash = backslash || back & high != 0
        }
    }

    /// Whether the bytes are valid UTF-8 without NUL.
    static func isValidText(_ buffer: UnsafeRawBufferPointer) -> Bool {
        if !LineCheck(buffer).highOrNUL { return true }
        if Bytes.find(0, in: buffer) != nil { return false }
        var iterator = buffer.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }

    /// A `String` of the bytes, with invalid UTF-8 replaced by U+FFFD. Only
    /// for what is kept.
    @inline(__always)
    static func string(_ buffer: UnsafeRawBufferPointer) -> String {
        String(decoding: buffer, as: UTF8.self)
    }
}
