import Foundation
import Reading
import Rules

/// How many lines a step wrote or read, and the sum (modulo 2^64) of the
/// first 8 bytes of each line's SHA-256 (without its newline): a line
/// missing, repeated, changed or taken from another job changes the count
/// or the sum. The merge adds up every step's and compares
/// (docs/distributed.md, "What the merge checks").
package struct LineTally: Sendable, Equatable, Codable {
    package var lines: Int64 = 0
    package var sum: UInt64 = 0

    package init() {}

    /// Counts one line (without its newline).
    mutating func add(_ line: ArraySlice<UInt8>) {
        lines &+= 1
        sum &+= line.withUnsafeBytes { bytes in
            SHA256.hash(data: bytes).withUnsafeBytes { UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)) }
        }
    }

    /// Counts the line `encode` appends to `buffer` (its newline left out).
    mutating func add(appendedTo buffer: inout [UInt8], _ encode: (inout [UInt8]) -> Void) {
        let start = buffer.count
        encode(&buffer)
        add(buffer[start..<max(start, buffer.count - 1)])
    }

    mutating func add(_ other: LineTally) {
        lines &+= other.lines
        sum &+= other.sum
    }

    enum CodingKeys: String, CodingKey { case lines, sum }

    package init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        lines = try c.decode(Int64.self, forKey: .lines)
        let hex = try c.decode(String.self, forKey: .sum)
        guard hex.utf8.count == 16, let sum = UInt64(hex, radix: 16), lines >= 0 else {
            throw DecodingError.dataCorruptedError(forKey: .sum, in: c, debugDescription: "bad tally")
        }
        self.sum = sum
    }

    package func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(lines, forKey: .lines)
        try c.encode(Checkpoint.hex(sum), forKey: .sum)
    }
}

/// What one reduce task read and wrote, written as its last line so the
/// merge can check that every step's lines arrived once:
///
///     tally   JSON
///
/// A session stage: the event lines it read, per input rank; the session,
/// finding and tracker lines it wrote for the merge; the code lines it
/// wrote for the code stage. A code stage (when it read any line): the
/// code lines it read and the reuse lines it wrote.
struct StageTally: Sendable, Equatable, Codable {
    enum Stage: String, Sendable, Codable { case sessions, codes }

    package var stage: Stage
    /// The plan's job (`JobPlan.jobID`).
    package var job: String
    /// Session stage: event lines read, by input rank.
    var eventsRead: [Int: LineTally]?
    /// Code stage: code lines read.
    var codesRead: LineTally?
    /// Lines written for the merge (session, finding and tracker; reuse).
    var forMerge: LineTally
    /// Session stage: code lines written for the code stage.
    var codesWritten: LineTally?

    static let tag = "tally"

    /// The fields of a tally line.
    static let schema = LineSchema<StageTally>(
        "tally", blank: StageTally(stage: .sessions, job: "", forMerge: LineTally()),
        [
            .tag(tag),
            Field("a tally", \.self, .json),
        ]
    ) { tally throws(TextFields.Malformed) in
        let complete =
            tally.stage == .sessions
            ? tally.eventsRead != nil && tally.codesWritten != nil && tally.codesRead == nil
            : tally.codesRead != nil && tally.eventsRead == nil && tally.codesWritten == nil
        guard complete else { throw TextFields.Malformed(reason: "a tally without the fields of its stage") }
    }

    package func encode(into out: inout [UInt8]) {
        Self.schema.write(self, into: &out)
        out.append(.newline)
    }

    package static func decode(_ line: ArraySlice<UInt8>) throws(TextFields.Malformed) -> StageTally {
        try schema.read(line)
    }
}

/// The merge's sums of every step's tallies, and what it read itself.
struct TallyCheck {
    /// Per input rank: event lines the read stage wrote, the session stages read.
    var eventsWritten: [LineTally]
    var eventsRead: [LineTally]
    var codesWritten = LineTally()
    var codesRead = LineTally()
    /// Session, finding and tracker lines the session stages wrote, the merge read.
    var rowsWritten = LineTally()
    var rowsRead = LineTally()
    /// Reuse lines the code stages wrote, the merge read.
    var reuseWritten = LineTally()
    var reuseRead = LineTally()

    init(inputs: Int) {
        eventsWritten = Array(repeating: LineTally(), count: inputs)
        eventsRead = eventsWritten
    }

    mutating func add(_ tally: StageTally) throws(TextFields.Malformed) {
        for (rank, t) in tally.eventsRead ?? [:] {
            guard eventsRead.indices.contains(rank) else { throw TextFields.Malformed(reason: "a tally for rank \(rank), which this plan does not have") }
            eventsRead[rank].add(t)
        }
        if let t = tally.codesWritten { codesWritten.add(t) }
        if let t = tally.codesRead { codesRead.add(t) }
        switch tally.stage {
        case .sessions: rowsWritten.add(tally.forMerge)
        case .codes: reuseWritten.add(tally.forMerge)
        }
    }

    /// Why the steps do not add up (naming the step and, for event lines,
    /// the input), or nil when every line arrived once.
    func problem(names: [String]) -> String? {
        for rank in eventsWritten.indices where eventsWritten[rank] != eventsRead[rank] {
            return Self.mismatch(
                step: "stage sessions", what: "event lines of \(names[rank]) (rank \(rank))", wrote: eventsWritten[rank], by: "stage read",
                read: eventsRead[rank], missing: "a session task's output (with its tally line) is missing from the merge's input")
        }
        if codesWritten != codesRead {
            return Self.mismatch(
                step: "stage codes", what: "code lines", wrote: codesWritten, by: "the session stage", read: codesRead,
                missing: "a code task's output (with its tally line) is missing from the merge's input, or a code line never reached it")
        }
        if rowsWritten != rowsRead {
            return Self.mismatch(
                step: "stage merge", what: "session, finding and tracker lines", wrote: rowsWritten, by: "the session stage",
                read: rowsRead, missing: "some of them are missing from the merge's input")
        }
        if reuseWritten != reuseRead {
            return Self.mismatch(
                step: "stage merge", what: "reuse lines", wrote: reuseWritten, by: "the code stage", read: reuseRead,
                missing: "some of them are missing from the merge's input")
        }
        return nil
    }

    static func mismatch(step: String, what: String, wrote: LineTally, by producer: String, read: LineTally, missing: String) -> String {
        let why: String
        if read.lines < wrote.lines {
            why = missing
        } else if read.lines > wrote.lines {
            why = "a line or a task's output is repeated, or lines of another job were added"
        } else {
            why = "the lines are not the ones written (changed, or of another job)"
        }
        return "\(step): \(read.lines) \(what) read where \(producer) wrote \(wrote.lines): \(why)"
    }
}
