import Reading
import Rules

/// Fixed-width numbers for the fields an engine sorts stage lines by:
/// compared as bytes (`LC_ALL=C sort`, a JVM or Python string sort), they
/// order as the numbers do.
///
///     time  20 digits of the millisecond time with its sign bit flipped
///     rank  10 digits of the input's rank
///     line  20 digits of the line number
enum SortFields {
    typealias Malformed = TextFields.Malformed

    static func time(_ t: Int64, _ out: inout [UInt8]) {
        digits(UInt64(bitPattern: t) ^ (1 << 63), width: 20, &out)
    }

    static func rank(_ r: Int32, _ out: inout [UInt8]) { digits(UInt64(max(0, r)), width: 10, &out) }

    static func line(_ l: Int64, _ out: inout [UInt8]) { digits(UInt64(max(0, l)), width: 20, &out) }

    /// The source of a record: rank, tab, line.
    static func source(_ s: SourceRef, _ out: inout [UInt8]) {
        rank(s.file, &out)
        out.append(.tab)
        line(s.line, &out)
    }

    static func digits(_ n: UInt64, width: Int, _ out: inout [UInt8]) {
        let start = out.count
        out.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: width))
        var n = n
        var i = out.count - 1
        while n > 0 && i >= start {
            out[i] = UInt8(ascii: "0") + UInt8(n % 10)
            n /= 10
            i -= 1
        }
    }

    // MARK: Reading

    static func time(_ field: ArraySlice<UInt8>) throws(Malformed) -> Int64 {
        let t = Int64(bitPattern: try number(field, width: 20, "time") ^ (1 << 63))
        guard t.magnitude <= TextFields.timeBound else { throw Malformed(reason: "time out of range") }
        return t
    }

    static func rank(_ field: ArraySlice<UInt8>) throws(Malformed) -> Int32 {
        guard let r = Int32(exactly: try number(field, width: 10, "rank")) else { throw Malformed(reason: "bad rank") }
        return r
    }

    static func line(_ field: ArraySlice<UInt8>) throws(Malformed) -> Int64 {
        guard let l = Int64(exactly: try number(field, width: 20, "line")) else { throw Malformed(reason: "bad line") }
        return l
    }

    static func source(_ file: ArraySlice<UInt8>, _ line: ArraySlice<UInt8>) throws(Malformed) -> SourceRef {
        SourceRef(file: try rank(file), line: try self.line(line))
    }

    private static func number(_ field: ArraySlice<UInt8>, width: Int, _ name: String) throws(Malformed) -> UInt64 {
        guard field.count == width else { throw Malformed(reason: "bad \(name): not \(width) digits") }
        var n: UInt64 = 0
        for b in field {
            guard b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") else { throw Malformed(reason: "bad \(name)") }
            let (m, o1) = n.multipliedReportingOverflow(by: 10)
            let (s, o2) = m.addingReportingOverflow(UInt64(b - UInt8(ascii: "0")))
            guard !o1 && !o2 else { throw Malformed(reason: "bad \(name)") }
            n = s
        }
        return n
    }
}

extension FieldCodec where T == Int64 {
    /// A time as `SortFields` writes it.
    static var sortTime: Self { Self(write: SortFields.time) { field, _ throws(Malformed) in try SortFields.time(field) } }
}

extension FieldCodec where T == Int32 {
    /// An input's rank as `SortFields` writes it.
    static var sortRank: Self { Self(write: SortFields.rank) { field, _ throws(Malformed) in try SortFields.rank(field) } }
}

extension FieldCodec where T == SourceRef {
    /// A source as `SortFields` writes it: two columns, rank and line.
    static var sortSource: Self {
        Self(columns: 2, write: SortFields.source) { columns, _ throws(Malformed) in
            try SortFields.source(columns[columns.startIndex], columns[columns.startIndex + 1])
        }
    }
}
