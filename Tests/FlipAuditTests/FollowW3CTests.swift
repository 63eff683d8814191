import Foundation
import Testing

/// IIS (W3C) logs name their columns in a `#Fields:` header at the top: a
/// follower that opens one past its start (a restart, a fresh start from
/// the end) reads the header before, or every line after is malformed
/// until IIS starts a new file.
@Suite("flipaudit follow: W3C headers")
struct FollowW3CTests {
    /// Two authorize requests of one state in IIS's columns, logged now.
    private static func reuse(_ state: String) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy-MM-dd HH:mm:ss"
        let parts = authorize(state: state).split(separator: "?", maxSplits: 1).map(String.init)
        let (stem, query) = (parts[0], parts[1])
        return (1...2).map { n in
            "\(f.string(from: Date())) 203.0.113.9 GET \(stem) \(query) 302 \(opa)?code=\(state)\(n)&state=\(state)\r\n"
        }.joined()
    }

    private static func append(_ text: String, to path: String) throws {
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(text.utf8))
        try handle.close()
    }

    private static func reused(_ findings: String) -> Set<String> {
        let text = (try? String(contentsOfFile: findings, encoding: .utf8)) ?? ""
        return Set(
            text.split(separator: "\n").compactMap { line in
                guard line.contains("\"kind\":\"state-reuse\""), let r = line.range(of: "\"state\":\"") else { return nil }
                return String(line[r.upperBound...].prefix { $0 != "\"" })
            })
    }

    @Test("restarted, and started fresh from the end: the lines after are read with the header's columns")
    func headerCarried() throws {
        let dir = temporaryDirectory()
        let log = dir + "/u_ex261207.log"
        let header =
            "#Software: Microsoft Internet Information Services 10.0\r\n#Version: 1.0\r\n"
            + "#Fields: date time c-ip cs-method cs-uri-stem cs-uri-query sc-status Location\r\n"
        try Data((header + Self.reuse("first")).utf8).write(to: URL(fileURLWithPath: log))
        let checkpoint = dir + "/follow.ckpt"
        let findings = dir + "/findings.ndjson"
        let arguments = ["--checkpoint", checkpoint, "--findings", findings, log]
        let first = try FollowerProcess(["--from-start"] + arguments)
        #expect(waitUntil(60) { Self.reused(findings) == ["first"] })
        #expect(first.stop() == 0)
        try Self.append(Self.reuse("restarted"), to: log)
        let second = try FollowerProcess(arguments)
        #expect(waitUntil(60) { Self.reused(findings) == ["first", "restarted"] }, "\(second.stderr)")
        #expect(second.stop() == 0)
        #expect(!second.stderr.contains("malformed"), "\(second.stderr)")
        // A fresh follower (no checkpoint yet) starts from the end.
        let fresh = dir + "/fresh.ckpt"
        let freshFindings = dir + "/fresh.ndjson"
        let third = try FollowerProcess(["--checkpoint", fresh, "--findings", freshFindings, log])
        #expect(waitUntil(60) { FileManager.default.fileExists(atPath: fresh) })
        try Self.append(Self.reuse("later"), to: log)
        #expect(waitUntil(60) { Self.reused(freshFindings) == ["later"] }, "\(third.stderr)")
        #expect(third.stop() == 0)
        #expect(!third.stderr.contains("malformed"), "\(third.stderr)")
    }
}
