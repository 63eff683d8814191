import Foundation
import Testing

@testable import Audit
@testable import Reading
@testable import Rules

/// A line type for the facility's own tests.
private struct Visit: Equatable {
    var name: String
    var count: Int
    var source: SourceRef
    var note: String?
    var answer: (status: Int, late: Bool)?

    static func == (a: Self, b: Self) -> Bool {
        (a.name, a.count, a.source, a.note) == (b.name, b.count, b.source, b.note)
            && a.answer?.status == b.answer?.status && a.answer?.late == b.answer?.late
    }

    static let schema = LineSchema<Visit>(
        "visit", blank: Visit(name: "", count: 0, source: SourceRef(file: 0, line: 0), note: nil, answer: nil),
        [
            Field("name", \.name, .text),
            Field("count", \.count, .count(in: 0...99)),
            Field("source", \.source, .source),
            Field("note", \.note, .optionalText),
            .group(
                "answer", \.answer, blank: (0, false), absent: "answer fields without an answer",
                [
                    Field("status", \.status, FieldCodec<Int>.count(in: 100...999, "bad NAME")),
                    Field("late", \.late, .flag),
                ]),
        ])
}

/// A line type whose field is a computed property: no offset to reach it
/// at, so its key path is applied.
private struct Minutes {
    var seconds: Int
    var minutes: Int {
        get { seconds / 60 }
        set { seconds = newValue * 60 }
    }

    static let schema = LineSchema<Minutes>("minutes", blank: Minutes(seconds: 0), [Field("minutes", \.minutes, .count(in: 0...999))])
}

private func seed(_ name: String) -> [UInt8] {
    let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/Corpus/FuzzReadBack").path
    return Array(FileManager.default.contents(atPath: dir + "/" + name)!)
}

private func lines(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
    bytes.split(separator: .newline).map { $0 }
}

private func reason(_ body: () throws(TextFields.Malformed) -> Void) -> String? {
    do throws(TextFields.Malformed) {
        try body()
        return nil
    } catch {
        return error.description
    }
}

@Suite("Line schemas: each field declared once")
struct LineSchemaTests {
    @Test("a value written by its schema is the TextFields line, and reads back the same")
    func roundTrip() throws {
        let visit = Visit(name: "a\tb\\c", count: 7, source: SourceRef(file: 2, line: 9), note: "x", answer: (302, true))
        var out: [UInt8] = []
        Visit.schema.write(visit, into: &out)
        // Escaped text, the source as two columns, `=` before a present
        // optional text, the group's columns in order.
        #expect(String(decoding: out, as: UTF8.self) == "a\\tb\\\\c\t7\t2\t9\t=x\t302\t1")
        #expect(try Visit.schema.read(out[...]) == visit)

        let bare = Visit(name: "", count: 0, source: SourceRef(file: 0, line: 0), note: nil, answer: nil)
        var empty: [UInt8] = []
        Visit.schema.write(bare, into: &empty)
        #expect(String(decoding: empty, as: UTF8.self) == "\t0\t0\t0\t\t\t")
        #expect(try Visit.schema.read(empty[...]) == bare)
        #expect(Visit.schema.columns == 7)
    }

    @Test("a field that is a computed property is written and read through it")
    func computed() throws {
        #expect(MemoryLayout<Minutes>.offset(of: \Minutes.minutes) == nil)
        var out: [UInt8] = []
        Minutes.schema.write(Minutes(seconds: 150), into: &out)
        #expect(out == Array("2".utf8))
        #expect(try Minutes.schema.read(Array("3".utf8)[...]).seconds == 180)
    }

    @Test("a check refuses a value out of range, naming the field")
    func rangeChecks() {
        func read(_ text: String) -> String? { reason { () throws(TextFields.Malformed) in _ = try Visit.schema.read(Array(text.utf8)[...]) } }
        #expect(read("a\t100\t0\t0\t\t\t") == "count out of range")
        #expect(read("a\t-1\t0\t0\t\t\t") == "count out of range")
        #expect(read("a\tx\t0\t0\t\t\t") == "bad count")
        #expect(read("a\t1\t0\t0\t\t99\t0") == "bad status")
        #expect(read("a\t1\t0\t0\t\t\t1") == "answer fields without an answer")
        #expect(read("a\t1\t-1\t0\t\t\t") == "bad source")
        #expect(read("a\t1\t0\t0\tx\t\t") == "optional text without '='")
        #expect(read("a\t1\t0\t0\t\t200\t2") == "bad flag")
        #expect(read("a\t1\t0\t0\t=\t200\t0") == nil)
    }

    @Test("a wrong field count is refused, naming the line type")
    func fieldCount() {
        #expect(reason { () throws(TextFields.Malformed) in _ = try Visit.schema.read(Array("a\t1\t0".utf8)[...]) } == "3 fields, expected 7 (visit line)")
        let long = "a\t1\t0\t0\t\t\t\t"
        #expect(reason { () throws(TextFields.Malformed) in _ = try Visit.schema.read(Array(long.utf8)[...]) } == "8 fields, expected 7 (visit line)")
        #expect(
            reason { () throws(TextFields.Malformed) in _ = try RowCodec.finding(Array("code-reuse\t1".utf8)[...]) }
                == "2 fields, expected 8 (finding row line)")
    }

    @Test("checkpoints written by earlier versions are read and written again byte for byte")
    func checkpointSeeds() throws {
        for name in ["checkpoint-v2", "checkpoint-v2-totals"] {
            let bytes = seed(name)
            #expect(try Checkpoint.decode(bytes).encoded() == bytes, "\(name)")
        }
        // Version 1 is read; its session, state and code lines are written
        // again as they were (the header and the lines version 1 lacks differ).
        let v1 = seed("checkpoint-400-lines")
        let again = lines(try Checkpoint.decode(v1).encoded())
        let tags = ["session\t", "state\t", "code\t", "file\t", "key\t", "serial\t"]
        let kept = lines(v1).filter { line in tags.contains { line.starts(with: $0.utf8) } }
        #expect(kept.count > 15)
        #expect(kept == again.filter { line in tags.contains { line.starts(with: $0.utf8) } })
        // The seed holds a session with a return and one with a failure.
        let v2 = try Checkpoint.decode(seed("checkpoint-v2"))
        #expect(v2.sessions.contains { $0.firstReturn != nil } && v2.sessions.contains { $0.failure != nil })
    }

    @Test("numbers, fingerprints and texts are written as their String forms, escapes as the syntax says")
    func writers() {
        var generator = SystemRandomNumberGenerator()
        var numbers: [Int64] = [0, 1, -1, 9, 10, -10, 99, 100, .max, .min, .max - 1, .min + 1, 1_795_219_314_000]
        for _ in 0..<2000 { numbers.append(Int64.random(in: .min ... .max, using: &generator) >> Int64.random(in: 0...63, using: &generator)) }
        for n in numbers {
            var out: [UInt8] = []
            TextFields.number(n, &out)
            #expect(out == Array(String(n).utf8), "\(n)")
            var hex: [UInt8] = []
            TextFields.hex16(UInt64(bitPattern: n), &hex)
            #expect(hex == Array(Checkpoint.hex(UInt64(bitPattern: n)).utf8))
        }
        let pieces = ["a", "\\", "\t", "\n", "\r", "é", "=", " ", "x\u{0}y", "🙂"]
        for _ in 0..<2000 {
            let text = (0..<Int.random(in: 0...12, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            var out: [UInt8] = []
            TextFields.text(text, &out)
            let escaped = text.utf8.flatMap { b -> [UInt8] in
                switch b {
                case .backslash: return [.backslash, .backslash]
                case .tab: return [.backslash, UInt8(ascii: "t")]
                case .newline: return [.backslash, UInt8(ascii: "n")]
                case .carriageReturn: return [.backslash, UInt8(ascii: "r")]
                case 0: return [.backslash, UInt8(ascii: "0")]
                default: return [b]
                }
            }
            #expect(out == escaped)
            #expect(!out.contains(0))  // `grep` reads the lines as text
            #expect((try? TextFields.text(out[...])) == text)
        }
    }

    @Test("a session line's damage is named as before")
    func sessionLineErrors() throws {
        let line = lines(seed("checkpoint-v2")).first {
            $0.starts(with: "session\t".utf8) && $0.split(separator: .tab, omittingEmptySubsequences: false)[20].isEmpty == false
        }!
        let fields = line.split(separator: .tab, omittingEmptySubsequences: false).dropFirst().map { String(decoding: $0, as: UTF8.self) }
        #expect(fields.count == 27)
        func read(_ change: (inout [String]) -> Void) -> String? {
            var f = fields
            change(&f)
            return reason { () throws(TextFields.Malformed) in _ = try CarriedSession.decode(Array(f.joined(separator: "\t").utf8)[...], files: 1) }
        }
        #expect(read { _ in } == nil)
        #expect(read { $0[19] = "200" } == "bad failure status")
        #expect(read { $0[19] = "" } == "failure fields without a failure")
        #expect(read { $0[21] = "1" } == "source names no listed file")
        #expect(read { $0[11] = "0" } == "inconsistent session")
        #expect(read { $0[1] = "-1" } == "bad serial")
        #expect(read { $0[2] = "9223372036854775807" } == "first seen out of range")
        #expect(read { $0[23] = "no-such-kind" } == "bad finding kind")
        #expect(read { $0[24] = "12" } == "bad code key")
        #expect(read { $0.removeLast() } == "26 fields, expected 27 (session line)")
    }

    @Test("event, row, code and stage event lines of earlier versions are written again byte for byte")
    func lineSeeds() throws {
        var codec = EventCodec(allowlist: AuditConfiguration().allowlist)
        for line in lines(seed("event-lines")) {
            var out: [UInt8] = []
            EventCodec.encode(try codec.decode(line), into: &out)
            #expect(out.dropLast() == line)
        }
        let rows = lines(seed("row-lines"))
        var out: [UInt8] = []
        RowCodec.encode(try RowCodec.session(rows[0]), into: &out)
        RowCodec.encode(try RowCodec.finding(rows[1]), into: &out)
        #expect(lines(out) == rows)
        var codes = 0
        for line in lines(seed("stage-codes")) where line.starts(with: "c:".utf8) {
            var again: [UInt8] = []
            CodeLine.encode(try CodeLine.decode(line), into: &again)
            #expect(again.dropLast() == line)
            codes += 1
        }
        #expect(codes > 3)
        for line in lines(seed("stage-events")) where line.starts(with: "s:".utf8) || line.starts(with: "r:".utf8) {
            var again: [UInt8] = []
            EventLine.encode(try EventLine.decode(line, codec: &codec).event, into: &again)
            #expect(again.dropLast() == line)
        }
    }
}
