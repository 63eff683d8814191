import Reading

/// A line type's fields in order, each declared once (`Field`): its
/// writing, its reading and its checks all follow from that one list, so
/// a field cannot be written in one place and read as another. Lines are
/// `TextFields` syntax; what is read back is bad input — a wrong field
/// count names the line type, a bad field names the field — never a trap.
///
///     static let schema = LineSchema<Finding>("finding", blank: …, [
///         Field("kind", \.kind, .value),
///         Field("time", \.time, .time),
///         …
///     ])
package struct LineSchema<Value>: @unchecked Sendable {
    package typealias Malformed = TextFields.Malformed

    /// The line type's name, for errors.
    package let name: String
    /// What a line is read into, field by field.
    let blank: Value
    package let fields: [Field<Value>]
    /// How many tab-separated columns a line has.
    package let columns: Int
    /// Checks the value read as a whole (fields that must agree), or nil.
    let check: ((Value) throws(Malformed) -> Void)?

    package init(_ name: String, blank: Value, _ fields: [Field<Value>], check: ((Value) throws(Malformed) -> Void)? = nil) {
        self.name = name
        self.blank = blank
        self.fields = fields
        columns = fields.reduce(0) { $0 + $1.columns }
        self.check = check
    }

    /// Appends the value's fields, tab-separated (no newline).
    package func write(_ value: Value, into out: inout [UInt8]) {
        // The value is put in memory once; each field reads its part there.
        withUnsafePointer(to: value) { value in
            for i in fields.indices {
                if i > 0 { out.append(.tab) }
                fields[i].write(value, &out)
            }
        }
    }

    /// The value the fields of a line (without its newline) hold.
    package func read(_ line: ArraySlice<UInt8>) throws(Malformed) -> Value {
        let split = TextFields.parts(line, separator: .tab, expected: columns)
        guard split.count == columns else {
            throw Malformed(reason: "\(split.count) fields, expected \(columns) (\(name) line)")
        }
        return try read(split[...])
    }

    /// The value `columns` (exactly `self.columns` of them) hold.
    func read(_ columns: ArraySlice<ArraySlice<UInt8>>) throws(Malformed) -> Value {
        var value = blank
        try withUnsafeMutablePointer(to: &value) { value throws(Malformed) in
            var start = columns.startIndex
            for i in fields.indices {
                let end = start + fields[i].columns
                try fields[i].read(columns[start..<end], value)
                start = end
            }
        }
        try check?(value)
        return value
    }
}
