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
    /// Appends its columns, tab-separated, from the value at the pointer.
    let write: (UnsafePointer<Value>, inout [UInt8]) -> Void
    /// Reads its columns into the value being read, at the pointer.
    let read: (ArraySlice<ArraySlice<UInt8>>, UnsafeMutablePointer<Value>) throws(Malformed) -> Void

    /// The field at `path`, written and read by `codec`.
    package init<T>(_ name: String, _ path: WritableKeyPath<Value, T>, _ codec: FieldCodec<T>) {
        let write = codec.write, read = codec.read, (get, set) = Self.access(path)
        self.init(
            name: name, columns: codec.columns, writing: { value, out in write(get(value), &out) },
            reading: { columns, value throws(Malformed) in set(value, try read(columns, name)) })
    }

    /// Fields that are there together or not at all (`path` nil): all
    /// empty when absent — anything in them then is refused with
    /// `absent` — and present when the first is not empty.
    package static func group<G>(_ name: String, _ path: WritableKeyPath<Value, G?>, blank: G, absent: String, _ fields: [Field<G>]) -> Field {
        let schema = LineSchema(name, blank: blank, fields), (get, set) = access(path)
        return Field(name: name, columns: schema.columns) { value, out in
            if let group = get(value) {
                schema.write(group, into: &out)
            } else {
                out.append(contentsOf: repeatElement(UInt8.tab, count: schema.columns - 1))
            }
        } reading: { columns, value throws(Malformed) in
            if columns[columns.startIndex].isEmpty {
                guard columns.allSatisfy(\.isEmpty) else { throw Malformed(reason: absent) }
                set(value, nil)
            } else {
                set(value, try schema.read(columns))
            }
        }
    }

    /// How the value at `path` is got and set in a value in memory: a
    /// stored property at its offset, as `MemoryLayout` documents (a key
    /// path applied at run time costs several times more, on lines the
    /// sort and the merge write and read by millions), else by the path.
    private static func access<T>(_ path: WritableKeyPath<Value, T>) -> (
        get: (UnsafePointer<Value>) -> T, set: (UnsafeMutablePointer<Value>, T) -> Void
    ) {
        guard let offset = MemoryLayout<Value>.offset(of: path) else {
            return ({ $0.pointee[keyPath: path] }, { $0.pointee[keyPath: path] = $1 })
        }
        return (
            { UnsafeRawPointer($0).advanced(by: offset).assumingMemoryBound(to: T.self).pointee },
            { UnsafeMutableRawPointer($0).advanced(by: offset).assumingMemoryBound(to: T.self).pointee = $1 }
        )
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
        self.init(
            name: name, columns: columns, writing: { value, out in write(value.pointee, &out) },
            reading: { columns, value throws(Malformed) in try read(columns, &value.pointee) })
    }

    private init(
        name: String, columns: Int, writing write: @escaping (UnsafePointer<Value>, inout [UInt8]) -> Void,
        reading read: @escaping (ArraySlice<ArraySlice<UInt8>>, UnsafeMutablePointer<Value>) throws(Malformed) -> Void
    ) {
        self.name = name
        self.columns = columns
        self.write = write
        self.read = read
    }
}
