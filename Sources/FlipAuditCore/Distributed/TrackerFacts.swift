import Foundation

/// What a session stage learned besides rows: the project IDs accepted
/// because none is pinned, the inputs whose sessions could not be judged
/// (no Location logged), and how many duplicate records it left out. The merge adds up every stage's.
///
///     tracker   JSON
public struct TrackerFacts: Sendable, Codable, Equatable {
    public var unpinnedProjectIDs: [String]
    public var unobservableFiles: [Int32]
    /// Flip records left out as duplicates (docs/contract.md §8).
    public var duplicateRecords: Int

    static let tag = "tracker"

    public func encode(into out: inout [UInt8]) {
        out.append(contentsOf: Self.tag.utf8)
        out.append(.tab)
        JSONField.append(self, to: &out)
        out.append(.newline)
    }

    @_spi(Fuzzing) public static func decode(_ line: ArraySlice<UInt8>) throws(TextFields.Malformed) -> TrackerFacts {
        let f = try TextFields.split(line, count: 2)
        guard f[0].elementsEqual(tag.utf8) else { throw TextFields.Malformed(reason: "not a tracker line") }
        let facts = try JSONField.decode(TrackerFacts.self, from: f[1], what: "tracker facts")
        guard (0...(1 << 48)).contains(facts.duplicateRecords) else { throw TextFields.Malformed(reason: "tracker facts hold a count out of range") }
        return facts
    }
}
