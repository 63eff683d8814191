import Reading

/// Turns the time formats of access logs into milliseconds since the Unix
/// epoch, UTC. Pure byte arithmetic: no Foundation, no allocation.
package enum Timestamp {
    /// Days from 1970-01-01 to the given civil date (proleptic Gregorian),
    /// after Howard Hinnant's `days_from_civil`.
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// Two or more decimal digits at `at`, or nil.
    @inline(__always)
    private static func digits(_ b: UnsafeRawBufferPointer, _ at: Int, _ count: Int) -> Int? {
        guard at >= 0, at + count <= b.count else { return nil }
        var v = 0
        for i in at..<(at + count) {
            let c = b[i]
            guard c >= .zero && c <= .nine else { return nil }
            v = v * 10 + Int(c - .zero)
        }
        return v
    }

    private static func month(_ b: UnsafeRawBufferPointer, _ at: Int) -> Int? {
        guard at + 3 <= b.count else { return nil }
        let key = (UInt32(Bytes.asciiLower(b[at])) << 16) | (UInt32(Bytes.asciiLower(b[at + 1])) << 8) | UInt32(Bytes.asciiLower(b[at + 2]))
        switch key {
        case 0x6A616E: return 1  // jan
        case 0x666562: return 2  // feb
        case 0x6D6172: return 3  // mar
        case 0x617072: return 4  // apr
        case 0x6D6179: return 5  // may
        case 0x6A756E: return 6  // jun
        case 0x6A756C: return 7  // jul
        case 0x617567: return 8  // aug
        case 0x736570: return 9  // sep
        case 0x6F6374: return 10  // oct
        case 0x6E6F76: return 11  // nov
        case 0x646563: return 12  // dec
        default: return nil
        }
    }

    /// Days in `month` of `year` (proleptic Gregorian).
    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// The first and last millisecond a log time may name: years 1 to 9999
    /// in UTC, the years every output can write with four digits.
    package static let earliest: Int64 = Int64(daysFromCivil(year: 1, month: 1, day: 1)) * 86_400_000
    package static let latest: Int64 = Int64(daysFromCivil(year: 10_000, month: 1, day: 1)) * 86_400_000 - 1

    /// A time only when it names a real calendar date (no 30 February) and
    /// falls in years 1–9999 once the zone offset is applied
    /// (`31/Dec/9999:23:59:59 -2359` would be year 10000 in UTC).
    private static func compose(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int, _ second: Int, millis: Int, offsetMinutes: Int) -> Int64? {
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
            hour < 24, minute < 60, second <= 60
        else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = ((days * 24 + hour) * 60 + minute) * 60 + second - offsetMinutes * 60
        return inRange(Int64(seconds) * 1000 + Int64(millis))
    }

    /// `ms` when it lies in years 1–9999 UTC, else nil.
    @inline(__always)
    private static func inRange(_ ms: Int64) -> Int64? {
        ms >= earliest && ms <= latest ? ms : nil
    }

    /// A field that is a zone alone (`-0330`, `+01:00`, `Z`; Apache's
    /// `%{%z}t`): minutes east of UTC, or nil when it is not one.
    package static func zoneMinutes(_ b: UnsafeRawBufferPointer) -> Int? {
        guard !b.isEmpty, b[0] == .plus || b[0] == .minus || b[0] == UInt8(ascii: "Z") else { return nil }
        return zone(b, 0)
    }

    /// A zone offset `+hhmm`, `+hh:mm`, `Z` or nothing (UTC) starting at `at`;
    /// returns minutes east of UTC, or nil when malformed.
    private static func zone(_ b: UnsafeRawBufferPointer, _ at: Int) -> Int? {
        if at >= b.count { return 0 }
        let c = b[at]
        if c == UInt8(ascii: "Z") || c == UInt8(ascii: "z") { return at + 1 == b.count ? 0 : nil }
        guard c == .plus || c == .minus, let hh = digits(b, at + 1, 2) else { return nil }
        var mm = 0
        var end = at + 3
        if end < b.count {
            if b[end] == .colon { end += 1 }
            guard let m = digits(b, end, 2) else { return nil }
            mm = m
            end += 2
        }
        guard end == b.count, hh <= 23, mm <= 59 else { return nil }
        return (c == .minus ? -1 : 1) * (hh * 60 + mm)
    }

    /// Common Log Format: `22/Nov/2026:10:00:01 +0000` (brackets removed).
    package static func parseCommonLog(_ b: UnsafeRawBufferPointer) -> Int64? {
        guard b.count >= 20,
            let day = digits(b, 0, 2), b[2] == .slash,
            let mon = month(b, 3), b[6] == .slash,
            let year = digits(b, 7, 4), b[11] == .colon,
            let hour = digits(b, 12, 2), b[14] == .colon,
            let minute = digits(b, 15, 2), b[17] == .colon,
            let second = digits(b, 18, 2)
        else { return nil }
        var at = 20
        var millis = 0
        if at < b.count && b[at] == .dot {
            (millis, at) = fraction(b, at + 1)
        }
        var offset = 0
        if at < b.count {
            guard b[at] == .space, let z = zone(b, at + 1) else { return nil }
            offset = z
        }
        return compose(year, mon, day, hour, minute, second, millis: millis, offsetMinutes: offset)
    }

    /// Milliseconds from a fraction's digits starting at `at`; returns them
    /// and the index after the digits.
    private static func fraction(_ b: UnsafeRawBufferPointer, _ at: Int) -> (Int, Int) {
        var i = at
        var millis = 0
        var scale = 100
        while i < b.count, b[i] >= .zero, b[i] <= .nine {
            millis += Int(b[i] - .zero) * scale
            scale /= 10
            i += 1
        }
        return (millis, i)
    }

    /// ISO 8601 / RFC 3339: `2026-11-22T10:00:01.123+01:00`, `...Z`, a space
    /// instead of `T`, or no zone (taken as UTC).
    package static func parseISO8601(_ b: UnsafeRawBufferPointer) -> Int64? {
        guard b.count >= 19,
            let year = digits(b, 0, 4), b[4] == .minus,
            let mon = digits(b, 5, 2), b[7] == .minus,
            let day = digits(b, 8, 2),
            b[10] == UInt8(ascii: "T") || b[10] == .space || b[10] == UInt8(ascii: "t"),
            let hour = digits(b, 11, 2), b[13] == .colon,
            let minute = digits(b, 14, 2), b[16] == .colon,
            let second = digits(b, 17, 2)
        else { return nil }
        var at = 19
        var millis = 0
        if at < b.count && (b[at] == .dot || b[at] == .comma) {
            (millis, at) = fraction(b, at + 1)
        }
        guard let offset = zone(b, at) else { return nil }
        return compose(year, mon, day, hour, minute, second, millis: millis, offsetMinutes: offset)
    }

    /// Seconds (`1763805601.123`), milliseconds (`1763805601123`),
    /// microseconds or nanoseconds since the epoch, told apart by size: a
    /// value above 10^11 is milliseconds, above 10^14 microseconds, above
    /// 10^17 nanoseconds (Cloudflare's `EdgeStartTimestamp`).
    package static func parseEpoch(_ b: UnsafeRawBufferPointer) -> Int64? {
        guard let (whole, millis) = epochParts(b) else { return nil }
        if whole > 100_000_000_000_000_000 { return inRange(whole / 1_000_000) }
        if whole > 100_000_000_000_000 { return inRange(whole / 1_000) }
        return inRange(whole > 100_000_000_000 ? whole : whole * 1000 + Int64(millis))
    }

    /// A number since the epoch in a given unit: `unit` milliseconds per
    /// unit when positive (1000: seconds), units per millisecond when
    /// negative (-1000: microseconds).
    package static func parseEpoch(_ b: UnsafeRawBufferPointer, unit: Int64) -> Int64? {
        guard let (whole, millis) = epochParts(b) else { return nil }
        if unit < 0 { return inRange(whole / -unit) }
        let (ms, overflow) = whole.multipliedReportingOverflow(by: unit)
        guard !overflow else { return nil }
        return inRange(unit == 1000 ? ms + Int64(millis) : ms)
    }

    /// The whole part (up to 19 digits) and the milliseconds of a fraction.
    private static func epochParts(_ b: UnsafeRawBufferPointer) -> (Int64, Int)? {
        var i = 0
        var whole: Int64 = 0
        while i < b.count, b[i] >= .zero, b[i] <= .nine, i < 19 {
            let (tens, o1) = whole.multipliedReportingOverflow(by: 10)
            let (sum, o2) = tens.addingReportingOverflow(Int64(b[i] - .zero))
            guard !o1 && !o2 else { return nil }
            whole = sum
            i += 1
        }
        guard i > 0 else { return nil }
        var millis = 0
        if i < b.count {
            guard b[i] == .dot else { return nil }
            let (m, end) = fraction(b, i + 1)
            guard end == b.count else { return nil }
            millis = m
        }
        return (whole, millis)
    }

    /// Any of the formats above.
    package static func parseAny(_ b: UnsafeRawBufferPointer) -> Int64? {
        if b.count >= 19, b[4] == .minus { return parseISO8601(b) }
        if b.count >= 20, b[2] == .slash { return parseCommonLog(b) }
        return parseEpoch(b)
    }

    /// `2026-11-22T10:00:01.000Z`.
    package static func iso8601(_ ms: Int64) -> String {
        String(unsafeUninitializedCapacity: iso8601Bound) { writeISO8601(ms, at: $0.baseAddress!) }
    }

    /// Bytes `writeISO8601` writes at most: a year of 64-bit milliseconds
    /// has at most 9 digits and a sign, the rest is 20 bytes.
    package static let iso8601Bound = 32

    /// Writes `2026-11-22T10:00:01.000Z` at `p`; returns how many bytes.
    /// The year has four digits, or as many as it has (or a sign: a
    /// timestamp a log got wrong).
    package static func writeISO8601(_ ms: Int64, at p: UnsafeMutablePointer<UInt8>) -> Int {
        let (days, msOfDay) = divFloor(ms, 86_400_000)
        let (y, m, d) = civil(fromDays: Int(days))
        var b = p
        if y >= 0 && y <= 9999 {
            putTwo(b, y / 100); putTwo(b + 2, y % 100)
            b += 4
        } else {
            for c in String(y).utf8 {
                b.pointee = c
                b += 1
            }
        }
        b[0] = .minus; putTwo(b + 1, m); b[3] = .minus; putTwo(b + 4, d)
        writeTimeOfDay(msOfDay, at: b + 6)
        return b + 20 - p
    }

    /// Writes `T10:00:01.000Z` (14 bytes) at `p`.
    @inline(__always)
    private static func writeTimeOfDay(_ msOfDay: Int64, at b: UnsafeMutablePointer<UInt8>) {
        let h = Int(msOfDay / 3_600_000)
        let mi = Int((msOfDay / 60_000) % 60)
        let s = Int((msOfDay / 1000) % 60)
        let f = Int(msOfDay % 1000)
        b[0] = UInt8(ascii: "T"); putTwo(b + 1, h); b[3] = .colon; putTwo(b + 4, mi); b[6] = .colon; putTwo(b + 7, s)
        b[9] = .dot; b[10] = .zero + UInt8(f / 100); putTwo(b + 11, f % 100); b[13] = UInt8(ascii: "Z")
    }

    /// `writeISO8601` for a writer of many times close together (the rows
    /// of a CSV file, in time order): it keeps the date of the last day it
    /// wrote, so that a time on the same day costs its time of day only.
    /// One per file written.
    package struct ISO8601Writer {
        /// The day `date` spells (days since the epoch); `Int64.min` before
        /// the first time, or after a year `writeISO8601` spells otherwise.
        private var day = Int64.min
        /// `yyyy-mm-dd`, in the first ten lanes.
        private var date = SIMD16<UInt8>()

        package init() {}

        /// Writes `ms` as `writeISO8601` does, at `p`, which has room for
        /// `iso8601Bound` bytes; returns how many.
        package mutating func write(_ ms: Int64, at p: UnsafeMutablePointer<UInt8>) -> Int {
            let (days, msOfDay) = divFloor(ms, 86_400_000)
            if days != day {
                let (y, m, d) = civil(fromDays: Int(days))
                guard y >= 0 && y <= 9999 else {
                    day = .min
                    return writeISO8601(ms, at: p)
                }
                withUnsafeMutableBytes(of: &date) { raw in
                    let b = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
                    putTwo(b, y / 100); putTwo(b + 2, y % 100); b[4] = .minus; putTwo(b + 5, m); b[7] = .minus; putTwo(b + 8, d)
                }
                day = days
            }
            // Sixteen bytes stored at once; the time of day overwrites
            // the six after the date.
            UnsafeMutableRawPointer(p).storeBytes(of: date, as: SIMD16<UInt8>.self)
            writeTimeOfDay(msOfDay, at: p + 10)
            return 24
        }
    }

    /// Two decimal digits of `v` (0–99) at `p`.
    @inline(__always)
    private static func putTwo(_ p: UnsafeMutablePointer<UInt8>, _ v: Int) {
        p[0] = .zero &+ UInt8(truncatingIfNeeded: v / 10)
        p[1] = .zero &+ UInt8(truncatingIfNeeded: v % 10)
    }

    /// `2026-11-22` or `2026-11-22T10:00:00Z` for the error-distribution
    /// periods: the bucket's start, as ISO 8601 that a loader reads as a
    /// date or a timestamp (docs/contract.md §7).
    package static func period(_ ms: Int64, hourly: Bool) -> String {
        let (days, msOfDay) = divFloor(ms, 86_400_000)
        let (y, m, d) = civil(fromDays: Int(days))
        guard y >= 0 && y <= 9999 else {
            let day = "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))"
            return hourly ? day + "T" + pad(Int(msOfDay / 3_600_000), 2) + ":00:00Z" : day
        }
        let h = Int(msOfDay / 3_600_000)
        let length = hourly ? 20 : 10
        return String(unsafeUninitializedCapacity: length) { buffer in
            let b = buffer.baseAddress!
            putTwo(b, y / 100); putTwo(b + 2, y % 100); b[4] = .minus; putTwo(b + 5, m); b[7] = .minus; putTwo(b + 8, d)
            if hourly {
                b[10] = UInt8(ascii: "T"); putTwo(b + 11, h)
                for (i, c) in ":00:00Z".utf8.enumerated() { b[13 + i] = c }
            }
            return length
        }
    }

    private static func divFloor(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
        let q = a / b, r = a % b
        return r < 0 ? (q - 1, r + b) : (q, r)
    }

    private static func pad(_ v: Int, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    /// Inverse of `daysFromCivil`.
    static func civil(fromDays z0: Int) -> (Int, Int, Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? y + 1 : y, m, d)
    }
}
