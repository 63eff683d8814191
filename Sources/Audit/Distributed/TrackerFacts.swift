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
    /// Requests two tiers both logged, audited once, by pair of ranks
    /// (`A,B`); absent in lines of a version before tiers.
    package var tierTwins: [String: Int]? = nil

    static let tag = "tracker"

    /// The fields of a tracker line.
    static let schema = LineSchema<TrackerFacts>(
        "tracker", blank: TrackerFacts(unpinnedProjectIDs: [], unobservableFiles: [], duplicateRecords: 0),
        [
            .tag(tag),
            Field("tracker facts", \.self, .json),
        ]
    ) { facts throws(TextFields.Malformed) in
        guard (0...(1 << 48)).contains(facts.duplicateRecords), (facts.tierTwins ?? [:]).values.allSatisfy({ (0...(1 << 48)).contains($0) }) else {
            throw TextFields.Malformed(reason: "tracker facts hold a count out of range")
        }
    }

    package func encode(into out: inout [UInt8]) {
        Self.schema.write(self, into: &out)
        out.append(.newline)
    }

    package static func decode(_ line: ArraySlice<UInt8>) throws(TextFields.Malformed) -> TrackerFacts {
        try schema.read(line)
    }
}
