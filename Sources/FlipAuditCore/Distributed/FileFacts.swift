import Foundation

/// What the read stage learned about one input besides its flip events:
/// everything the later stages need from the whole input — the end clock
/// that tells `pending` from `no-return`, where a Location field was first
/// logged — and what the report counts.
///
///     facts   RANK   JSON
public struct FileFacts: Sendable, Codable, Equatable {
    public var rank: Int32
    /// Counts of this input (its first malformed lines as examples).
    public var accounting: InputAccounting
    /// Flip records more than the reorder window behind the newest before
    /// them in this input.
    public var outOfOrderRecords: Int
    public var summary: FileSummary
    public var firstLocationLine: Int64?
    public var latestTime: Int64?
    /// The messages one process prints for this input, in line order.
    public var warnings: [String]
    /// Why it could not be read completely (`NAME: message`).
    public var error: String?

    static let tag = "facts"

    public func encode(into out: inout [UInt8]) {
        out.append(contentsOf: Self.tag.utf8)
        out.append(.tab)
        SortFields.rank(rank, &out)
        out.append(.tab)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // JSON escapes every control character: the line stays one line.
        out.append(contentsOf: (try? encoder.encode(self)) ?? Data("{}".utf8))
        out.append(.newline)
    }

    /// The facts of a line (without its newline), which starts with `facts`.
    @_spi(Fuzzing) public static func decode(_ line: ArraySlice<UInt8>) throws(TextFields.Malformed) -> FileFacts {
        let f = try TextFields.split(line, count: 3)
        guard f[0].elementsEqual(tag.utf8) else { throw TextFields.Malformed(reason: "not a facts line") }
        let rank = try SortFields.rank(f[1])
        let facts: FileFacts
        do { facts = try JSONDecoder().decode(FileFacts.self, from: Data(f[2])) } catch {
            throw TextFields.Malformed(reason: "facts are not valid JSON of their kind")
        }
        guard facts.rank == rank, facts.outOfOrderRecords >= 0 else { throw TextFields.Malformed(reason: "facts do not match their rank") }
        return facts
    }
}
