import Foundation
import Reading
import Rules

/// What every stage of a distributed audit shares: the inputs in the order
/// one process ranks them, the arguments that could not be resolved, the
/// audit options, and the job's fingerprint key. Written once by
/// `flipaudit stage plan`, read by every other stage.
///
///     flipaudit plan 2
///     key      64 hex digits         fingerprints of codes (keep private)
///     option   ARG                   one per audit argument, in order
///     file     RANK  NAME  PATH      one per input, by rank
///     problem  NAME  MESSAGE         an argument that is no readable input
///     end      LINES  SHA-256 of every byte before this line
///
/// Fields are `TextFields`. It is read back as bad input: any damage is an
/// error naming the line.
///
/// Version 2 fingerprints with SipHash-2-4 (version 1 with HMAC-SHA256).
/// Every step reads the plan, so refusing another version keeps one job's
/// steps from mixing fingerprints that never match.
package struct JobPlan: Sendable, Equatable {
    static let magic = "flipaudit plan 2"
    private static let magicPrefix = "flipaudit plan "

    package var key: [UInt8]
    package var options: [String]
    package var files: [InputFile]
    package var problems: [Problem]

    /// An argument that named no readable input (exit 3, as in one process).
    package struct Problem: Sendable, Equatable {
        package var name: String
        package var message: String

        package init(name: String, message: String) {
            self.name = name
            self.message = message
        }
    }

    package init(key: [UInt8], options: [String], files: [InputFile], problems: [Problem]) {
        self.key = key
        self.options = options
        self.files = files.map { InputFile(displayName: $0.displayName, path: $0.path) }
        self.problems = problems
    }

    /// The job's identity, carried by every `facts` and `tally` line so the
    /// merge can tell a line of another job: 16 hex digits of HMAC-SHA256
    /// of a fixed text under the job's key (the key itself stays secret).
    var jobID: String {
        let mac = HMACSHA256.code(for: Array("flipaudit job".utf8), key: key)
        return Checkpoint.hex(Array(mac.prefix(8)))
    }

    /// The `file` line of input `rank`, without its newline: what the read
    /// stage is given.
    func fileLine(_ rank: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.append(contentsOf: "file".utf8)
        TextFields.tab(&out)
        TextFields.number(Int64(rank), &out)
        TextFields.tab(&out)
        TextFields.text(files[rank].displayName, &out)
        TextFields.tab(&out)
        TextFields.text(files[rank].path ?? "", &out)
        return out
    }

    package func encoded() -> [UInt8] {
        var out = Array(Self.magic.utf8) + [.newline]
        var lines = 1
        func line(_ fields: [String]) {
            for (i, f) in fields.enumerated() {
                if i > 0 { TextFields.tab(&out) }
                if i == 0 { out.append(contentsOf: f.utf8) } else { TextFields.text(f, &out) }
            }
            out.append(.newline)
            lines += 1
        }
        line(["key", Checkpoint.hex(key)])
        for o in options { line(["option", o]) }
        for rank in files.indices {
            out.append(contentsOf: fileLine(rank))
            out.append(.newline)
            lines += 1
        }
        for p in problems { line(["problem", p.name, p.message]) }
        return SealedText.seal(out, lines: lines)
    }

    /// Reads a plan's bytes; `name` names it in errors.
    package static func decode(_ bytes: [UInt8], name: String) throws(StageError) -> JobPlan {
        var key: [UInt8]?
        var options: [String] = []
        var files: [InputFile] = []
        var problems: [Problem] = []
        typealias F = TextFields
        func header(_ first: ArraySlice<UInt8>) -> String? { first.elementsEqual(magic.utf8) ? nil : notThisVersion(first) }
        do {
            try SealedText.read(bytes, header: header) { tag, rest, _ throws(TextFields.Malformed) in
                switch tag {
                case "key":
                    guard key == nil, let k = Checkpoint.unhex(try F.text(rest)), k.count == 32 else { throw F.Malformed(reason: "bad key") }
                    key = k
                case "option":
                    options.append(try F.text(rest))
                case "file":
                    let f = try F.split(rest, count: 3)
                    guard try F.number(f[0], "rank") == Int64(files.count) else { throw F.Malformed(reason: "files out of order") }
                    files.append(InputFile(displayName: try F.text(f[1]), path: try F.text(f[2])))
                case "problem":
                    let f = try F.split(rest, count: 2)
                    problems.append(Problem(name: try F.text(f[0]), message: try F.text(f[1])))
                default:
                    throw F.Malformed(reason: "unknown record \(Quote.text(tag))")
                }
            }
        } catch {
            throw StageError(error.line.map { "\(name):\($0): " + error.reason } ?? "\(name): " + error.reason)
        }
        guard let key else { throw StageError("\(name): no key line") }
        guard files.count <= Int(Int32.max) else { throw StageError("\(name): too many files") }
        return JobPlan(key: key, options: options, files: files, problems: problems)
    }

    /// Why a first line that is not `magic` is refused: another version is
    /// named (its digits only), anything else is not a plan.
    private static func notThisVersion(_ first: ArraySlice<UInt8>) -> String {
        let version = first.dropFirst(magicPrefix.utf8.count)
        guard first.starts(with: magicPrefix.utf8), !version.isEmpty, version.count <= 9,
            version.allSatisfy({ $0 >= .zero && $0 <= .nine })
        else { return "not a flipaudit plan" }
        let text = String(decoding: version, as: UTF8.self)
        return "plan version \(text); this flipaudit reads version 2 (make the plan again with its `stage plan`)"
    }

    /// Reads the plan at `path`.
    package static func load(_ path: String) throws(StageError) -> JobPlan {
        guard let data = FileManager.default.contents(atPath: path) else { throw StageError("\(path): cannot read the plan") }
        return try decode(Array(data), name: path)
    }

    /// The rank of a `file` line handed to the read stage (optionally after
    /// a `DIGITS<tab>` key, as Hadoop's NLineInputFormat passes it); the
    /// line must be the plan's own.
    package func rank(ofFileLine line: ArraySlice<UInt8>) -> Int? {
        var line = line
        if let tab = line.firstIndex(of: .tab), tab > line.startIndex,
            line[..<tab].allSatisfy({ $0 >= .zero && $0 <= .nine })
        {
            line = line[(tab + 1)...]
        }
        let f = line.split(separator: .tab, maxSplits: 2, omittingEmptySubsequences: false)
        guard f.count == 3, f[0].elementsEqual("file".utf8), let n = Int(String(decoding: f[1], as: UTF8.self)),
            files.indices.contains(n), line.elementsEqual(fileLine(n))
        else { return nil }
        return n
    }
}
