#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Small byte-range helpers shared by the parsers. Ranges are
/// `UnsafeRawBufferPointer` views into a line that lives only as long as the
/// parse; nothing here allocates.
public enum Bytes {
    /// Index of the first `byte` at or after `from`. The next sixteen bytes
    /// are compared at once (one load, one compare, a trailing-zero count:
    /// no loop whose exit the branch predictor must guess, no call), which
    /// finds most field ends of a log line; farther on, `memchr`.
    @inlinable @inline(__always)
    public static func find(_ byte: UInt8, in buffer: UnsafeRawBufferPointer, from: Int = 0) -> Int? {
        // Offsets are below `buffer.count` or at most sixteen past it:
        // arithmetic that cannot overflow is written wrapping (`&+`), so
        // that it compiles without overflow checks.
        guard from < buffer.count, let base = buffer.baseAddress else { return nil }
        if from &+ 16 <= buffer.count {
            let wanted = SIMD16<UInt8>(repeating: byte)
            let block = base.loadUnaligned(fromByteOffset: from, as: SIMD16<UInt8>.self)
            if let lane = firstLane(block .== wanted) { return from &+ lane }
            guard buffer.count &- from <= 32 else { return memchrIndex(byte, in: buffer, from: from &+ 16) }
            // The rest in one block that ends where the buffer does: the
            // lanes it shares with the first block hold no `byte`.
            let last = buffer.count &- 16
            let tail = base.loadUnaligned(fromByteOffset: last, as: SIMD16<UInt8>.self)
            return firstLane(tail .== wanted).map { last &+ $0 }
        }
        return memchrIndex(byte, in: buffer, from: from)
    }

    /// Index of the first `byte` at or after `from`, by `memchr`.
    @inlinable @inline(__always)
    static func memchrIndex(_ byte: UInt8, in buffer: UnsafeRawBufferPointer, from: Int) -> Int? {
        guard from < buffer.count, let base = buffer.baseAddress else { return nil }
        guard let hit = memchr(base + from, Int32(byte), buffer.count &- from) else { return nil }
        return UnsafeRawPointer(hit) - base
    }

    /// The first set lane of `mask`, if any: lanes are all-ones or all-zero
    /// bytes, so a word's trailing zero bits over eight count the lanes
    /// before it.
    @inlinable @inline(__always)
    static func firstLane(_ mask: SIMDMask<SIMD16<Int8>>) -> Int? {
        let words = unsafeBitCast(mask, to: SIMD2<UInt64>.self)
        if words[0] != 0 { return words[0].trailingZeroBitCount &>> 3 }
        if words[1] != 0 { return 8 &+ words[1].trailingZeroBitCount &>> 3 }
        return nil
    }

    /// Whether any lane of `mask` is set. Written as two words because
    /// `any(_:)` on a combined mask compiles to a call, and SIMD compares
    /// take vector operands only: a scalar operand compiles lane by lane.
    @inlinable @inline(__always)
    static func anyLane(_ mask: SIMDMask<SIMD16<Int8>>) -> Bool {
        let words = unsafeBitCast(mask, to: SIMD2<UInt64>.self)
        return words[0] | words[1] != 0
    }

    /// Whether `buffer` holds any of four bytes.
    @inlinable @inline(__always)
    public static func containsAny(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8, in buffer: UnsafeRawBufferPointer) -> Bool {
        guard buffer.count >= 16 else {
            return buffer.contains { $0 == a || $0 == b || $0 == c || $0 == d }
        }
        let va = SIMD16<UInt8>(repeating: a), vb = SIMD16<UInt8>(repeating: b)
        let vc = SIMD16<UInt8>(repeating: c), vd = SIMD16<UInt8>(repeating: d)
        return anyBlock(of: buffer) { v in (v .== va) .| (v .== vb) .| (v .== vc) .| (v .== vd) }
    }

    /// Whether `hits` marks any lane of any block of `buffer` (at least 16
    /// bytes): thirty-two bytes per step (two blocks' marks OR'd, one
    /// branch), then sixteen, the last step overlapping the one before;
    /// stops at the first step with a mark.
    @inlinable @inline(__always)
    static func anyBlock(of buffer: UnsafeRawBufferPointer, _ hits: (SIMD16<UInt8>) -> SIMDMask<SIMD16<Int8>>) -> Bool {
        let base = buffer.baseAddress!
        let count = buffer.count
        var i = 0
        while i + 32 <= count {
            let a = hits(base.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self))
            let b = hits(base.loadUnaligned(fromByteOffset: i + 16, as: SIMD16<UInt8>.self))
            if anyLane(a .| b) { return true }
            i += 32
        }
        if i + 16 <= count {
            if anyLane(hits(base.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self))) { return true }
            i += 16
        }
        return i < count && anyLane(hits(base.loadUnaligned(fromByteOffset: count - 16, as: SIMD16<UInt8>.self)))
    }

    /// Whether `buffer` holds a byte that may begin a control character:
    /// C0, DEL, or the lead byte of C1 (`C2`) or of a bidi control (`E2`).
    /// Sixteen bytes at a time: every cell a report writes is asked.
    public static func mayHoldControl(_ buffer: UnsafeRawBufferPointer) -> Bool {
        let space = SIMD16<UInt8>(repeating: 0x20), del = SIMD16<UInt8>(repeating: 0x7F)
        let c2 = SIMD16<UInt8>(repeating: 0xC2), e2 = SIMD16<UInt8>(repeating: 0xE2)
        func hits(_ v: SIMD16<UInt8>) -> SIMDMask<SIMD16<Int8>> { (v .< space) .| (v .== del) .| (v .== c2) .| (v .== e2) }
        guard buffer.count >= 16 else { return !buffer.isEmpty && anyLane(hits(padded(buffer, with: UInt8(ascii: "a")))) }
        return anyBlock(of: buffer, hits)
    }

    /// Whether a CSV cell's bytes may need more than copying: a byte
    /// `mayHoldControl` looks for, a comma or a quote (CR and LF are C0).
    /// One pass where the two questions would take two: most cells need
    /// neither.
    public static func mayNeedEscaping(_ buffer: UnsafeRawBufferPointer) -> Bool {
        let space = SIMD16<UInt8>(repeating: 0x20), del = SIMD16<UInt8>(repeating: 0x7F)
        let c2 = SIMD16<UInt8>(repeating: 0xC2), e2 = SIMD16<UInt8>(repeating: 0xE2)
        let comma = SIMD16<UInt8>(repeating: .comma), quote = SIMD16<UInt8>(repeating: .quote)
        func hits(_ v: SIMD16<UInt8>) -> SIMDMask<SIMD16<Int8>> {
            (v .< space) .| (v .== del) .| (v .== c2) .| (v .== e2) .| (v .== comma) .| (v .== quote)
        }
        guard buffer.count >= 16 else { return !buffer.isEmpty && anyLane(hits(padded(buffer, with: UInt8(ascii: "a")))) }
        return anyBlock(of: buffer, hits)
    }

    /// Whether `buffer` holds a byte that decoding a query value would
    /// look at: `%`, `+`, a backslash, NUL or a byte ≥ 0x80. One pass,
    /// sixteen bytes at a time; a value without any (nearly every state
    /// and error) is its own decoded text.
    @inlinable
    public static func hasValueMark(_ buffer: UnsafeRawBufferPointer) -> Bool {
        let percent = SIMD16<UInt8>(repeating: .percent), plus = SIMD16<UInt8>(repeating: .plus)
        func hits(_ v: SIMD16<UInt8>) -> SIMDMask<SIMD16<Int8>> { LineCheck.marks(v) .| (v .== percent) .| (v .== plus) }
        guard buffer.count >= 16 else { return !buffer.isEmpty && anyLane(hits(padded(buffer, with: UInt8(ascii: "a")))) }
        return anyBlock(of: buffer, hits)
    }

    /// A buffer of fewer than sixteen bytes as the first lanes of a
    /// vector, the other lanes `fill`.
    @inlinable @inline(__always)
    public static func padded(_ buffer: UnsafeRawBufferPointer, with fill: UInt8) -> SIMD16<UInt8> {
        var v = SIMD16<UInt8>(repeating: fill)
        if let base = buffer.baseAddress {
            withUnsafeMutableBytes(of: &v) { $0.baseAddress!.copyMemory(from: base, byteCount: min(buffer.count, 16)) }
        }
        return v
    }

    /// Whether every lane of `mask` is set.
    @inlinable @inline(__always)
    public static func allLanes(_ mask: SIMDMask<SIMD16<Int8>>) -> Bool {
        let words = unsafeBitCast(mask, to: SIMD2<UInt64>.self)
        return words[0] & words[1] == ~0
    }

    /// The sub-range `lower..<upper`, as a view.
    @inlinable @inline(__always)
    public static func slice(_ buffer: UnsafeRawBufferPointer, _ lower: Int, _ upper: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: buffer[lower..<upper])
    }

    /// Whether `buffer` holds exactly the ASCII text `literal`.
    @inlinable @inline(__always)
    public static func equals(_ buffer: UnsafeRawBufferPointer, _ literal: StaticString) -> Bool {
        guard buffer.count == literal.utf8CodeUnitCount else { return false }
        if buffer.count == 0 { return true }
        return memcmp(buffer.baseAddress!, literal.utf8Start, buffer.count) == 0
    }

    /// Whether `buffer` starts with the ASCII text `literal`.
    @inlinable @inline(__always)
    package static func hasPrefix(_ buffer: UnsafeRawBufferPointer, _ literal: StaticString) -> Bool {
        guard buffer.count >= literal.utf8CodeUnitCount else { return false }
        return memcmp(buffer.baseAddress!, literal.utf8Start, literal.utf8CodeUnitCount) == 0
    }

    /// Whether two views hold the same bytes.
    @inlinable @inline(__always)
    public static func equal(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        guard a.count == b.count else { return false }
        if a.count == 0 { return true }
        return memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0
    }

    /// Whether two texts have the same UTF-8 bytes. Swift's `==` on
    /// Strings compares canonical equivalence: `K` (U+212A KELVIN SIGN)
    /// equals `K`, `é` equals `e` + U+0301. States, client IDs and redirect
    /// URIs are compared by their bytes (docs/contract.md §1, §7).
    public static func equal(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        let same = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y in equal(UnsafeRawBufferPointer(x), UnsafeRawBufferPointer(y)) }
        }
        if let same, let same { return same }
        return a.utf8.elementsEqual(b.utf8)
    }

    /// Case-insensitive search for an ASCII needle (lowercase) in `buffer`.
    /// Sixteen start positions at a time: a position is a candidate when
    /// its byte and the byte where the needle would end both match, with
    /// bit 5 set on both sides (which folds letter case, and lets a few
    /// other bytes through: candidates are compared in full). Not
    /// inlinable: inlined, its loop took the caller's registers.
    public static func containsCaseInsensitive(_ buffer: UnsafeRawBufferPointer, _ needle: StaticString) -> Bool {
        let n = needle.utf8CodeUnitCount
        guard n > 0, buffer.count >= n else { return n == 0 }
        let p = needle.utf8Start
        let base = buffer.baseAddress!
        let lastStart = buffer.count - n
        func matches(at i: Int) -> Bool {
            var j = 0
            while j < n && asciiLower(base.load(fromByteOffset: i + j, as: UInt8.self)) == p[j] { j += 1 }
            return j == n
        }
        var i = 0
        let fold = SIMD16<UInt8>(repeating: 0x20)
        let first = SIMD16<UInt8>(repeating: p[0] | 0x20), last = SIMD16<UInt8>(repeating: p[n - 1] | 0x20)
        // Blocks of sixteen starts, the last one overlapping the one
        // before (a start looked at twice changes no answer); only a
        // buffer with fewer than sixteen starts is looked at byte by byte.
        while lastStart >= 15 {
            let at = min(i, lastStart - 15)
            let a = base.loadUnaligned(fromByteOffset: at, as: SIMD16<UInt8>.self) | fold
            let b = base.loadUnaligned(fromByteOffset: at + n - 1, as: SIMD16<UInt8>.self) | fold
            let words = unsafeBitCast((a .== first) .& (b .== last), to: SIMD2<UInt64>.self)
            for k in 0..<2 {
                var word = words[k]
                while word != 0 {
                    let lane = word.trailingZeroBitCount &>> 3
                    if matches(at: at + k &* 8 + lane) { return true }
                    word &= ~(UInt64(0xFF) &<< UInt64(lane &* 8))
                }
            }
            if at == lastStart - 15 { return false }
            i += 16
        }
        while i <= lastStart {
            if matches(at: i) { return true }
            i += 1
        }
        return false
    }

    @inlinable @inline(__always)
    public static func asciiLower(_ b: UInt8) -> UInt8 {
        (b >= 65 && b <= 90) ? b | 0x20 : b
    }

    /// A non-negative decimal integer, or nil when `buffer` is not all digits.
    @inlinable @inline(__always)
    public static func parseInt(_ buffer: UnsafeRawBufferPointer) -> Int? {
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
    /// (so quoted fields may need unescaping). One SIMD pass (`firstMark`)
    /// looks for any of the three; a line that has one (rare) is looked at
    /// again from there to tell which.
    public struct LineCheck {
        public var highOrNUL = false
        public var backslash = false

        /// A line that holds none of those bytes (the splitter's pass,
        /// `fa_line_ends`, says so of most lines): nothing to look at.
        @inlinable public static var plain: LineCheck { LineCheck() }

        @usableFromInline init() {}

        public init(_ buffer: UnsafeRawBufferPointer) {
            guard let first = Self.firstMark(in: buffer, from: 0), let base = buffer.baseAddress else { return }
            for i in first..<buffer.count {
                let b = base.load(fromByteOffset: i, as: UInt8.self)
                if b == 0 || b >= 0x80 { highOrNUL = true }
                if b == .backslash { backslash = true }
            }
        }

        /// Index of the first byte at or after `from` that is NUL, ≥ 0x80
        /// or a backslash (for a line the splitter could not call plain).
        /// Sixty-four bytes per step while nothing is found, then sixteen;
        /// the last step overlaps the one before.
        @usableFromInline static func firstMark(in buffer: UnsafeRawBufferPointer, from: Int) -> Int? {
            let count = buffer.count
            guard from < count, let base = buffer.baseAddress else { return nil }
            guard count - from >= 16 else {
                var i = from
                while i < count {
                    let b = base.load(fromByteOffset: i, as: UInt8.self)
                    if b == 0 || b >= 0x80 || b == .backslash { return i }
                    i += 1
                }
                return nil
            }
            var i = from
            // Sixty-four bytes per test while nothing is found (marks are
            // about one line in a thousand); the block with one is looked
            // at again sixteen bytes at a time.
            while i &+ 64 <= count {
                let a = folded(base.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self))
                let b = folded(base.loadUnaligned(fromByteOffset: i &+ 16, as: SIMD16<UInt8>.self))
                let c = folded(base.loadUnaligned(fromByteOffset: i &+ 32, as: SIMD16<UInt8>.self))
                let d = folded(base.loadUnaligned(fromByteOffset: i &+ 48, as: SIMD16<UInt8>.self))
                // The largest of the sixteen lanes' four bytes, and whether
                // any is ≥ 0x7F (`max(m, 0x7F) == m`: `pmaxub`, `pcmpeqb`).
                let ab = a.replacing(with: b, where: b .> a), cd = c.replacing(with: d, where: d .> c)
                let m = ab.replacing(with: cd, where: cd .> ab)
                let floor = SIMD16<UInt8>(repeating: 0x7F)
                if anyLane(m.replacing(with: floor, where: floor .> m) .== m) { break }
                i &+= 64
            }
            while i < count {
                let at = min(i, count - 16)
                if let lane = firstLane(marks(base.loadUnaligned(fromByteOffset: at, as: SIMD16<UInt8>.self))) { return at + lane }
                i += 16
            }
            return nil
        }

        /// Each lane of `v` mapped so that a mark (NUL, ≥ 0x80, backslash)
        /// is ≥ 0x7F and any other byte below it: `min(v, v ^ 0x5C)` is 0
        /// for NUL and backslash, ≥ 0x80 for a high byte and 1–0x7F
        /// otherwise; less one, the marks are 0x7F–0xFF. Four blocks'
        /// lanes then fold into one by their maximum: fewer operations per
        /// byte than `marks`, which the rare block with a mark is looked at
        /// with.
        @inlinable @inline(__always)
        static func folded(_ v: SIMD16<UInt8>) -> SIMD16<UInt8> {
            let flipped = v ^ SIMD16(repeating: .backslash)
            return v.replacing(with: flipped, where: flipped .< v) &- SIMD16(repeating: 1)
        }

        /// The lanes of `v` that are NUL, ≥ 0x80 or a backslash.
        @inlinable @inline(__always)
        static func marks(_ v: SIMD16<UInt8>) -> SIMDMask<SIMD16<Int8>> {
            (v .== SIMD16<UInt8>(repeating: 0)) .| (v .== SIMD16<UInt8>(repeating: .backslash))
                .| (SIMD16<Int8>(truncatingIfNeeded: v) .< SIMD16<Int8>(repeating: 0))
        }
    }

    /// Whether the bytes are valid UTF-8 without NUL.
    package static func isValidText(_ buffer: UnsafeRawBufferPointer) -> Bool {
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
    @inlinable @inline(__always)
    public static func string(_ buffer: UnsafeRawBufferPointer) -> String {
        String(decoding: buffer, as: UTF8.self)
    }
}
