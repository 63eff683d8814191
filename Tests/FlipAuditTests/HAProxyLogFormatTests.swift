import Foundation
import Testing

@testable import Audit
@testable import Parsing
@testable import Rules

/// A pasted HAProxy `log-format` (`--log-format`), read from what a real
/// HAProxy 2.6 wrote (Fixtures/formats/SOURCE.md).
@Suite struct HAProxyLogFormatTests {
    static let custom = #"log-format "%ci [%T] %HM %{+Q}HU %ST %B %[capture.res.hdr(0)] %tsc""#
    static let httplog =
        #"log-format "%ci:%cp [%tr] %ft %b/%s %TR/%Tw/%Tc/%Tr/%Ta %ST %B %CC %CS %tsc %ac/%fc/%bc/%sc/%rc %sq/%bq %hr %hs %{+Q}r""#
    /// 2026-12-07T18:26:28Z, when HAProxy wrote the fixtures.
    static let written: Int64 = 1_796_667_988_000

    static func run(_ file: String, _ format: String?, zone: String? = nil) throws -> Audit {
        var c = AuditConfiguration()
        c.futureAfter = Int64.max
        if let format { c.format = .logFormat(format) }
        if let zone { c.zone = AuditConfiguration.zone(named: zone) }
        return try Audit.run([fixture("formats/" + file)], c)
    }

    @Test("a custom log-format: client, zoned time, method and quoted URI, status, a captured Location")
    func customFormat() throws {
        let audit = try Self.run("haproxy-log-format.log.gz", Self.custom)
        #expect(audit.accounting.malformedLines == 0 && audit.accounting.records == 8)
        #expect(audit.files.first?.format == "haproxy" && audit.files.first?.logsLocation == true)
        let sessions = ServerFormatTests.sessions(audit)
        for i in 1...6 { #expect(sessions["cust-\(i)"]?.0 == .code, "cust-\(i)") }
        #expect(sessions["cust-bad"]?.0 == .error && sessions["cust-bad"]?.1 == "unauthorized_client")
        #expect(audit.kinds() == [.nonstandardError, .unknownState])
        #expect(audit.sessions.allSatisfy { $0.clientIP == "127.0.0.1" })
        // %T carries its zone (+0000): the times are UTC whatever --tz says.
        let berlin = try Self.run("haproxy-log-format.log.gz", Self.custom, zone: "Europe/Berlin")
        #expect(berlin.sessions.map(\.firstSeen) == audit.sessions.map(\.firstSeen))
        #expect(audit.sessions.allSatisfy { $0.firstSeen / 1000 == Self.written / 1000 })
    }

    @Test("option httplog's own format pasted reads what the built-in parser reads, behind an RFC 5424 header")
    func httplogSpelledOut() throws {
        let pasted = try Self.run("haproxy-log-format-rfc5424.log.gz", Self.httplog)
        let builtIn = try Self.run("haproxy-log-format-rfc5424.log.gz", nil)
        #expect(pasted.sessions.count == 6 && pasted.accounting.malformedLines == 0)
        #expect(pasted.csv == builtIn.csv)
        // The header's +00:00 gave the zone: --tz changes nothing.
        let zoned = try Self.run("haproxy-log-format-rfc5424.log.gz", Self.httplog, zone: "-05:00")
        #expect(zoned.csv == pasted.csv)
    }

    /// One line of the custom fixture, behind `header`, as a record.
    static func read(_ header: String, zone: String? = nil, format: String = httplog) throws -> Parsed {
        let line =
            header
            + #"127.0.0.1:35630 [07/Dec/2026:18:26:28.679] httplogfmt app/s1 0/0/0/0/0 302 209 - - ---- 1/1/0/0/0 0/0 {127.0.0.1:18612} {https://oauth-redirect.googleusercontent.com/a/com.google.OPA?code=c-h5-1&state=h5-1} "GET /oauth/authorize?state=h5-1&x=#22 HTTP/1.1""#
        var reader = try RecordReader(.logFormat(format), maxLine: 4096, zone: zone.flatMap(AuditConfiguration.zone(named:)))
        var bytes = Array(line.utf8)
        return try bytes.withUnsafeMutableBytes { raw in
            if let failure = reader.read(UnsafeRawBufferPointer(raw), escapes: true) { throw ParseFailure(reason: failure) }
            return Parsed(reader.record)
        }
    }

    @Test("%tr has no zone: a syslog header's, else --tz, else UTC; #XX decoded; the Location captured on a 3xx")
    func zonesAndHeaders() throws {
        let utc = Self.written + 679
        let raw = try Self.read("")
        #expect(raw.time == utc && raw.ip == "127.0.0.1" && raw.status == 302 && raw.method == "GET")
        #expect(raw.target == #"/oauth/authorize?state=h5-1&x=""#)
        #expect(raw.location == "https://oauth-redirect.googleusercontent.com/a/com.google.OPA?code=c-h5-1&state=h5-1")
        #expect(try Self.read("", zone: "+01:00").time == utc - 3_600_000)
        #expect(try Self.read("Dec  7 18:26:28 lb haproxy[812]: ").time == utc)
        #expect(try Self.read("<134>Dec  7 18:26:28 lb haproxy[812]: ", zone: "-02:00").time == utc + 7_200_000)
        #expect(try Self.read("<134>2026-12-07T19:26:28.680+01:00 lb haproxy[812]: ", zone: "-02:00").time == utc - 3_600_000)
        #expect(try Self.read("<134>1 2026-12-07T18:26:28.679894+00:00 - haproxy 18125 - - ", zone: "+03:00").time == utc)
    }

    @Test("HAProxy's own notices, with a syslog header or without, are notices under a pasted format, never records")
    func notices() {
        let lines = [
            "Proxy httplogfmt stopped (cumulated conns: FE: 6, BE: 0).",
            "Dec  7 18:26:30 lb haproxy[812]: Proxy httplogfmt stopped (cumulated conns: FE: 6, BE: 0).",
        ]
        let audit = audit(lines) { $0.format = .logFormat(Self.httplog) }
        #expect(audit.accounting.records == 0 && audit.accounting.notices == 2 && audit.accounting.malformedLines == 0)
    }

    @Test("the syntax is told by its variables; what HAProxy does not know is refused, named")
    func syntax() throws {
        let parser = try LogFormatParser(logFormat: Self.httplog, maxLine: 4096)
        #expect(parser.syntax == .haproxy && parser.logsLocation)
        #expect(try LogFormatParser(logFormat: "%ci [%tr] %ST %{+Q}r", maxLine: 4096).syntax == .haproxy)
        #expect(try LogFormatParser(logFormat: #"%h %l %u %t "%r" %>s %b"#, maxLine: 4096).syntax == .apache)
        #expect(throws: ConfigurationError.logFormat("%zz is not an HAProxy log-format variable")) {
            try LogFormatParser(logFormat: "%ci [%tr] %ST %zz %{+Q}r", maxLine: 4096)
        }
        #expect(throws: ConfigurationError.logFormat("the format has no %ST")) {
            try LogFormatParser(logFormat: "%ci [%tr] %{+Q}r", maxLine: 4096)
        }
        #expect(throws: ConfigurationError.logFormat("two variables with no text between them (%cp) cannot be told apart")) {
            try LogFormatParser(logFormat: "%ci%cp [%tr] %ST %{+Q}r", maxLine: 4096)
        }
        #expect(throws: ConfigurationError.logFormat("%[capture.res.hdr(0) %ST: a %[ with no closing ]")) {
            try LogFormatParser(logFormat: "%ci [%tr] %[capture.res.hdr(0) %ST", maxLine: 4096)
        }
        #expect(throws: ConfigurationError.logFormat("%: a % with no variable name")) {
            try LogFormatParser(logFormat: "%ci [%tr] %ST %: %{+Q}r", maxLine: 4096)
        }
        #expect(throws: ConfigurationError.logFormat("%{+Q r: a %{ with no closing }")) {
            try LogFormatParser(logFormat: "%ci [%tr] %ST %{+Q r", maxLine: 4096)
        }
        // `\ ` for a space, as older configurations write it.
        let escaped = try LogFormatParser(logFormat: #"log-format %ci\ [%tr]\ %ST\ %{+Q}r"#, maxLine: 4096)
        #expect(escaped.pieces == (try LogFormatParser(logFormat: "%ci [%tr] %ST %{+Q}r", maxLine: 4096)).pieces)
        let cli = try runCLI(["--log-format", "%ci [%tr] %ST %zz %{+Q}r", "x.log"])
        #expect(cli.status == 2 && cli.stderr.contains("%zz is not an HAProxy log-format variable"), "\(cli.stderr)")
    }
}
