import Foundation
import Testing

@testable import Parsing

/// One row per format: the table every part reads, and the docs rendered
/// from it.
@Suite struct FormatTableTests {
    @Test func oneRowPerFormatInItsOrder() {
        #expect(FormatTable.rows.map(\.format) == RecordFormat.allCases)
        #expect(Set(FormatTable.rows.map(\.name)).count == RecordFormat.allCases.count)
        for row in FormatTable.rows { #expect(FormatTable.row(named: row.name)?.format == row.format) }
        // What only the JSON parser reads is marked by key paths.
        for row in FormatTable.rows where row.format != .json { #expect(row.keys.isEmpty == (row.reader != .json), "\(row.name)") }
    }

    /// docs/formats.md's "Every format" and key-path tables are the
    /// table's rows: a row changed without its docs fails here.
    @Test func docsAreTheTable() throws {
        let docs = try String(contentsOfFile: docsFolder + "/formats.md", encoding: .utf8)
        let lines = Set(docs.split(separator: "\n").map(String.init))
        for row in FormatTable.rows { #expect(lines.contains(row.documentation), "\(row.documentation)") }
        for line in FormatTable.keyDocumentation { #expect(lines.contains(line), "\(line)") }
        // And nothing else stands in those tables.
        let section = docs.components(separatedBy: "## Every format")[1].components(separatedBy: "\n## ")[0]
        let formatRows = section.split(separator: "\n").filter { $0.hasPrefix("| `") && !$0.hasPrefix("| `--format`") }
        #expect(formatRows.count == FormatTable.rows.count)
    }

    /// A JSON line with keys of two shapes is read by the higher row's key:
    /// the JSON parser's order is the table's.
    @Test func jsonKeysFollowTheRows() throws {
        var parser = JSONLineParser(maxLine: 4096)
        var record = LogRecord()
        let line = #"{"ts":1795876939.5,"request":{"uri":"/a?state=1","method":"GET"},"status":302,"RequestPath":"/b"}"#
        let failure = line.utf8CString.withUnsafeBytes { parser.parse(UnsafeRawBufferPointer(rebasing: $0.dropLast()), into: &record) }
        #expect(failure == nil)
        #expect(parser.shape == .caddy)
        #expect(String(decoding: record.target, as: UTF8.self) == "/a?state=1")
    }
}
