import Parsing
import Reading

/// One field of a line type, declared once: its name, where its value
/// lives in the line's value (a key path), and how it is written, read and
/// checked (`FieldCodec`). A `LineSchema` writes, reads and checks a line
/// from a list of them. Immutable, its closures pure.
package struct Field<Value>: @unchecked Sendable {
    package typealias Malformed = TextFields.Malformed

    /// The field's name: what its errors say.
    package let name: String
    /// How many tab-separated columns it takes.
    let columns: Int
    /// Appends its columns, tab-separated.
    let write: (Value, inout [UInt8]) -> Void
    /// Reads its columns into the value being read.
    let read: (ArraySlice<ArraySlice<UInt8>>, inout Value) throws(Malformed) -> Void

    /// The field at `path`, written and read by `codec`.
    package init<T>(_ name: String, _ path: WritableKeyPath<Value, T>, _ codec: FieldCodec<T>) {
        self.name = name
        columns = codec.columns
        let write = codec.write, read = codec.read
        guard let offset = MemoryLayout<Value>.offset(of: path) else {
            self.write = { value, out in write(value[keyPath: path], &out) }
            self.read = { columns, value throws(Malformed) in value[keyPath: path] = try read(columns, name) }
            return
        }
        // A stored property, reached at its offset as `MemoryLayout`
        // documents: a key path applied at run time costs several times
        // more, on lines the sort and the merge write and read by millions.
        self.write = { value, out in
            withUnsafePointer(to: value) { write(UnsafeRawPointer($0).advanced(by: offset).assumingMemoryBound(to: T.self).pointee, &out) }
        }
        self.read = { columns, value throws(Malformed) in
            let field = try read(columns, name)
            withUnsafeMutablePointer(to: &value) { UnsafeMutableRawPointer($0).advanced(by: offset).assumingMemoryBound(to: T.self).pointee = field }
        }
    }

    /// Fields that are there together or not at all (`path` nil): all
    /// empty when absent — anything in them then is refused with
    /// `absent` — and present when the first is not empty.
    package static func group<G>(_ name: String, _ path: WritableKeyPath<Value, G?>, blank: G, absent: String, _ fields: [Field<G>]) -> Field {
        let schema = LineSchema(name, blank: blank, fields)
        return Field(name: name, columns: schema.columns) { value, out in
            if let group = value[keyPath: path] {
                schema.write(group, into: &out)
            } else {
                out.append(contentsOf: repeatElement(UInt8.tab, count: schema.columns - 1))
            }
        } read: { columns, value throws(Malformed) in
            if columns[columns.startIndex].isEmpty {
                guard columns.allSatisfy(\.isEmpty) else { throw Malformed(reason: absent) }
                value[keyPath: path] = nil
            } else {
                value[keyPath: path] = try schema.read(columns)
            }
        }
    }

    /// A first column that names the line type: `tag` itself, anything
    /// else refused as `not a TAG line`.
    package static func tag(_ tag: String) -> Field {
        Field(
            name: tag, columns: 1, write: { _, out in out.append(contentsOf: tag.utf8) },
            read: { columns, _ throws(Malformed) in
                guard columns[columns.startIndex].elementsEqual(tag.utf8) else { throw Malformed(reason: "not a \(tag) line") }
            })
    }

    /// A field read and written by hand: for a value whose check needs the
    /// fields read before it.
    package init(
        name: String, columns: Int, write: @escaping (Value, inout [UInt8]) -> Void,
        read: @escaping (ArraySlice<ArraySlice<UInt8>>, inout Value) throws(Malformed) -> Void
    ) {
        self.name = name
        self.columns = columns
        self.write = write
        self.read = read
    }
}
