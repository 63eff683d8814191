import Foundation

/// What one run hands the next (`--checkpoint`, docs/contract.md §9): the
/// sessions still open at the end of its input, the ended states and
/// returned codes within the reuse window (as keyed fingerprints, never a
/// code in clear), the clock, and the fingerprint key.
///
/// The file is text, a record a line, in `TextFields` syntax:
///
///     flipaudit checkpoint 1
///     clock  MS
///     key    64 hex digits
///     serial N
///     file   INDEX  NAME            the inputs carried sessions refer to
///     session …                     one per open session (`CarriedSession`)
///     state  KEY  MS                one per remembered ended state
///     code   KEY  MS                one per remembered returned code
///     end    LINES  SHA-256 of every byte before this line
///
/// It is read back as bad input: any damage — a changed byte, a cut, another
/// version — is an error naming the line, never a silent fresh start.
public struct Checkpoint: Sendable, Equatable {
    public static let version = 1
    static let magic = "flipaudit checkpoint \(version)"

    /// Latest record time of all the input so far (milliseconds).
    public var clock: Int64
    /// The fingerprint key (32 bytes).
    public var key: [UInt8]
    /// The next session serial.
    var serial: Int
    /// Names of the inputs that carried sessions refer to, by index.
    var files: [String]
    var sessions: [CarriedSession]
    var endedStates: [Remembered]
    var returnedCodes: [Remembered]

    /// A remembered fingerprint and when.
    struct Remembered: Sendable, Equatable {
        var key: UInt64
        var time: Int64
    }

    /// How many sessions it carries.
    public var openSessions: Int { sessions.count }

    /// Why a checkpoint could not be read.
    public struct Damaged: Error, CustomStringConvertible {
        public var description: String
    }

    // MARK: Writing

    /// The file's bytes.
    public func encoded() -> [UInt8] {
        typealias F = TextFields
        var out: [UInt8] = []
        var lines = 0
        func line(_ tag: String, _ body: (inout [UInt8]) -> Void) {
            out.append(contentsOf: tag.utf8)
            body(&out)
            out.append(.newline)
            lines += 1
        }
        out.append(contentsOf: Self.magic.utf8)
        out.append(.newline)
        lines += 1
        line("clock") {
            F.tab(&$0); F.number(clock, &$0)
        }
        line("key") {
            F.tab(&$0); F.text(Self.hex(key), &$0)
        }
        line("serial") {
            F.tab(&$0); F.number(Int64(serial), &$0)
        }
        for (i, name) in files.enumerated() {
            line("file") {
                F.tab(&$0); F.number(Int64(i), &$0); F.tab(&$0); F.text(name, &$0)
            }
        }
        for s in sessions { line("session") { s.encode(into: &$0) } }
        for r in endedStates {
            line("state") {
                F.tab(&$0); F.text(Self.hex(r.key), &$0); F.tab(&$0); F.number(r.time, &$0)
            }
        }
        for r in returnedCodes {
            line("code") {
                F.tab(&$0); F.text(Self.hex(r.key), &$0); F.tab(&$0); F.number(r.time, &$0)
            }
        }
        return SealedText.seal(out, lines: lines)
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }
    static func hex(_ n: UInt64) -> String {
        let s = String(n, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }

    // MARK: Reading

    /// Reads a checkpoint's bytes.
    public static func decode(_ bytes: [UInt8]) throws(Damaged) -> Checkpoint {
        typealias F = TextFields
        var lines = bytes.split(separator: .newline, omittingEmptySubsequences: false)
        guard lines.last?.isEmpty == true else { throw Damaged(description: "cut off (no newline at the end)") }
        lines.removeLast()
        guard let first = lines.first, first.elementsEqual(magic.utf8) else {
            let head = String(decoding: (lines.first ?? [][...]).prefix(40), as: UTF8.self)
            if head.hasPrefix("flipaudit checkpoint ") {
                throw Damaged(description: "line 1: version \(head.dropFirst(21)), this flipaudit reads version \(version)")
            }
            throw Damaged(description: "line 1: not a flipaudit checkpoint")
        }
        if let problem = SealedText.problem(bytes, lines: lines) { throw Damaged(description: problem) }
        var clock: Int64?, key: [UInt8]?, serial: Int?
        var files: [String] = []
        var sessions: [CarriedSession] = []
        var states: [Remembered] = []
        var codes: [Remembered] = []
        for (i, line) in lines.enumerated().dropFirst().dropLast() {
            let number = i + 1
            do throws(TextFields.Malformed) {
                let tab = line.firstIndex(of: .tab) ?? line.endIndex
                let tag = String(decoding: line[..<tab], as: UTF8.self)
                let rest = tab < line.endIndex ? line[(tab + 1)...] : [][...]
                switch tag {
                case "clock":
                    clock = try F.time(rest, "clock")
                case "key":
                    let text = try F.text(rest)
                    guard let k = unhex(text), k.count == 32 else { throw TextFields.Malformed(reason: "bad key") }
                    key = k
                case "serial":
                    let n = try F.number(rest, "serial")
                    guard n >= 0 else { throw TextFields.Malformed(reason: "bad serial") }
                    serial = Int(n)
                case "file":
                    let f = try F.split(rest, count: 2)
                    guard try F.number(f[0], "file index") == Int64(files.count) else { throw TextFields.Malformed(reason: "files out of order") }
                    files.append(try F.text(f[1]))
                case "session":
                    sessions.append(try CarriedSession.decode(rest, files: files.count))
                case "state", "code":
                    let f = try F.split(rest, count: 2)
                    let text = try F.text(f[0])
                    guard text.utf8.count == 16, let k = UInt64(text, radix: 16) else { throw TextFields.Malformed(reason: "bad fingerprint") }
                    let r = Remembered(key: k, time: try F.time(f[1], "time"))
                    if tag == "state" { states.append(r) } else { codes.append(r) }
                default:
                    throw TextFields.Malformed(reason: "unknown record \(Quote.text(tag))")
                }
            } catch {
                throw Damaged(description: "line \(number): \(error)")
            }
        }
        guard let clock, let key, let serial else { throw Damaged(description: "clock, key or serial missing") }
        guard sessions.allSatisfy({ $0.serial < serial }) else { throw Damaged(description: "a session's serial is not below the next serial") }
        return Checkpoint(
            clock: clock, key: key, serial: serial, files: files, sessions: sessions,
            endedStates: states, returnedCodes: codes)
    }

    static func unhex(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        var i = 0
        while i < digits.count {
            guard let hi = Hex.value(digits[i]), let lo = Hex.value(digits[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }

    // MARK: Files

    /// Reads FILE: nil when it does not exist; an error when it cannot be
    /// read or is damaged.
    public static func load(_ path: String) throws(Damaged) -> Checkpoint? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Damaged(description: "cannot be read: \(String(cString: strerror(errno)))")
        }
        return try decode(Array(data))
    }

    /// Writes FILE atomically: a temporary file in the same folder, fsync,
    /// rename, fsync of the folder. A run killed at any moment leaves the
    /// previous checkpoint or the new one, whole.
    public func write(to path: String) throws(OutputError) {
        try AtomicFile.write(bytes: encoded(), to: path, mode: 0o600)
    }
}

/// An open session as a checkpoint keeps it: everything `Session` holds,
/// with its sources' files as indexes into `Checkpoint.files`.
struct CarriedSession: Sendable, Equatable {
    var state: String
    var serial: Int
    var firstSeen: Int64
    var lastSeen: Int64
    var firstSource: SourceRef
    var lastLineInFirstFile: Int64
    var clientID: String?
    var redirectURI: String?
    var clientMismatch: Bool
    var clientIP: String
    var requestCount: Int
    var returnCount: Int
    var firstReturn: (time: Int64, source: SourceRef, hasCode: Bool, error: String?, errorDescription: String?)?
    var failure: (status: Int, time: Int64, source: SourceRef)?
    var findings: [FindingKind]
    var codeKeys: [UInt64]
    var expiresAt: Int64
    /// Whether its request's file had logged a Location by its last record.
    var observable: Bool

    static let fieldCount = 27

    static func == (a: Self, b: Self) -> Bool {
        var x: [UInt8] = [], y: [UInt8] = []
        a.encode(into: &x)
        b.encode(into: &y)
        return x == y
    }

    func encode(into out: inout [UInt8]) {
        typealias F = TextFields
        func field(_ body: () -> Void) { F.tab(&out); body() }
        field { F.text(state, &out) }
        field { F.number(Int64(serial), &out) }
        field { F.number(firstSeen, &out) }
        field { F.number(lastSeen, &out) }
        field { F.number(Int64(firstSource.file), &out) }
        field { F.number(firstSource.line, &out) }
        field { F.number(lastLineInFirstFile, &out) }
        field { F.optional(clientID, &out) }
        field { F.optional(redirectURI, &out) }
        field { F.flag(clientMismatch, &out) }
        field { F.text(clientIP, &out) }
        field { F.number(Int64(requestCount), &out) }
        field { F.number(Int64(returnCount), &out) }
        if let r = firstReturn {
            field { F.number(r.time, &out) }
            field { F.number(Int64(r.source.file), &out) }
            field { F.number(r.source.line, &out) }
            field { F.flag(r.hasCode, &out) }
            field { F.optional(r.error, &out) }
            field { F.optional(r.errorDescription, &out) }
        } else {
            for _ in 0..<6 { F.tab(&out) }
        }
        if let f = failure {
            field { F.number(Int64(f.status), &out) }
            field { F.number(f.time, &out) }
            field { F.number(Int64(f.source.file), &out) }
            field { F.number(f.source.line, &out) }
        } else {
            for _ in 0..<4 { F.tab(&out) }
        }
        field { F.text(findings.map(\.rawValue).joined(separator: ";"), &out) }
        field { F.text(codeKeys.map(Checkpoint.hex).joined(separator: ","), &out) }
        field { F.number(expiresAt, &out) }
        field { F.flag(observable, &out) }
    }

    /// Reads the fields after the `session` tag; source files must be below
    /// `files`.
    static func decode(_ rest: ArraySlice<UInt8>, files: Int) throws(TextFields.Malformed) -> CarriedSession {
        typealias F = TextFields
        let f = try F.split(rest, count: fieldCount)
        func number(_ i: Int, _ name: String) throws(TextFields.Malformed) -> Int64 { try F.number(f[i], name) }
        func time(_ i: Int, _ name: String) throws(TextFields.Malformed) -> Int64 { try F.time(f[i], name) }
        func source(_ i: Int) throws(TextFields.Malformed) -> SourceRef {
            let s = try F.source(f[i], f[i + 1])
            guard s.file < files else { throw TextFields.Malformed(reason: "source names no listed file") }
            return s
        }
        func count(_ i: Int, _ name: String) throws(TextFields.Malformed) -> Int {
            let n = try number(i, name)
            guard n >= 0, n < Int64(Int32.max) else { throw TextFields.Malformed(reason: "bad \(name)") }
            return Int(n)
        }
        var firstReturn: (Int64, SourceRef, Bool, String?, String?)?
        if !f[13].isEmpty {
            firstReturn = (try time(13, "return time"), try source(14), try F.flag(f[16]), try F.optional(f[17]), try F.optional(f[18]))
        } else if !f[14...18].allSatisfy(\.isEmpty) {
            throw TextFields.Malformed(reason: "return fields without a return")
        }
        var failure: (Int, Int64, SourceRef)?
        if !f[19].isEmpty {
            let status = try count(19, "status")
            guard (400...999).contains(status) else { throw TextFields.Malformed(reason: "bad failure status") }
            failure = (status, try time(20, "failure time"), try source(21))
        } else if !f[20...22].allSatisfy(\.isEmpty) {
            throw TextFields.Malformed(reason: "failure fields without a failure")
        }
        var kinds: [FindingKind] = []
        let kindText = try F.text(f[23])
        if !kindText.isEmpty {
            for name in kindText.split(separator: ";") {
                guard let k = FindingKind(rawValue: String(name)) else { throw TextFields.Malformed(reason: "bad finding kind") }
                kinds.append(k)
            }
        }
        var codeKeys: [UInt64] = []
        let keyText = try F.text(f[24])
        if !keyText.isEmpty {
            for k in keyText.split(separator: ",") {
                guard k.utf8.count == 16, let n = UInt64(k, radix: 16) else { throw TextFields.Malformed(reason: "bad code key") }
                codeKeys.append(n)
            }
        }
        let s = CarriedSession(
            state: try F.text(f[0]), serial: try count(1, "serial"), firstSeen: try time(2, "first seen"),
            lastSeen: try time(3, "last seen"), firstSource: try source(4), lastLineInFirstFile: try number(6, "last line"),
            clientID: try F.optional(f[7]), redirectURI: try F.optional(f[8]), clientMismatch: try F.flag(f[9]),
            clientIP: try F.text(f[10]), requestCount: try count(11, "request count"), returnCount: try count(12, "return count"),
            firstReturn: firstReturn, failure: failure, findings: kinds, codeKeys: codeKeys,
            expiresAt: try time(25, "expiry"), observable: try F.flag(f[26]))
        guard s.firstSeen <= s.lastSeen, s.requestCount >= 1, (s.returnCount == 0) == (s.firstReturn == nil) else {
            throw TextFields.Malformed(reason: "inconsistent session")
        }
        return s
    }
}
