import Foundation
import Parsing
import Reading

/// What one run hands the next (`--checkpoint`, docs/contract.md §9): the
/// sessions still open at the end of its input, the ended states and
/// returned codes within the reuse window (as keyed fingerprints, never a
/// code in clear), the watermark, the fingerprints of the records near it
/// (duplicates), the files audited (no night twice), and the fingerprint
/// key.
///
/// The file is text, a record a line, in `TextFields` syntax:
///
///     flipaudit checkpoint 3
///     watermark MS
///     key       64 hex digits
///     serial    N                   the next session serial
///     run       N                   runs taken in so far, this one included
///     file      INDEX  NAME         the inputs carried sessions refer to
///     session   …                   one per open session (`CarriedSession.schema`)
///     state     KEY  MS             one per remembered ended state
///     code      KEY  MS             one per remembered returned code
///     record    KEY  MS             one per record near the watermark
///     audited   SIZE  SHA-256  RUN  STARTED  WATERMARK  NAME
///     totals    RUN  STARTED  JSON  one per run of the last 60 (`RunTotals`)
///     location  INDEX  LINE  LINE   where a listed file first logged a Location
///     event     …                   one per flip record past the watermark (`EventCodec`)
///     end       LINES  SHA-256 of every byte before this line
///
/// Version 4 adds the `location` and `event` lines: records newer than the
/// watermark wait for the next run. Version 3 (the same without them) is
/// read too. Versions 3 and 4 fingerprint with SipHash-2-4 (`Fingerprint.keyed`). Versions
/// 1 and 2 fingerprinted with HMAC-SHA256: a chain begun with one keeps it
/// (`legacyFingerprints`), and is written as version 2 again, so that
/// what it remembers still matches. Version 1 (a `clock` line instead of
/// `watermark`, no `run`, `record` or `audited` lines) is read too, and so
/// is a version 2 file without `totals` lines (written before trends were
/// kept). It is read back as bad input: any damage
/// — a changed byte, a cut, a value out of range, another version — is an
/// error naming the line, never a silent fresh start or a trap.
package struct Checkpoint: Sendable, Equatable {
    package static let version = 4
    static let magic = "flipaudit checkpoint \(version)"
    static let magicV3 = "flipaudit checkpoint 3"
    static let magicV2 = "flipaudit checkpoint 2"
    static let magicV1 = "flipaudit checkpoint 1"
    /// A follow checkpoint's first line: version 4's lines and `FollowState`'s.
    static let magicFollow = "flipaudit follow checkpoint 1"

    /// The smallest, over the inputs with audited records, of each one's
    /// newest audited record time, never earlier than the previous run's
    /// (milliseconds): records before it less the reorder window are late.
    package var watermark: Int64
    /// The fingerprint key (32 bytes).
    package var key: [UInt8]
    /// Whether the chain fingerprints with HMAC-SHA256 (begun before
    /// version 3); written as version 2 then.
    package var legacyFingerprints = false
    /// The next session serial.
    var serial: Int
    /// Runs this chain has taken in, the one that wrote it included.
    package var run: Int = 0
    /// Names of the inputs that carried sessions refer to, by index.
    package var files: [String]
    var sessions: [CarriedSession]
    var endedStates: [Remembered]
    var returnedCodes: [Remembered]
    /// Fingerprints of the flip records audited not earlier than the
    /// watermark less the reorder window: the same line again is a
    /// duplicate.
    package var records: [Remembered] = []
    /// The regular files audited within the reuse window.
    package var audited: [AuditedFile] = []
    /// The totals of the chain's last runs (at most `RunTotals.kept`),
    /// oldest first, the run that wrote it last.
    package var totals: [RunTotals] = []
    /// The flip records newer than the watermark, which the next run
    /// audits in order with its own (docs/contract.md §9), as event lines
    /// (`EventCodec`, without the newline) whose sources index `files`.
    package var waiting: [[UInt8]] = []
    /// Where the listed files that waiting records come from first logged
    /// a Location field, by index into `files` (`unobservable`).
    package var locations: [Int: LocationLines] = [:]
    /// A follow checkpoint's positions (`flipaudit follow`); nil in a
    /// nightly one.
    package var follow: FollowState?
    /// In a follower's journal commit (`CheckpointJournal`): the serials of
    /// sessions closed since the commit before (`closed  SERIAL` lines).
    package var closed: [Int] = []

    /// A remembered fingerprint and when.
    package struct Remembered: Sendable, Equatable {
        var key: UInt64
        var time: Int64

        init(key: UInt64, time: Int64) {
            self.key = key
            self.time = time
        }

        /// Its time (sign bit flipped) above its key: these integers sort
        /// as a checkpoint lists the keys, by time and then key, without
        /// a closure called on pairs.
        var packed: UInt128 { UInt128(UInt64(bitPattern: time) ^ (1 << 63)) << 64 | UInt128(key) }

        init(packed: UInt128) {
            key = UInt64(truncatingIfNeeded: packed)
            time = Int64(bitPattern: UInt64(truncatingIfNeeded: packed >> 64) ^ (1 << 63))
        }

        /// The fields of a `state`, `code` or `record` line, after its tag.
        static let schema = LineSchema<Remembered>(
            "state, code or record", blank: Remembered(key: 0, time: 0),
            [
                Field("fingerprint", \.key, .hex16("bad fingerprint")),
                Field("time", \.time, .time),
            ])
    }

    /// A file a run of this chain audited.
    package struct AuditedFile: Sendable, Equatable {
        package var digest: FileDigest
        /// Its name as that run gave it.
        package var name: String
        /// That run's number (`Checkpoint.run`).
        package var run: Int
        /// When that run started (milliseconds of the wall clock).
        package var started: Int64
        /// The watermark after that run: kept for the reuse window from it.
        package var watermark: Int64

        package init(digest: FileDigest, name: String, run: Int, started: Int64, watermark: Int64) {
            self.digest = digest
            self.name = name
            self.run = run
            self.started = started
            self.watermark = watermark
        }

        /// The fields of an `audited` line, after its tag.
        static let schema = LineSchema<AuditedFile>(
            "audited", blank: AuditedFile(digest: FileDigest(size: 0, hash: ""), name: "", run: 0, started: 0, watermark: 0),
            [
                Field(
                    "size", \.digest.size,
                    FieldCodec<Int64>.number.mapped("NAME out of range", to: { (0...(1 << 62)).contains($0) ? UInt64($0) : nil }, from: { Int64($0) })),
                Field("file hash", \.digest.hash, FieldCodec.text.checked("bad NAME") { $0.utf8.count == 64 && $0.utf8.allSatisfy { Hex.value($0) != nil } }),
                Field("run", \.run, .count(in: 0...countBound)),
                Field("start", \.started, .time),
                Field("watermark", \.watermark, .time),
                Field("name", \.name, .text),
            ])
    }

    /// The watermark of a chain that has audited no record yet: far in the
    /// past, yet far from overflow when windows are taken from it.
    package static let noWatermark: Int64 = -TextFields.timeBound

    /// How this chain's states, codes and lines are fingerprinted.
    package var fingerprint: Fingerprint { legacyFingerprints ? .legacyKeyed(key) : .keyed(key) }

    /// How many sessions it carries.
    package var openSessions: Int { sessions.count }

    /// Why a checkpoint could not be read.
    package struct Damaged: Error, CustomStringConvertible {
        package var description: String

        package init(description: String) { self.description = description }
    }

    /// Serials, runs and counts read back stay below this: far beyond any
    /// real chain, and far from overflow.
    static let countBound: Int64 = 1 << 40

    // MARK: Writing

    /// The file's bytes.
    package func encoded() -> [UInt8] {
        typealias F = TextFields
        var out: [UInt8] = []
        var lines = 0
        func line(_ tag: String, _ body: (inout [UInt8]) -> Void) {
            out.append(contentsOf: tag.utf8)
            body(&out)
            out.append(.newline)
            lines += 1
        }
        out.append(contentsOf: (follow != nil ? Self.magicFollow : legacyFingerprints ? Self.magicV2 : Self.magic).utf8)
        out.append(.newline)
        lines += 1
        line("watermark") {
            F.tab(&$0); F.number(watermark, &$0)
        }
        line("key") {
            F.tab(&$0); F.text(Self.hex(key), &$0)
        }
        line("serial") {
            F.tab(&$0); F.number(Int64(serial), &$0)
        }
        line("run") {
            F.tab(&$0); F.number(Int64(run), &$0)
        }
        for (i, name) in files.enumerated() {
            line("file") {
                F.tab(&$0); F.number(Int64(i), &$0); F.tab(&$0); F.text(name, &$0)
            }
        }
        func fields<V>(_ tag: String, _ value: V, _ schema: LineSchema<V>) {
            line(tag) {
                F.tab(&$0)
                schema.write(value, into: &$0)
            }
        }
        for s in sessions { fields("session", s, CarriedSession.schema) }
        for serial in closed {
            line("closed") {
                F.tab(&$0); F.number(Int64(serial), &$0)
            }
        }
        for r in endedStates { fields("state", r, Remembered.schema) }
        for r in returnedCodes { fields("code", r, Remembered.schema) }
        for r in records { fields("record", r, Remembered.schema) }
        for a in audited { fields("audited", a, AuditedFile.schema) }
        for t in totals {
            line("totals") {
                F.tab(&$0); F.number(Int64(t.run), &$0)
                F.tab(&$0); F.number(t.started, &$0)
                F.tab(&$0); F.text(t.bodyJSON, &$0)
            }
        }
        for (i, found) in locations.sorted(by: { $0.key < $1.key }) {
            line("location") {
                F.tab(&$0); F.number(Int64(i), &$0)
                F.tab(&$0); if let t = found.text { F.number(t, &$0) }
                F.tab(&$0); if let j = found.json { F.number(j, &$0) }
            }
        }
        for e in waiting {
            line("event") {
                F.tab(&$0); $0.append(contentsOf: e)
            }
        }
        if let follow { lines += follow.encode(into: &out) }
        return SealedText.seal(out, lines: lines)
    }

    package static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }
    package static func hex(_ n: UInt64) -> String {
        let s = String(n, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }

    // MARK: Reading

    /// Reads a checkpoint's bytes.
    package static func decode(_ bytes: [UInt8]) throws(Damaged) -> Checkpoint {
        typealias F = TextFields
        let firstLine = bytes.prefix { $0 != .newline }
        let v1 = firstLine.elementsEqual(magicV1.utf8)
        let v2 = firstLine.elementsEqual(magicV2.utf8)
        let v3 = firstLine.elementsEqual(magicV3.utf8)
        let isFollow = firstLine.elementsEqual(magicFollow.utf8)
        func header(_ first: ArraySlice<UInt8>) -> String? {
            guard !(v1 || v2 || v3 || isFollow || first.elementsEqual(magic.utf8)) else { return nil }
            let head = String(decoding: first.prefix(40), as: UTF8.self)
            if head.hasPrefix("flipaudit checkpoint ") {
                return "version \(head.dropFirst(21)), this flipaudit reads versions 1 to \(version)"
            }
            return "not a flipaudit checkpoint"
        }
        var watermark: Int64?, key: [UInt8]?, serial: Int?, run: Int?
        var files: [String] = []
        var sessions: [CarriedSession] = []
        var closed: [Int] = []
        var states: [Remembered] = []
        var codes: [Remembered] = []
        var records: [Remembered] = []
        var audited: [AuditedFile] = []
        var totals: [RunTotals] = []
        var waiting: [(line: Int, bytes: ArraySlice<UInt8>)] = []
        var locations: [Int: LocationLines] = [:]
        var follow = FollowState()
        func count(_ field: ArraySlice<UInt8>, _ name: String) throws(TextFields.Malformed) -> Int {
            let n = try F.number(field, name)
            guard (0...countBound).contains(n) else { throw TextFields.Malformed(reason: "\(name) out of range") }
            return Int(n)
        }
        func once<T>(_ value: T?, _ name: String) throws(TextFields.Malformed) {
            guard value == nil else { throw TextFields.Malformed(reason: "a second \(name) line") }
        }
        do {
            try SealedText.read(bytes, header: header) { tag, rest, number throws(TextFields.Malformed) in
                switch tag {
                case "clock" where v1, "watermark" where !v1:
                    try once(watermark, tag)
                    watermark = try F.time(rest, tag)
                case "run" where !v1:
                    try once(run, tag)
                    run = try count(rest, "run")
                case "key":
                    try once(key, tag)
                    let text = try F.text(rest)
                    guard let k = unhex(text), k.count == 32 else { throw TextFields.Malformed(reason: "bad key") }
                    key = k
                case "serial":
                    try once(serial, tag)
                    serial = try count(rest, "serial")
                case "file":
                    let f = try F.split(rest, count: 2)
                    guard try F.number(f[0], "file index") == Int64(files.count) else { throw TextFields.Malformed(reason: "files out of order") }
                    files.append(try F.text(f[1]))
                case "session":
                    sessions.append(try CarriedSession.decode(rest, files: files.count))
                case "closed" where isFollow:
                    closed.append(try count(rest, "closed serial"))
                case "state", "code",
                    "record" where !v1 || tag != "record":
                    let r = try Remembered.schema.read(rest)
                    switch tag {
                    case "state": states.append(r)
                    case "code": codes.append(r)
                    default: records.append(r)
                    }
                case "audited" where !v1:
                    audited.append(try AuditedFile.schema.read(rest))
                case "totals" where !v1:
                    let f = try F.split(rest, count: 3)
                    let n = try count(f[0], "run")
                    guard n > (totals.last?.run ?? 0) else { throw TextFields.Malformed(reason: "totals out of order") }
                    guard totals.count < RunTotals.kept else { throw TextFields.Malformed(reason: "more than \(RunTotals.kept) totals") }
                    totals.append(try RunTotals.decode(run: n, started: try F.time(f[1], "start"), body: try F.text(f[2])))
                // A legacy chain (version 2) writes these too, as it goes on.
                case "location" where !v1 && !v3:
                    let f = try F.split(rest, count: 3)
                    let i = try count(f[0], "file index")
                    guard i < files.count, locations[i] == nil else { throw TextFields.Malformed(reason: "location names no listed file, or one twice") }
                    func first(_ field: ArraySlice<UInt8>) throws(TextFields.Malformed) -> Int64? {
                        guard !field.isEmpty else { return nil }
                        let n = try count(field, "line")
                        guard n >= 1 else { throw TextFields.Malformed(reason: "line out of range") }
                        return Int64(n)
                    }
                    locations[i] = LocationLines(text: try first(f[1]), json: try first(f[2]))
                case "event" where !v1 && !v3:
                    waiting.append((number, rest))
                case _ where isFollow:
                    guard try follow.read(tag, rest, files: files.count) else {
                        throw TextFields.Malformed(reason: "unknown record \(Quote.text(tag))")
                    }
                default:
                    throw TextFields.Malformed(reason: "unknown record \(Quote.text(tag))")
                }
            }
        } catch {
            throw Damaged(description: error.line.map { "line \($0): " + error.reason } ?? error.reason)
        }
        guard let watermark, let key, let serial, v1 || run != nil else {
            throw Damaged(description: "\(v1 ? "clock" : "watermark"), key, serial or run missing")
        }
        guard sessions.allSatisfy({ $0.serial < serial }) else { throw Damaged(description: "a session's serial is not below the next serial") }
        guard closed.allSatisfy({ $0 < serial }) else { throw Damaged(description: "a closed serial is not below the next serial") }
        guard audited.allSatisfy({ $0.run <= run ?? 0 }) else { throw Damaged(description: "an audited file's run is past the checkpoint's run") }
        guard (totals.last?.run ?? 0) <= (run ?? 0) else { throw Damaged(description: "a run's totals are past the checkpoint's run") }
        // Waiting records are read as the next run will read them; each
        // lies past the watermark, in a listed file.
        var codec = EventCodec(allowlist: Allowlist(), fingerprint: v2 ? .legacyKeyed(key) : .keyed(key))
        for (number, bytes) in waiting {
            do throws(TextFields.Malformed) {
                guard bytes.withUnsafeBytes({ Bytes.find(0, in: $0) }) == nil else { throw TextFields.Malformed(reason: "a raw NUL byte") }
                let event = try codec.decode(bytes)
                guard event.time > watermark else { throw TextFields.Malformed(reason: "a waiting record not past the watermark") }
                guard Int(event.source.file) < files.count else { throw TextFields.Malformed(reason: "source names no listed file") }
            } catch {
                throw Damaged(description: "line \(number): \(error)")
            }
        }
        var checkpoint = Checkpoint(
            watermark: watermark, key: key, serial: serial, run: run ?? 0, files: files, sessions: sessions,
            endedStates: states, returnedCodes: codes, records: records, audited: audited, totals: totals,
            waiting: waiting.map { Array($0.bytes) }, locations: locations)
        checkpoint.legacyFingerprints = v1 || v2
        if isFollow { checkpoint.follow = follow }
        checkpoint.closed = closed
        return checkpoint
    }

    /// `body` (the lines before the end line) under a valid end line: lets
    /// the fuzzer reach the field checks behind the seal.
    package static func sealing(_ body: [UInt8]) -> [UInt8] {
        var content = body
        if content.last != .newline { content.append(.newline) }
        return SealedText.seal(content, lines: content.lazy.filter { $0 == .newline }.count)
    }

    package static func unhex(_ text: String) -> [UInt8]? {
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

    // MARK: Numbering

    /// The checkpoint with its sessions in the order a tracker takes them
    /// in (first seen, then serial) and its files numbered by first use in
    /// them, files no session names left out: a follower numbers files by
    /// rank as it goes (so that its journal's commits agree); what it
    /// reads back is numbered afresh, and equal checkpoints are equal
    /// bytes. One with waiting records or location lines (a nightly one)
    /// is left as it is.
    package func renumbered() -> Checkpoint {
        guard waiting.isEmpty, locations.isEmpty else { return self }
        var next = self
        next.sessions = sessions.sorted { ($0.firstSeen, $0.serial) < ($1.firstSeen, $1.serial) }
        var numbering = FileNumbering(names: files)
        // The order `Session.carried` maps them in.
        for k in next.sessions.indices {
            next.sessions[k].firstSource = numbering.map(next.sessions[k].firstSource)
            if let r = next.sessions[k].firstReturn { next.sessions[k].firstReturn = r.from(numbering.map(r.source)) }
            if let f = next.sessions[k].failure { next.sessions[k].failure = (f.status, f.time, numbering.map(f.source)) }
        }
        next.files = numbering.files
        if var follow {
            var sources: [Int: UInt64] = [:]
            for (i, rank) in numbering.old.enumerated() { if let f = follow.sources[Int(rank)] { sources[i] = f } }
            follow.sources = sources
            next.follow = follow
        }
        return next
    }

    // MARK: Files

    /// Reads FILE: nil when it does not exist; an error when it cannot be
    /// read or is damaged.
    package static func load(_ path: String) throws(Damaged) -> Checkpoint? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Damaged(description: "cannot be read: \(String(cString: strerror(errno)))")
        }
        return try decode(Array(data))
    }
}
