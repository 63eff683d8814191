import Foundation
import Parsing
import Reading
import Rules

/// What the read stage learned about one input besides its flip events:
/// everything the later stages need from the whole input — the end clock
/// that tells `pending` from `no-return`, where a Location field was first
/// logged — and what the report counts.
///
///     facts   RANK   JSON
package struct FileFacts: Sendable, Codable, Equatable {
    package var rank: Int32
    /// Counts of this input (its first malformed lines as examples), with
    /// the flip records more than the reorder window behind the newest
    /// before them in this input.
    package var accounting: InputAccounting
    package var summary: FileSummary
    package var firstLocationLine: Int64?
    var latestTime: Int64?
    /// The messages one process prints for this input, in line order.
    package var warnings: [String]
    /// Why it could not be read completely (`NAME: message`).
    package var error: String?
    /// The plan's job (`JobPlan.jobID`).
    package var job: String
    /// The event lines the read stage wrote for this input.
    package var events: LineTally

    static let tag = "facts"

    package func encode(into out: inout [UInt8]) {
        out.append(contentsOf: Self.tag.utf8)
        out.append(.tab)
        SortFields.rank(rank, &out)
        out.append(.tab)
        JSONField.append(self, to: &out)
        out.append(.newline)
    }

    /// The facts of a line (without its newline), which starts with `facts`.
    package static func decode(_ line: ArraySlice<UInt8>) throws(TextFields.Malformed) -> FileFacts {
        let f = try TextFields.split(line, count: 3)
        guard f[0].elementsEqual(tag.utf8) else { throw TextFields.Malformed(reason: "not a facts line") }
        let rank = try SortFields.rank(f[1])
        let facts = try JSONField.decode(FileFacts.self, from: f[2], what: "facts")
        guard facts.rank == rank else { throw TextFields.Malformed(reason: "facts do not match their rank") }
        // Counts and times as the audit's sums and clocks can take them.
        let a = facts.accounting
        let counts = [
            a.outOfOrderRecords, a.files, a.filesWithErrors, a.lines, a.blankLines, a.records, a.malformedLines,
            a.inScopeFlipRecords, a.otherOAuthRecords, a.returnRecords, facts.summary.lines,
        ]
        let bound = 1 << 48
        guard counts.allSatisfy({ (0...bound).contains($0) }), a.malformedByReason.values.allSatisfy({ (0...bound).contains($0) }),
            a.compressedBytes <= 1 << 56, a.uncompressedBytes <= 1 << 56,
            [facts.latestTime, facts.firstLocationLine].allSatisfy({ ($0 ?? 0).magnitude <= TextFields.timeBound })
        else { throw TextFields.Malformed(reason: "facts hold counts or times out of range") }
        return facts
    }
}
