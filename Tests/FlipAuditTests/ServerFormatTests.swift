import Foundation
import Testing

@testable import Audit
@testable import Parsing
@testable import Rules

/// Logs written by real servers (Debian's nginx, apache2, caddy, haproxy,
/// lighttpd and h2o, by `Tools/real-servers.sh`) and vendors' documented
/// example lines with App Flip requests put in (Fixtures/formats): each
/// read in its own format, with the sessions and findings its traffic holds.
@Suite("Every server's format")
struct ServerFormatTests {
    /// The servers' logs that log the Location, one per server, each with
    /// its own state prefix.
    static let withLocation = [
        "nginx-main-location.log.gz": "ngx", "apache-flip.log.gz": "apa", "caddy.log.gz": "cdy",
        "haproxy-raw.log.gz": "hap", "lighttpd-location.log.gz": "lgl", "h2o-location.log.gz": "h2o",
    ]
    /// Their logs in the stock formats that cannot hold it.
    static let withoutLocation = [
        "nginx-combined.log.gz": "ngx", "apache-vhost-combined.log.gz": "apa", "lighttpd-default.log.gz": "lgd",
        "h2o-default.log.gz": "h2o",
    ]

    static func configuration() -> AuditConfiguration {
        var c = AuditConfiguration()
        c.futureAfter = Int64.max
        return c
    }

    /// Each session as (state, outcome, error) and the findings as
    /// (kind, state), over the run.
    static func sessions(_ audit: Audit) -> [String: (Outcome, String)] {
        Dictionary(audit.sessions.map { ($0.state, ($0.outcome, $0.error)) }, uniquingKeysWith: { a, _ in a })
    }

    @Test("one run over six servers' logs finds each flow's session and every finding, in every format")
    func everyServerInOneRun() throws {
        let paths = Self.withLocation.keys.sorted().map { fixture("servers/" + $0) }
        let audit = try Audit.run(paths, Self.configuration())
        let sessions = Self.sessions(audit)
        for (file, p) in Self.withLocation {
            let at = "\(file)"
            #expect(sessions["\(p)-code"]?.0 == .code, "\(at)")
            #expect(sessions["\(p)-deny"]?.0 == .error && sessions["\(p)-deny"]?.1 == "access_denied", "\(at)")
            #expect(sessions["\(p)-lookalike"]?.0 == .code, "\(at)")
            #expect(sessions["\(p)-fail"]?.0 == .failed, "\(at)")
            #expect(sessions["reuse-\(p)-1"]?.0 == .code && sessions["reuse-\(p)-2"]?.0 == .code, "\(at)")
            let long = "\(p)-long-" + String(repeating: "a", count: 700)
            // HAProxy cut that line at 1024 bytes: no record, no session.
            #expect((sessions[long]?.0 == .code) == (p != "hap"), "\(at)")
            func found(_ kind: FindingKind, _ state: String) -> Bool { audit.findings.contains { $0.kind == kind && $0.state == state } }
            #expect(found(.codeToUnlistedRedirect, "\(p)-lookalike"), "\(at)")
            #expect(found(.redirectNotAllowlisted, "\(p)-lookalike"), "\(at)")
            #expect(found(.missingErrorReturn, "\(p)-fail"), "\(at)")
        }
        // Every server returned its own reuse code twice: once too often.
        #expect(audit.count(.codeReuse) == 6)
        #expect(audit.count(.codeToUnlistedRedirect) == 6 && audit.count(.missingErrorReturn) == 6)
        #expect(audit.kinds() == [.codeToUnlistedRedirect, .redirectNotAllowlisted, .missingErrorReturn, .codeReuse])
        #expect(!audit.sessions.contains { $0.outcome == .unobservable })
        // The cut line is named as such, a flip request; HAProxy's own stop
        // notice is no request: a notice, not a malformed line.
        #expect(audit.accounting.malformedByReason[MalformedReason.truncated.rawValue] == 1)
        #expect(audit.accounting.malformedExamples.contains { $0.hasSuffix("haproxy-raw.log.gz:5: malformed line (truncated by its writer, a flip record)") })
        #expect(audit.accounting.malformedLines == 1)
        #expect(audit.accounting.notices >= 1 && audit.accounting.noticesByKind.keys.sorted() == ["HAProxy notice"])
        let formats = Dictionary(uniqueKeysWithValues: audit.files.map { (URL(fileURLWithPath: $0.name).lastPathComponent, $0.format) })
        #expect(formats["caddy.log.gz"] == "caddy" && formats["haproxy-raw.log.gz"] == "haproxy" && formats["apache-flip.log.gz"] == "combined")
        #expect(audit.files.allSatisfy { $0.logsLocation })
    }

    @Test("the same traffic gives the same sessions and findings whatever server wrote it")
    func sameTrafficSameAnswer() throws {
        func story(_ file: String, _ prefix: String) throws -> Set<String> {
            let audit = try Audit.run([fixture("servers/" + file)], Self.configuration())
            let sessions = audit.sessions.filter { !$0.state.contains("-long-") }.map {
                "\($0.state.replacingOccurrences(of: prefix, with: "P")) \($0.outcome) \($0.error) \($0.findings.map(\.rawValue).sorted())"
            }
            let findings = audit.findings.filter { !$0.state.contains("-long-") }.map {
                "\($0.kind.rawValue) \($0.state.replacingOccurrences(of: prefix, with: "P"))"
            }
            return Set(sessions + findings)
        }
        let reference = try story("nginx-main-location.log.gz", "ngx")
        #expect(reference.count > 8)
        for (file, p) in Self.withLocation.sorted(by: { $0.key < $1.key }) {
            #expect(try story(file, p) == reference, "\(file)")
        }
        // The syslog-framed HAProxy log reads as the raw one.
        #expect(try story("haproxy-syslog.log.gz", "hap") == reference)
    }

    @Test("stock formats without a Location: sessions unobservable, the client the request's own")
    func stockFormats() throws {
        for (file, p) in Self.withoutLocation.sorted(by: { $0.key < $1.key }) {
            let audit = try Audit.run([fixture("servers/" + file)], Self.configuration())
            let sessions = Self.sessions(audit)
            #expect(sessions["\(p)-code"]?.0 == .unobservable && sessions["\(p)-lookalike"]?.0 == .unobservable, "\(file)")
            #expect(sessions["\(p)-fail"]?.0 == .failed, "\(file)")
            #expect(audit.kinds() == [.redirectNotAllowlisted, .missingErrorReturn], "\(file)")
            // vhost_combined's first field and lighttpd's second are hosts.
            #expect(audit.sessions.allSatisfy { $0.clientIP == "127.0.0.1" }, "\(file)")
            #expect(audit.accounting.malformedLines == 0 && audit.files.allSatisfy { !$0.logsLocation })
        }
    }

    @Test("vendors' documented lines: Envoy, Traefik JSON and CLF, Google Cloud, Cloudflare, ALB")
    func documentedFormats() throws {
        func run(_ file: String) throws -> Audit { try Audit.run([fixture("formats/" + file)], Self.configuration()) }
        for (file, prefix, format) in [
            ("envoy.log.gz", "env", "envoy"), ("traefik.json.gz", "trf", "traefik"), ("cloudflare.json.gz", "cfl", "cloudflare"),
        ] {
            let audit = try run(file)
            let sessions = Self.sessions(audit)
            #expect(sessions["\(prefix)-code"]?.0 == .code && sessions["\(prefix)-lookalike"]?.0 == .code, "\(file)")
            #expect(audit.findings.contains { $0.kind == .codeToUnlistedRedirect && $0.state == "\(prefix)-lookalike" }, "\(file)")
            #expect(audit.files.first?.format == format && audit.files.first?.logsLocation == true, "\(file)")
            #expect(audit.sessions.allSatisfy { $0.clientIP == "203.0.113.9" }, "\(file)")
        }
        // Cloudflare's bare example has no request fields: malformed, said so.
        #expect(try run("cloudflare.json.gz").accounting.malformedByReason == [MalformedReason.noRequestFields.rawValue: 1])
        // Formats that cannot log a Location: unobservable, and the look-alike
        // request is still flagged.
        for (file, prefix, format) in [("gcloud.json.gz", "gcl", "gcloud"), ("alb.log.gz", "alb", "alb"), ("traefik-clf.log.gz", "trc", "combined")] {
            let audit = try run(file)
            #expect(Self.sessions(audit)["\(prefix)-code"]?.0 == .unobservable, "\(file)")
            #expect(audit.files.first?.format == format && audit.files.first?.logsLocation == false, "\(file)")
            #expect(audit.accounting.malformedLines == 0, "\(file)")
            #expect(audit.sessions.allSatisfy { $0.clientIP == "203.0.113.9" }, "\(file)")
        }
        #expect(try run("gcloud.json.gz").findings.map(\.kind) == [.redirectNotAllowlisted])
    }

    @Test("W3C logs: IIS (its header again mid-file, CRLF, --tz) and CloudFront; a header cut pieces before its lines")
    func w3cLogs() throws {
        func run(_ paths: [String], _ configure: (inout AuditConfiguration) -> Void = { _ in }) throws -> Audit {
            var c = Self.configuration()
            configure(&c)
            return try Audit.run(paths, c)
        }
        let iis = try run([fixture("formats/iis.log.gz")])
        let sessions = Self.sessions(iis)
        // Read by the second header's columns (Location before the
        // User-Agent), the look-alike's code is seen going out.
        #expect(sessions["iis-code"]?.0 == .code && sessions["iis-lookalike"]?.0 == .code)
        #expect(iis.findings.contains { $0.kind == .codeToUnlistedRedirect && $0.state == "iis-lookalike" })
        #expect(iis.files.first?.format == "iis" && iis.files.first?.logsLocation == true)
        #expect(iis.sessions.allSatisfy { $0.clientIP == "203.0.113.9" })
        // Directive lines are not records and not malformed.
        #expect(iis.accounting.records == 3 && iis.accounting.malformedLines == 0 && iis.accounting.blankLines == 8)
        // IIS times are read in --tz; CloudFront's are UTC whatever it says.
        let shifted = try run([fixture("formats/iis.log.gz"), fixture("formats/cloudfront.log.gz")]) { $0.zone = AuditConfiguration.zone(named: "+01:00") }
        let start = Dictionary(shifted.sessions.map { ($0.state, Timestamp.iso8601($0.firstSeen)) }, uniquingKeysWith: { a, _ in a })
        #expect(start["iis-code"] == "2026-11-22T09:00:01.000Z" && start["cfr-code"] == "2026-11-22T10:00:01.000Z")
        let cloudfront = try run([fixture("formats/cloudfront.log.gz")])
        #expect(Self.sessions(cloudfront)["cfr-code"]?.0 == .unobservable)
        #expect(cloudfront.files.first?.format == "cloudfront" && cloudfront.files.first?.logsLocation == false)
        #expect(cloudfront.findings.map(\.kind) == [.redirectNotAllowlisted])
        // Its query's second layer of encoding (`%253A`) undone: the
        // redirect_uri as the client sent it.
        #expect(cloudfront.sessions.first { $0.state == "cfr-code" }?.redirectURI == opa)
        #expect(cloudfront.sessions.allSatisfy { $0.clientIP == "203.0.113.9" } && cloudfront.accounting.malformedLines == 0)

        // A header several pieces (and threads) ahead of its lines still
        // names their columns; lines before any header are malformed, said
        // why.
        let dir = temporaryDirectory()
        let lines = try gunzip(fixture("formats/iis.log.gz"))
        let filler = (0..<40_000).map {
            "2026-11-22 09:\(10 + $0 / 1000 % 50):00 10.0.0.5 GET /img/\($0).png - 80 - 198.51.100.\($0 % 250) Mozilla/5.0 - 200 0 0 3 -"
        }
        let big = writeLog(Array(lines[0..<4]) + filler + Array(lines[4...]), named: "big.log.gz", in: dir)
        let carried = try run([big])
        #expect(Self.sessions(carried)["iis-code"]?.0 == .code && Self.sessions(carried)["iis-lookalike"]?.0 == .code)
        #expect(carried.accounting.malformedLines == 0 && carried.accounting.records == 40_003)
        let headless = writeLog(Array(lines[4...5]), named: "headless.log", in: dir)
        let blind = try run([headless])
        #expect(blind.accounting.malformedByReason == [MalformedReason.noFieldsHeader.rawValue: 2])
    }

    @Test("every format's lines read in one stream give the sessions of each read alone")
    func mixedStream() throws {
        let dir = temporaryDirectory()
        var lines: [String] = []
        var alone: [String: (Outcome, String)] = [:]
        for file in ["envoy.log.gz", "traefik.json.gz", "cloudflare.json.gz", "gcloud.json.gz", "alb.log.gz", "iis.log.gz", "cloudfront.log.gz"] {
            let path = fixture("formats/" + file)
            lines += try gunzip(path)
            for (k, v) in Self.sessions(try Audit.run([path], Self.configuration())) { alone[k] = v }
        }
        for file in ["nginx-main-location.log.gz", "caddy.log.gz", "haproxy-syslog.log.gz", "apache-vhost-combined.log.gz"] {
            let path = fixture("servers/" + file)
            lines += try gunzip(path)
            for (k, v) in Self.sessions(try Audit.run([path], Self.configuration())) { alone[k] = v }
        }
        let mixed = writeLog(lines, named: "mixed.log", in: dir)
        let audit = try Audit.run([mixed], Self.configuration())
        let together = Self.sessions(audit)
        // One input judges the Location per kind of line, text or JSON
        // (docs/formats.md): in it, the formats that cannot log one (ALB,
        // Google Cloud, stock vhost_combined) are judged by their siblings
        // that do, and are left out of the comparison.
        let blind = ["alb-", "gcl-", "apa-", "reuse-apa", "cfr-"]
        var compared = 0
        for (state, value) in alone where !blind.contains(where: { state.hasPrefix($0) }) {
            #expect(together[state]?.0 == value.0 && together[state]?.1 == value.1, "\(state)")
            compared += 1
        }
        #expect(compared >= 20)
        #expect(audit.files.first?.format == "mixed")
    }

    func gunzip(_ path: String) throws -> [String] {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "gzip -dc \"$0\"", path]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        // Split as bytes: a String reads "\r\n" as one Character.
        return data.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast().map { String(decoding: $0, as: UTF8.self) }
    }
}
