import Foundation
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
    package var locationLines: LocationLines
    var latestTime: Int64?
    /// Its first audited record's time: where its stream takes it up.
    var firstTime: Int64?
    /// Its first flip records that could have a twin: every reducer reads
    /// the same pairs of inputs as tiers from them (`Tiers.detect`).
    var sample: TwinSample?
    /// Its times were read in `--tz` (`FileScan.zoneless`); nil: not.
    var zoneless: Bool?
    /// The messages one process prints for this input, in line order.
    package var warnings: [String]
    /// Why it could not be read completely (`NAME: message`).
    package var error: String?
    /// The plan's job (`JobPlan.jobID`).
    package var job: String
    /// The event lines the read stage wrote for this input.
    package var events: LineTally

    static let tag = "facts"

    /// The fields of a facts line: the JSON's rank must be the line's.
    static let schema = LineSchema<FileFacts>(
        "facts",
        blank: FileFacts(
            rank: 0, accounting: InputAccounting(),
            summary: FileSummary(name: "", encoding: "", format: "", lines: 0, logsLocation: false, error: nil, hint: nil),
            locationLines: LocationLines(), latestTime: nil, firstTime: nil, sample: nil, warnings: [], error: nil, job: "",
            events: LineTally()),
        [
            .tag(tag),
            Field("rank", \.rank, .sortRank),
            Field(name: "facts", columns: 1, write: FieldCodec<FileFacts>.json.write) { columns, facts throws(TextFields.Malformed) in
                let read = try FieldCodec<FileFacts>.json.read(columns, "facts")
                guard read.rank == facts.rank else { throw TextFields.Malformed(reason: "facts do not match their rank") }
                facts = read
            },
        ],
        check: inRange)

    /// Counts and times as the audit's sums and clocks can take them.
    private static func inRange(_ facts: FileFacts) throws(TextFields.Malformed) {
        let a = facts.accounting
        let counts = [
            a.outOfOrderRecords, a.files, a.filesWithErrors, a.lines, a.blankLines, a.records, a.malformedLines,
            a.inScopeFlipRecords, a.otherOAuthRecords, a.returnRecords, facts.summary.lines, facts.summary.refusedLines ?? 0,
        ]
        let bound = 1 << 48
        guard counts.allSatisfy({ (0...bound).contains($0) }), a.malformedByReason.values.allSatisfy({ (0...bound).contains($0) }),
            a.compressedBytes <= 1 << 56, a.uncompressedBytes <= 1 << 56,
            [facts.latestTime, facts.firstTime, facts.locationLines.text, facts.locationLines.json].allSatisfy({ ($0 ?? 0).magnitude <= TextFields.timeBound })
        else { throw TextFields.Malformed(reason: "facts hold counts or times out of range") }
    }

    package func encode(into out: inout [UInt8]) {
        Self.schema.write(self, into: &out)
        out.append(.newline)
    }

    /// The facts of a line (without its newline), which starts with `facts`.
    package static func decode(_ line: ArraySlice<UInt8>) throws(TextFields.Malformed) -> FileFacts {
        try schema.read(line)
    }
}
