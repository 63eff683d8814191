/// How a value of one field of a line is written and read back, with its
/// validity check: what a `Field` of a `LineSchema` is made of. Most
/// fields are one column of `TextFields`; a source is two (file, line).
/// Reading is given the field's name, which its errors use (`bad NAME`,
/// `NAME out of range`), so a line type names each field once.
/// Immutable, its closures pure: shared by every thread that reads.
package struct FieldCodec<T>: @unchecked Sendable {
    package typealias Malformed = TextFields.Malformed

    /// How many tab-separated columns the value takes.
    package let columns: Int
    /// Appends the value's columns, tab-separated.
    package let write: (T, inout [UInt8]) -> Void
    /// The value of its columns; the name is the field's, for errors.
    package let read: (ArraySlice<ArraySlice<UInt8>>, String) throws(Malformed) -> T

    package init(
        columns: Int, write: @escaping (T, inout [UInt8]) -> Void,
        read: @escaping (ArraySlice<ArraySlice<UInt8>>, String) throws(Malformed) -> T
    ) {
        self.columns = columns
        self.write = write
        self.read = read
    }

    /// A value of one column.
    package init(write: @escaping (T, inout [UInt8]) -> Void, read: @escaping (ArraySlice<UInt8>, String) throws(Malformed) -> T) {
        self.init(columns: 1, write: write) { columns, name throws(Malformed) in try read(columns[columns.startIndex], name) }
    }

    /// The same value, refused with `reason` (the field's name in place
    /// of `NAME`) unless `valid` holds of what is read.
    package func checked(_ reason: String, _ valid: @escaping (T) -> Bool) -> FieldCodec<T> {
        let read = self.read
        return FieldCodec(columns: columns, write: write) { columns, name throws(Malformed) in
            let value = try read(columns, name)
            guard valid(value) else { throw Malformed(reason: reason.replacing("NAME", with: name)) }
            return value
        }
    }

    /// Another type's value, written and read as this one: `to` may refuse
    /// (nil) with `reason`.
    package func mapped<U>(_ reason: String, to: @escaping (T) -> U?, from: @escaping (U) -> T) -> FieldCodec<U> {
        let read = self.read, write = self.write
        return FieldCodec<U>(
            columns: columns, write: { value, out in write(from(value), &out) },
            read: { columns, name throws(Malformed) in
                guard let value = to(try read(columns, name)) else { throw Malformed(reason: reason.replacing("NAME", with: name)) }
                return value
            })
    }
}

// MARK: The TextFields values

extension FieldCodec where T == String {
    /// Escaped text.
    package static var text: Self { Self(write: TextFields.text) { field, _ throws(Malformed) in try TextFields.text(field) } }
}

extension FieldCodec where T == String? {
    /// An optional text: empty when absent, `=` and the text when present.
    static var optionalText: Self {
        Self(write: TextFields.optional) { field, _ throws(Malformed) in try TextFields.optional(field) }
    }
}

extension FieldCodec where T == Bool {
    /// `0` or `1`.
    package static var flag: Self { Self(write: TextFields.flag) { field, _ throws(Malformed) in try TextFields.flag(field) } }
}

extension FieldCodec where T == Int64 {
    /// A decimal number.
    package static var number: Self { Self(write: TextFields.number) { field, name throws(Malformed) in try TextFields.number(field, name) } }

    /// A millisecond time within `TextFields.timeBound` of 1970.
    package static var time: Self { Self(write: TextFields.number) { field, name throws(Malformed) in try TextFields.time(field, name) } }
}

extension FieldCodec where T == Int {
    /// A decimal number in `range`, refused with `reason` outside it.
    package static func count(in range: ClosedRange<Int64>, _ reason: String = "NAME out of range") -> Self {
        Self(
            write: { n, out in TextFields.number(Int64(n), &out) },
            read: { field, name throws(Malformed) in
                let n = try TextFields.number(field, name)
                guard range.contains(n) else { throw Malformed(reason: reason.replacing("NAME", with: name)) }
                return Int(n)
            })
    }
}

extension FieldCodec where T == UInt64 {
    /// Exactly 16 hex digits, refused with `reason`.
    package static func hex16(_ reason: String) -> Self {
        Self(
            write: { key, out in TextFields.hex16(key, &out) },
            read: { field, _ throws(Malformed) in
                guard let key = TextFields.hex(field, width: 16) else { throw Malformed(reason: reason) }
                return key
            })
    }
}

extension FieldCodec where T == SourceRef {
    /// A record's source: two columns, its input's rank and its line.
    package static var source: Self {
        Self(
            columns: 2,
            write: { source, out in
                TextFields.number(Int64(source.file), &out)
                TextFields.tab(&out)
                TextFields.number(source.line, &out)
            },
            read: { columns, _ throws(Malformed) in try TextFields.source(columns[columns.startIndex], columns[columns.startIndex + 1]) })
    }
}

extension FieldCodec where T: RawRepresentable, T.RawValue == String {
    /// A value of a String-backed enum, by its raw value.
    package static var value: Self {
        Self(
            write: { value, out in TextFields.text(value.rawValue, &out) },
            read: { field, _ throws(Malformed) in try TextFields.value(field, T.self) })
    }
}

extension FieldCodec {
    /// A list in one text column, its elements joined by `separator` (no
    /// element empty); an element `element` refuses is refused with `reason`.
    package static func list<E>(separator: Character, _ reason: String, element: @escaping (Substring) -> E?, text: @escaping (E) -> String)
        -> Self where T == [E]
    {
        Self(
            write: { list, out in TextFields.text(list.map(text).joined(separator: String(separator)), &out) },
            read: { field, _ throws(Malformed) in
                var list: [E] = []
                for part in try TextFields.text(field).split(separator: separator) {
                    guard let e = element(part) else { throw Malformed(reason: reason) }
                    list.append(e)
                }
                return list
            })
    }
}

extension FieldCodec where T == [FindingKind] {
    /// Finding kinds, `;`-separated.
    static var findingKinds: Self {
        .list(separator: ";", "bad finding kind", element: { FindingKind(rawValue: String($0)) }, text: { $0.rawValue })
    }
}
