import Foundation
import Rules

/// The last field of a stage line that carries a value as JSON (`facts`,
/// `tracker`, `tally`): sorted keys, so equal values are equal bytes, and
/// every control character escaped, so the line stays one line. Read back
/// as bad input: JSON that is not of the value's kind is `Malformed`.
enum JSONField {
    /// Appends `value`'s JSON to `out`.
    static func append<T: Encodable>(_ value: T, to out: inout [UInt8]) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        out.append(contentsOf: (try? encoder.encode(value)) ?? Data("{}".utf8))
    }

    /// The value a field holds; `what` names it in the error.
    static func decode<T: Decodable>(_ type: T.Type, from field: ArraySlice<UInt8>, what: String) throws(TextFields.Malformed) -> T {
        do { return try JSONDecoder().decode(type, from: Data(field)) } catch {
            throw TextFields.Malformed(reason: "\(what): not valid JSON of its kind")
        }
    }
}

extension FieldCodec where T: Codable {
    /// A value as JSON (`JSONField`), in one column; refused as `NAME: not
    /// valid JSON of its kind`.
    static var json: Self {
        Self(
            write: { value, out in JSONField.append(value, to: &out) },
            read: { field, name throws(Malformed) in try JSONField.decode(T.self, from: field, what: name) })
    }
}
