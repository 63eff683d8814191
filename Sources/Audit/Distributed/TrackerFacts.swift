import Foundation
import Parsing
import Reading
import Rules

/// What a session stage learned besides rows: the project IDs accepted
/// because none is pinned, the inputs whose sessions could not be judged
/// (no Location logged), and how many duplicate records it left out. The merge adds up every stage's.
///
///     tracker   JSON
struct TrackerFacts: Sendable, Codable, Equatable {
    package var unpinnedProjectIDs: [String]
    package var unobservableFiles: [Int32]
    /// Flip records left out as duplicates (docs/contract.md §8).
    package var duplicateRecords: Int

    static let tag = "tracker"

    package func encode(into out: inout [UInt8]) {
        out.append(contentsOf: Self.tag.utf8)
        out.append(.tab)
        JSONField.append(self, to: &out)
        out.append(.newline)
    }

    package static func decode(_ line: ArraySlice<UInt8>) throws(TextFields.Malformed) -> TrackerFacts {
        let f = try TextFields.split(line, count: 2)
        guard f[0].elementsEqual(tag.utf8) else { throw TextFields.Malformed(reason: "not a tracker line") }
        let facts = try JSONField.decode(TrackerFacts.self, from: f[1], what: "tracker facts")
        guard (0...(1 << 48)).contains(facts.duplicateRecords) else { throw TextFields.Malformed(reason: "tracker facts hold a count out of range") }
        return facts
    }
}
