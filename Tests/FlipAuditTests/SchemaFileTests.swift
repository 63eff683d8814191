import Foundation
import Testing

@testable import Reports
@testable import Rules

/// docs/schema/flipaudit-report.schema.json names what the code can write:
/// a finding kind, outcome or severity the schema does not list would make
/// a valid report fail validation (CI validates the samples' reports, which
/// need not hold every kind). Tests/schema/run.sh checks the rest.
@Suite("The shipped JSON Schema")
struct SchemaFileTests {
    func schema() throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: docsFolder + "/schema/flipaudit-report.schema.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// The value at a path of object keys.
    func at(_ object: Any, _ path: [String]) -> Any? {
        path.reduce(Optional(object)) { ($0 as? [String: Any])?[$1] }
    }

    @Test("its version is the one the report writes; every kind, outcome and severity is allowed")
    func enums() throws {
        let s = try schema()
        #expect(at(s, ["properties", "schema", "const"]) as? String == JSONReport.schema)
        let kindItem = ["properties", "findings", "properties", "by_kind", "items", "properties"]
        let kinds = Set(try #require(at(s, kindItem + ["kind", "enum"]) as? [String]))
        #expect(Set(FindingKind.allCases.map(\.rawValue)).isSubset(of: kinds))
        let severities = Set(try #require(at(s, kindItem + ["severity", "enum"]) as? [String]))
        #expect(severities == Set(Severity.allCases.map(\.rawValue)))
        let outcomes = Set(try #require(at(s, ["properties", "outcomes", "propertyNames", "enum"]) as? [String]))
        #expect(outcomes == Set(Outcome.allCases.map(\.rawValue)))
    }
}
