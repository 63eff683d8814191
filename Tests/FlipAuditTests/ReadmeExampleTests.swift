import Foundation
import Testing

/// README.md's "On call" example runs on the samples with the samples' own
/// IDs (those of docs/flipaudit.example.toml), so what it shows is true: a
/// placeholder client ID would make nearly every returned code a critical
/// `code-despite-client-mismatch`.
@Suite("README examples")
struct ReadmeExampleTests {
    /// The values of `--NAME VALUE` in `text`.
    func values(_ name: String, in text: String) -> [String] {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\\" }).map(String.init)
        return words.indices.dropLast().filter { words[$0] == "--" + name }.map { words[$0 + 1] }
    }

    @Test("the On call command uses the samples' IDs and raises only the samples' planted client mismatches")
    func onCall() throws {
        let readme = try String(contentsOfFile: docsFolder + "/../README.md", encoding: .utf8)
        let start = try #require(readme.range(of: "**On call.**"))
        let block = String(readme[start.upperBound...].prefix(700))
        let toml = try String(contentsOfFile: docsFolder + "/flipaudit.example.toml", encoding: .utf8)
        let clientIDs = values("client-id", in: block), projectIDs = values("project-id", in: block)
        #expect(!clientIDs.isEmpty && !projectIDs.isEmpty)
        for id in clientIDs + projectIDs { #expect(toml.contains("\"\(id)\""), "\(id) is not the example TOML's") }

        let args = clientIDs.flatMap { ["--client-id", $0] } + projectIDs.flatMap { ["--project-id", $0] }
        let run = try runCLI([sampleLogs, "--json", "-"] + args)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let outcomes = try #require(json["outcomes"] as? [String: Int])
        let kinds = try #require((json["findings"] as? [String: Any])?["by_kind"] as? [[String: Any]])
        let despite = kinds.first { $0["kind"] as? String == "code-despite-client-mismatch" }?["count"] as? Int ?? 0
        // A handful planted in the samples, not one per code.
        #expect(despite * 50 < (outcomes["code"] ?? 0), "\(despite) of \(outcomes["code"] ?? 0) codes")
    }
}
