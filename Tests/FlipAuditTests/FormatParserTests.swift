import Foundation
import Testing

@testable import Command
@testable import Parsing
@testable import Rules

/// A record through `RecordReader` under `--format auto` (or `setting`):
/// its fields, the format it read as, and whether its Location was in doubt.
func read(_ line: String, _ setting: RecordReader.Setting = .auto, jsonFields: [(role: JSONLineParser.Role, path: String)] = [])
    throws -> (Parsed, RecordFormat, Bool)
{
    var reader = try RecordReader(setting, maxLine: 4096, jsonFields: jsonFields)
    var bytes = Array(line.utf8)
    return try bytes.withUnsafeMutableBytes { raw in
        if let failure = reader.read(UnsafeRawBufferPointer(raw), escapes: true) { throw ParseFailure(reason: failure) }
        let r = reader.record
        let parsed = Parsed(r)
        return (parsed, reader.format, r.locationAmbiguous)
    }
}

private let request = "GET /oauth/authorize?client_id=G123&state=s1 HTTP/1.1"
private let back = "https://oauth-redirect.googleusercontent.com/a/com.google.OPA?code=c1&state=s1"

@Suite("The combined family")
struct CombinedFamilyTests {
    @Test("Varnish cuts a URL at 254 bytes and a Location at 244 (vsl_reclen 255): truncated, never read as a mismatch")
    func varnishCut() throws {
        let host = "http://partner.example"
        func line(_ target: String, _ location: String) -> String {
            #"203.0.113.9 - - [22/Nov/2026:10:00:01 +0000] "GET \#(host)\#(target) HTTP/1.1" 302 0 "-" "GoogleApp/1.0" "\#(location)""#
        }
        let state = String(repeating: "s", count: 300)
        let whole = "/oauth/authorize?client_id=G123&redirect_uri=x&state=\(state)"
        let cutTarget = String(whole.prefix(254))
        #expect(throws: ParseFailure.self) { try read(line(cutTarget, "-")) }
        let cutLocation = String((back + "&pad=" + state).prefix(244))
        #expect(throws: ParseFailure.self) { try read(line("/oauth/authorize?state=s1", cutLocation)) }
        // One byte more or less is a record; so is nginx's path of 254.
        #expect(try read(line(String(whole.prefix(253)), "-")).0.status == 302)
        #expect(try read(line("/oauth/authorize?state=s1", String(cutLocation.prefix(243)))).0.status == 302)
        let nginx = #"203.0.113.9 - - [22/Nov/2026:10:00:01 +0000] "GET \#(cutTarget) HTTP/1.1" 302 0 "-" "GoogleApp/1.0" "-""#
        #expect(try read(nginx).0.target == cutTarget)
        // The run says it, naming the setting that fixes it.
        let dir = temporaryDirectory()
        let run = try runCLI([writeLog([line(cutTarget, "-")], named: "varnish.log", in: dir), "--no-color"])
        #expect(run.stdout.replacingOccurrences(of: "\n    ", with: " ").contains("Varnish: varnishd -p vsl_reclen=4084"), "\(run.stdout)")
        #expect(run.stderr.contains("varnish.log:1: malformed line (truncated by its writer, a flip record)"), "\(run.stderr)")
    }

    @Test("nginx main: the Location is the field holding the redirect target, whatever X-Forwarded-For holds")
    func nginxMain() throws {
        for xff in ["-", "198.51.100.7", "198.51.100.7, 10.0.0.1"] {
            let line = #"203.0.113.9 - - [22/Nov/2026:10:00:01 +0000] "\#(request)" 302 0 "-" "GoogleApp/1.0" "\#(xff)" "\#(back)""#
            let (p, format, doubt) = try read(line)
            #expect(p.location == back && format == .combined && !doubt, "\(xff)")
            #expect(p.ip == "203.0.113.9")
        }
        // Not a redirect: nothing is taken as the Location (nor logged).
        let ok = #"203.0.113.9 - - [22/Nov/2026:10:00:01 +0000] "GET / HTTP/1.1" 200 10 "-" "curl" "-" "-""#
        #expect(try read(ok).0.location == nil)
        // One quoted field after the User-Agent is the Location, as before.
        let one = #"203.0.113.9 - - [22/Nov/2026:10:00:01 +0000] "GET / HTTP/1.1" 200 10 "-" "curl" "-""#
        #expect(try read(one).0.location == "")
    }

    @Test("Apache with %D before the Location, and unquoted extras after it")
    func unquotedExtras() throws {
        let line = #"203.0.113.9 - - [22/Nov/2026:10:00:01 +0000] "\#(request)" 302 235 "-" "GoogleApp/1.0" 2762 "\#(back)" 0.004 upstream=200"#
        #expect(try read(line).0.location == back)
        // Common with extras (no referer, no User-Agent).
        let common = #"203.0.113.9 - - [22/Nov/2026:10:00:01 +0000] "\#(request)" 302 235 2762 \#(back)"#
        #expect(try read(common).0.location == back)
    }

    @Test("two different redirect targets: neither is taken, and the record says so")
    func ambiguous() throws {
        let other = "https://partner.example/login?next=%2F"
        let line = #"203.0.113.9 - - [22/Nov/2026:10:00:01 +0000] "\#(request)" 302 0 "-" "UA" "\#(other)" "\#(back)""#
        let (p, _, doubt) = try read(line)
        #expect(p.location == nil && doubt)
        // The same target twice ($upstream_http_location and
        // $sent_http_location) is no doubt.
        let twice = #"203.0.113.9 - - [22/Nov/2026:10:00:01 +0000] "\#(request)" 302 0 "-" "UA" "\#(back)" "\#(back)""#
        #expect(try read(twice).0.location == back && !(try read(twice).2))
        // An Origin or an upstream address has no path: not a redirect target.
        let origin = #"203.0.113.9 - - [22/Nov/2026:10:00:01 +0000] "\#(request)" 302 0 "-" "UA" "https://partner.example" "http://10.0.0.2:80" "\#(back)""#
        #expect(try read(origin).0.location == back)
    }

    @Test("vhost_combined's client is its second field; lighttpd's Host second is skipped")
    func hosts() throws {
        let vhost = #"partner.example:443 203.0.113.9 - - [22/Nov/2026:10:00:01 +0000] "\#(request)" 302 0 "-" "UA""#
        #expect(try read(vhost).0.ip == "203.0.113.9")
        let lighttpd = #"203.0.113.9 partner.example - [22/Nov/2026:10:00:01 +0000] "\#(request)" 302 0 "-" "UA""#
        #expect(try read(lighttpd).0.ip == "203.0.113.9")
        // A user name that is a word, not a host:port, keeps the first field.
        let user = #"203.0.113.9 - alice bob [22/Nov/2026:10:00:01 +0000] "\#(request)" 302 0 "-" "UA""#
        #expect(try read(user).0.ip == "203.0.113.9")
    }
}

@Suite("Apache LogFormat")
struct ApacheFormatTests {
    static let pasted = #"LogFormat "%h %l %u %t \"%r\" %>s %O \"%{Referer}i\" \"%{User-Agent}i\" %D \"%{Location}o\"" flip"#

    @Test("as written in apache2.conf, and unescaped, it reads its own lines")
    func pastedAndPlain() throws {
        let line = #"203.0.113.9 - - [22/Nov/2026:10:00:01 +0000] "\#(request)" 302 235 "-" "Mozilla/5.0 \"X\"" 2762 "\#(back)""#
        for text in [Self.pasted, #"%h %l %u %t "%r" %>s %O "%{Referer}i" "%{User-Agent}i" %D "%{Location}o""#] {
            let parser = try LogFormatParser(logFormat: text, maxLine: 4096)
            #expect(parser.syntax == .apache && parser.logsLocation)
            let (p, format, _) = try read(line, .logFormat(text))
            #expect(format == .apache)
            #expect(p.time == t0 && p.ip == "203.0.113.9" && p.method == "GET" && p.status == 302 && p.location == back)
            #expect(p.target == "/oauth/authorize?client_id=G123&state=s1")
        }
    }

    @Test("time directives, %U%q, and the request split by %m")
    func directives() throws {
        let text = #"%a [%{%Y-%m-%dT%H:%M:%S}t] %m %U%q %s %{sec}t"#
        let (p, _, _) = try read("203.0.113.9 [2026-11-22T10:00:01] GET /oauth/authorize?state=s1 302 1795341601", .logFormat(text))
        #expect(p.time == t0 && p.target == "/oauth/authorize?state=s1" && p.method == "GET" && p.status == 302)
        let msec = #"%h %{msec}t "%r" %>s"#
        #expect(try read(#"203.0.113.9 1795341601123 "\#(request)" 302"#, .logFormat(msec)).0.time == t0 + 123)
    }

    @Test("a time in pieces: the zone and the fraction of any piece count")
    func splitTime() throws {
        let text = #"%h [%{%Y-%m-%dT%H:%M:%S}t.%{usec_frac}t %{%z}t] "%r" %>s "%{Location}o""#
        let line = #"203.0.113.9 [2026-11-22T06:30:01.123456 -0330] "\#(request)" 302 "\#(back)""#
        let (p, _, _) = try read(line, .logFormat(text))
        // 06:30:01 at -03:30 is 10:00:01 UTC, and 123 ms.
        #expect(p.time == t0 + 123)
        let ms = #"%h [%{%d/%b/%Y:%H:%M:%S}t.%{msec_frac}t %{%z}t] "%r" %>s"#
        #expect(try read(#"203.0.113.9 [22/Nov/2026:11:00:01.250 +0100] "\#(request)" 302"#, .logFormat(ms)).0.time == t0 + 250)
        let begin = #"%h [%{begin:%Y-%m-%dT%H:%M:%S}t %{begin:%z}t] "%r" %>s"#
        #expect(try read(#"203.0.113.9 [2026-11-22T10:00:01 +0000] "\#(request)" 302"#, .logFormat(begin)).0.time == t0)
    }

    @Test("X-Forwarded-For in the client's place is the client (its first address); mod_ssl's %{VAR}x is a field")
    func forwardedAndSSL() throws {
        let text = #"%{X-Forwarded-For}i %l %u %t "%r" %>s %{SSL_PROTOCOL}x "%{Location}o""#
        let line = #"198.51.100.23, 10.0.0.1 - - [22/Nov/2026:10:00:01 +0000] "\#(request)" 302 TLSv1.3 "\#(back)""#
        let (p, _, _) = try read(line, .logFormat(text))
        #expect(p.ip == "198.51.100.23" && p.time == t0 && p.location == back)
        let absent = #"- - - [22/Nov/2026:10:00:01 +0000] "\#(request)" 302 - "\#(back)""#
        #expect(try read(absent, .logFormat(text)).0.ip == "")
        // The peer wins where both are logged.
        let both = #"%h %{X-Forwarded-For}i %t "%r" %>s"#
        #expect(try read(#"10.0.0.1 198.51.100.23 [22/Nov/2026:10:00:01 +0000] "\#(request)" 302"#, .logFormat(both)).0.ip == "10.0.0.1")
    }

    /// Every directive of Apache 2.4's mod_log_config (and mod_ssl's
    /// `%{VAR}x`, a condition, `<`/`>`), each with a value of its
    /// documented shape, in one field of its own between the fields the
    /// audit reads: read or skipped, never exit 2, never shifting the
    /// time, request, status or Location around it.
    static let everyDirective: [(directive: String, value: String)] = [
        ("%a", "198.51.100.7"), ("%{c}a", "10.0.0.1"), ("%A", "127.0.0.1"), ("%B", "235"), ("%b", "-"),
        ("%{session}C", "abc123"), ("%D", "2762"), ("%{HOME}e", "/root"), ("%f", "/var/www/html/index.html"),
        ("%h", "client.example.net"), ("%{c}h", "10.0.0.1"), ("%H", "HTTP/1.1"), ("%{Accept}i", "text/html"),
        ("%k", "0"), ("%l", "-"), ("%L", "-"), ("%{note}n", "-"), ("%{Server}o", "Apache"), ("%p", "443"),
        ("%{canonical}p", "443"), ("%{local}p", "443"), ("%{remote}p", "51034"), ("%P", "1234"), ("%{pid}P", "1234"),
        ("%{tid}P", "140234567"), ("%{hextid}P", "7f8a"), ("%R", "-"), ("%T", "0"), ("%{ms}T", "2"), ("%{us}T", "2762"),
        ("%{s}T", "0"), ("%u", "-"), ("%v", "www.example.com"), ("%V", "www.example.com"), ("%X", "+"), ("%I", "512"),
        ("%O", "700"), ("%S", "1212"), ("%{Trailer}^ti", "-"), ("%{Trailer}^to", "-"), ("%{SSL_PROTOCOL}x", "TLSv1.3"),
        ("%{SSL_CIPHER}c", "TLS_AES_128_GCM_SHA256"), ("%400,501{User-agent}i", "-"), ("%!200,304,302{Referer}i", "-"),
        ("%<s", "302"), ("%>s", "302"), ("%s", "302"), ("%{end:sec}t", "1795341601"), ("%%", "%"),
    ]

    @Test("every mod_log_config directive, one by one, is read or skipped as a field of its shape", arguments: everyDirective)
    func oneByOne(directive: String, value: String) throws {
        let text = #"%h %t "%r" %>s \#(directive) "%{Location}o""#
        let line = #"203.0.113.9 [22/Nov/2026:10:00:01 +0000] "\#(request)" 302 \#(value) "\#(back)""#
        let (p, format, _) = try read(line, .logFormat(text))
        #expect(format == .apache)
        #expect(p.time == t0 && p.status == 302 && p.method == "GET" && p.location == back, "\(directive)")
        #expect(p.target == "/oauth/authorize?client_id=G123&state=s1", "\(directive)")
    }

    @Test("an unknown directive, a mix with nginx variables, a missing time are refused, named")
    func refused() {
        func message(_ text: String) -> String {
            do {
                _ = try LogFormatParser(logFormat: text, maxLine: 100)
                return ""
            } catch { return "\(error)" }
        }
        #expect(message(#"%h %t "%r" %>s %J"#).contains("%J is not an Apache LogFormat directive"))
        #expect(message(#"%h %t "%r" %s"#).isEmpty)
        #expect(message(#"%h "%r" %>s"#).contains("%t or %{…}t"))
        #expect(message(#"%h%u %t "%r" %>s"#).contains("cannot be told apart"))
        // `$` and `%` both: read as nginx, where `%h` is text; it has no $status.
        #expect(message(#"$remote_addr %h [$time_local] "$request""#).contains("$status"))
    }
}

@Suite("nginx log_format: every variable")
struct NginxVariableTests {
    /// nginx variables a log_format uses (ngx_http_core_module, the log,
    /// upstream, SSL, realip, gzip and headers modules), each with a value
    /// of its documented shape: the ones the audit needs are read, every
    /// other one is skipped as a field.
    static let variables: [(variable: String, value: String)] = [
        ("$body_bytes_sent", "235"), ("$bytes_sent", "470"), ("$connection", "1024"), ("$connection_requests", "3"),
        ("$content_length", "-"), ("$content_type", "application/x-www-form-urlencoded"), ("$host", "auth.example.com"),
        ("$hostname", "web1"), ("$http2", "h2"), ("$http_referer", "-"), ("$http_user_agent", "Mozilla/5.0 (iPhone) GoogleApp/1.0"),
        ("$https", "on"), ("$nginx_version", "1.22.1"), ("$pid", "4242"), ("$pipe", "."),
        ("$proxy_add_x_forwarded_for", "198.51.100.7, 203.0.113.9"), ("$remote_port", "51034"), ("$remote_user", "-"),
        ("$request_id", "f3c1b2a4d5e6f7a8b9c0d1e2f3a4b5c6"), ("$request_length", "612"), ("$request_time", "0.004"),
        ("$scheme", "https"), ("$server_addr", "10.0.0.5"), ("$server_name", "auth.example.com"), ("$server_port", "443"),
        ("$server_protocol", "HTTP/1.1"), ("$ssl_protocol", "TLSv1.3"), ("$ssl_cipher", "TLS_AES_128_GCM_SHA256"),
        ("$ssl_session_reused", "r"), ("$upstream_addr", "10.0.0.1:8080, 10.0.0.2:8080"), ("$upstream_status", "502, 302"),
        ("$upstream_response_time", "0.001, 0.003"), ("$upstream_connect_time", "0.000"), ("$upstream_header_time", "0.002"),
        ("$upstream_cache_status", "MISS"), ("$gzip_ratio", "-"), ("$sent_http_content_type", "text/html"),
        ("$cookie_session", "abc123"), ("$arg_scope", "devices.read"), ("$is_args", "?"), ("$document_root", "/var/www/html"),
        ("$request_filename", "/var/www/html/oauth/authorize"), ("$realip_remote_port", "51034"), ("$time_iso8601", "2026-11-22T10:00:01+00:00"),
        ("$msec", "1795341601.000"), ("$status", "302"), ("$http_x_real_ip", "198.51.100.7"),
    ]

    @Test("every variable, one by one, is read or skipped as a field of its shape", arguments: variables)
    func oneByOne(variable: String, value: String) throws {
        let text = #"$remote_addr - $remote_user [$time_local] "$request" $status "\#(variable)" "$sent_http_location""#
        let line = #"203.0.113.9 - - [22/Nov/2026:10:00:01 +0000] "\#(request)" 302 "\#(value)" "\#(back)""#
        let (p, format, _) = try read(line, .logFormat(text))
        #expect(format == .nginx)
        #expect(p.time == t0 && p.status == 302 && p.method == "GET" && p.location == back, "\(variable)")
        #expect(p.target == "/oauth/authorize?client_id=G123&state=s1" && p.ip == "203.0.113.9", "\(variable)")
    }
}

@Suite("W3C logs: every field")
struct W3CFieldTests {
    /// IIS's W3C fields (and CloudFront's that IIS logs do not have), with a
    /// value of each one's shape: a column of its own between the columns
    /// the audit reads, which must come out unchanged.
    static let fields: [(name: String, value: String)] = [
        ("s-sitename", "W3SVC1"), ("s-computername", "WEB01"), ("s-ip", "10.0.0.5"), ("s-port", "443"), ("cs-username", "-"),
        ("cs-version", "HTTP/1.1"), ("cs(User-Agent)", "Mozilla/5.0+(iPhone)+GoogleApp/1.0"), ("cs(Cookie)", "-"),
        ("cs(Referer)", "-"), ("cs-host", "auth.example.com"), ("sc-substatus", "0"), ("sc-win32-status", "0"), ("sc-bytes", "235"),
        ("cs-bytes", "612"), ("time-taken", "15"), ("X-Forwarded-For", "198.51.100.7"), ("cs(Host)", "auth.example.com"),
        ("x-edge-result-type", "Miss"), ("x-edge-request-id", "abc=="), ("x-host-header", "auth.example.com"), ("cs-protocol", "https"),
        ("ssl-protocol", "TLSv1.3"), ("ssl-cipher", "TLS_AES_128_GCM_SHA256"), ("cs-protocol-version", "HTTP/2.0"), ("c-port", "51034"),
        ("time-to-first-byte", "0.004"), ("sc-content-type", "text/html"), ("sc-content-len", "235"), ("sc-range-start", "-"),
    ]

    @Test("every field, one by one, is read or skipped as a column", arguments: fields)
    func oneByOne(name: String, value: String) throws {
        var reader = try RecordReader(.auto, maxLine: 4096)
        var header = Array("#Fields: date time c-ip cs-method cs-uri-stem cs-uri-query sc-status \(name) Location".utf8)
        #expect(header.withUnsafeMutableBytes { reader.directive(UnsafeRawBufferPointer($0)) })
        var line = Array("2026-11-22 10:00:01 203.0.113.9 GET /oauth/authorize client_id=G123&state=s1 302 \(value) \(back)".utf8)
        let failure = line.withUnsafeMutableBytes { reader.read(UnsafeRawBufferPointer($0), escapes: true) }
        #expect(failure == nil, "\(name)")
        let p = Parsed(reader.record)
        #expect(reader.format == .iis, "\(name)")
        #expect(p.time == t0 && p.status == 302 && p.method == "GET" && p.location == back && p.ip == "203.0.113.9", "\(name)")
        #expect(p.target == "/oauth/authorize?client_id=G123&state=s1", "\(name)")
    }
}

@Suite("JSON logs of every server, and --json-field")
struct JSONFormatTests {
    @Test("Caddy 2.6 and 2.7: nested request, ts in seconds, Location in an array")
    func caddy() throws {
        for client in [#""remote_ip":"203.0.113.9""#, #""remote_ip":"10.0.0.1","client_ip":"203.0.113.9""#] {
            let line =
                #"{"level":"info","ts":1795341601.25,"msg":"handled request","request":{\#(client),"method":"GET","uri":"/oauth/authorize?state=s1","headers":{"User-Agent":["GoogleApp/1.0"]}},"status":302,"resp_headers":{"Location":["\#(back)"]}}"#
            let (p, format, _) = try read(line)
            #expect(format == .caddy && p.ip == "203.0.113.9" && p.time == t0 + 250 && p.location == back && p.target == "/oauth/authorize?state=s1")
        }
        // Caddy's own runtime lines are no requests.
        #expect(throws: ParseFailure(reason: .noRequestFields)) { try read(#"{"level":"info","ts":1795341601.5,"msg":"serving initial configuration"}"#) }
    }

    @Test("--json-field user-agent=PATH is a role, as the contract lists it")
    func userAgentRole() throws {
        let dir = temporaryDirectory()
        let log = writeLog(
            [#"{"t":1795341601,"m":"GET","u":"\#(request.split(separator: " ")[1])","s":200,"agent":{"name":"GoogleApp/1.0"}}"#], named: "app.json", in: dir)
        let run = try runCLI([
            log, "--json-field", "time=t:s", "--json-field", "method=m", "--json-field", "target=u", "--json-field", "status=s",
            "--json-field", "user-agent=agent.name", "--quiet", "--json", dir + "/r.json",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/r.json"))) as? [String: Any])
        #expect((doc["input"] as? [String: Any])?["records"] as? Int == 1)
    }

    @Test("Google Cloud's full requestUrl becomes its path and query")
    func gcloud() throws {
        let line =
            #"{"httpRequest":{"requestMethod":"GET","requestUrl":"https://partner.example/oauth/authorize?state=s1","status":302,"remoteIp":"203.0.113.9"},"timestamp":"2026-11-22T10:00:01.000Z"}"#
        let (p, format, _) = try read(line)
        #expect(format == .gcloud && p.target == "/oauth/authorize?state=s1" && p.status == 302 && p.location == nil)
    }

    @Test("--json-field maps any JSON log, with units, arrays and full URLs")
    func custom() throws {
        let line =
            #"{"t":1795341601000000,"req":{"verb":"GET","url":"https://p.example/oauth/authorize?state=s1"},"res":{"code":302,"headers":{"Location":["\#(back)"]}},"peer":"203.0.113.9"}"#
        let fields: [(role: JSONLineParser.Role, path: String)] = [
            (.time, "t"), (.method, "req.verb"), (.uri, "req.url"), (.status, "res.code"), (.location, "res.headers.Location"), (.client, "peer"),
        ]
        var reader = try RecordReader(.auto, maxLine: 4096, jsonFields: fields, timeUnit: .us)
        var bytes = Array(line.utf8)
        let failure = bytes.withUnsafeMutableBytes { reader.read(UnsafeRawBufferPointer($0), escapes: true) }
        #expect(failure == nil)
        #expect(reader.record.time == t0 && reader.record.status == 302)
        // Through the command line: the option's syntax, and a wrong role refused.
        #expect(AuditOptions.jsonField("time=t:us")! == (.time, "t", .us))
        #expect(AuditOptions.jsonField("location=res.headers.Location[0]")! == (.location, "res.headers.Location", nil))
        #expect(AuditOptions.jsonField("colour=x") == nil && AuditOptions.jsonField("status=") == nil)
    }
}

private func == (a: (JSONLineParser.Role, String, JSONLineParser.TimeUnit?), b: (JSONLineParser.Role, String, JSONLineParser.TimeUnit?)) -> Bool {
    a.0 == b.0 && a.1 == b.1 && a.2 == b.2
}

@Suite("--log-format GLOB=FORMAT")
struct FormatRuleTests {
    @Test("one run reads each server in its own format; a session crosses them")
    func crossingServers() throws {
        let dir = temporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir + "/apache", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir + "/nginx", withIntermediateDirectories: true)
        // The authorize request through Apache (a consent page, 200); the
        // consent POST through nginx, answered with the code.
        let apache = writeLog(
            [#"203.0.113.9 [2026-11-22T10:00:01] "GET \#(authorize(state: "x1")) HTTP/1.1" 200 "-""#], named: "apache/access.log", in: dir)
        let nginx = writeLog(
            [#"203.0.113.9|1795341605.000|POST /consent HTTP/1.1|302|\#(opa)?code=c9&state=x1"#], named: "nginx/access.log", in: dir)
        let apacheFormat = #"%a [%{%Y-%m-%dT%H:%M:%S}t] "%r" %>s "%{Location}o""#
        let nginxFormat = "$remote_addr|$msec|$request|$status|$sent_http_location"
        let arguments = [
            apache, nginx, "--log-format", dir + "/apache/*=" + apacheFormat, "--log-format", "*/nginx/*=" + nginxFormat,
            "--now", "2026-11-22T12:00:00Z", "--json", dir + "/r.json", "--csv", dir + "/csv", "--quiet",
        ]
        // Either order of the rules and the inputs: one answer.
        for args in [arguments, Array(arguments[2...5]) + [nginx, apache] + Array(arguments[6...])] {
            let run = try runCLI(args)
            #expect(run.status == 0, "\(run.stderr)")
            let sessions = try String(contentsOfFile: dir + "/csv/sessions.csv", encoding: .utf8)
            #expect(sessions.contains("x1,2026-11-22T10:00:01.000Z,2026-11-22T10:00:05.000Z,"), "\(sessions)")
            #expect(sessions.contains(",code,,,4000,"), "\(sessions)")
            let json = try String(contentsOfFile: dir + "/r.json", encoding: .utf8)
            #expect(json.contains("\"malformed_lines\" : 0"))
            #expect(json.contains("\"format\" : \"apache\"") && json.contains("\"format\" : \"nginx\""))
        }
        // Without the rules neither line reads.
        let plain = try runCLI([apache, nginx, "--now", "2026-11-22T12:00:00Z", "--json", "-", "--quiet"])
        #expect(plain.stdout.contains("\"malformed_lines\" : 2"))
        // One format for every input, and at most one.
        let twice = try runCLI([apache, "--log-format", apacheFormat, "--log-format", nginxFormat])
        #expect(twice.status == 2 && twice.stderr.contains("give one format for every input"))
    }
}

extension FormatRuleTests {
    @Test("a distributed job's URIs match a glob as given or by their path")
    func uriNames() {
        var c = AuditConfiguration()
        c.formatRules = [("*/apache/*", .logFormat("%h %t \"%r\" %>s")), ("hdfs://nn/logs/nginx/*", .fixed(.json))]
        #expect(c.readerIndex(for: "logs/apache/a.log") == 1)
        #expect(c.readerIndex(for: "file:///srv/logs/apache/a.log") == 1)
        #expect(c.readerIndex(for: "hdfs://nn:8020/logs/apache/a.log.gz") == 1)
        #expect(c.readerIndex(for: "hdfs://nn/logs/nginx/b.gz") == 2)
        // A glob on the path alone does not match another host's URI as given.
        #expect(c.readerIndex(for: "s3a://bucket/logs/nginx/b.gz") == 0)
        #expect(c.readerIndex(for: "logs/caddy/c.json") == 0)
    }
}

@Suite("--tz for times without a zone")
struct ZoneTests {
    static let line =
        #"203.0.113.9:41234 [22/Nov/2026:11:00:01.000] www be/s1 0/0/1/2/3 302 171 - - ---- 1/1/0/0/0 0/0 {} "GET /oauth/authorize?state=s1 HTTP/1.1""#

    @Test("HAProxy's local times: UTC by default, a named zone or a fixed offset when given, DST included")
    func haproxy() throws {
        #expect(try read(Self.line, .fixed(.haproxy)).0.time == t0 + 3_600_000)
        for name in ["Europe/Berlin", "+01:00", "+0100"] {
            let zone = try #require(AuditConfiguration.zone(named: name), "\(name)")
            var reader = try RecordReader(.auto, maxLine: 4096, zone: zone)
            var bytes = Array(Self.line.utf8)
            let failure = bytes.withUnsafeMutableBytes { reader.read(UnsafeRawBufferPointer($0), escapes: false) }
            #expect(failure == nil && reader.record.time == t0, "\(name)")
        }
        // Summer time: 11:00 in Berlin on 22 June is 09:00 UTC.
        let berlin = try #require(AuditConfiguration.zone(named: "Europe/Berlin"))
        let june = Timestamp.parseCommonLog(Array("22/Jun/2026:11:00:00".utf8).withUnsafeBytes { UnsafeRawBufferPointer($0) })!
        #expect(berlin.utc(fromLocal: june) == june - 2 * 3_600_000)
        #expect(AuditConfiguration.zone(named: "Mars/Olympus") == nil && AuditConfiguration.zone(named: "+25:00") == nil)
        let bad = try runCLI(["--tz", "Mars/Olympus", "x.log"])
        #expect(bad.status == 2 && bad.stderr.contains("--tz: \"Mars/Olympus\" is not a time zone"))
    }

    @Test("behind rsyslog's RFC 3339 header, its zone is the time's, whatever --tz says, and no zone is said missing")
    func rsyslogZone() throws {
        let framed = "<134>2026-11-22T11:00:01.250000+01:00 lb haproxy[812]: " + Self.line
        #expect(try read(framed, .fixed(.haproxy)).0.time == t0)
        let zone = try #require(AuditConfiguration.zone(named: "-05:00"))
        var reader = try RecordReader(.auto, maxLine: 4096, zone: zone)
        var bytes = Array(framed.utf8)
        let failure = bytes.withUnsafeMutableBytes { reader.read(UnsafeRawBufferPointer($0), escapes: false) }
        #expect(failure == nil && reader.record.time == t0 && reader.record.zoneFromHeader)
        // A header in UTC: the message's 11:00:01 is UTC.
        let utc = "2026-11-22T11:00:01Z lb haproxy[812]: " + Self.line
        #expect(try read(utc, .fixed(.haproxy)).0.time == t0 + 3_600_000)
        let dir = temporaryDirectory()
        let run = try runCLI([writeLog([framed], named: "haproxy.log", in: dir), "--quiet"])
        #expect(!run.stderr.contains("carry no zone"), "\(run.stderr)")
        let plain = try runCLI([writeLog([Self.line], named: "plain.log", in: dir), "--quiet"])
        #expect(plain.stderr.contains("HAProxy's times carry no zone: read as UTC (--tz ZONE)"))
    }
}
