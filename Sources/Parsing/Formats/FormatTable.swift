/// One row per format (`FormatRow`), in `RecordFormat`'s order: every part
/// reads it. The reader picks the parser, `--format` lists the names, the
/// JSON parser takes its key paths, the scan names a server whose times
/// carry no zone, the reports give the Location advice, and
/// docs/formats.md's "Every format" and key-path tables are rendered from
/// it (a test compares them). Adding a format is a case, a row here and
/// its fixtures.
package enum FormatTable {
    /// The configuration lines that log the Location: what the advice
    /// gives, and what CI checks each server accepts
    /// (`Tests/servers/advice.sh`).
    package static let nginxLine =
        #"log_format flip '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" "$sent_http_location"';"#
    package static let apacheLine = #"LogFormat "%h %l %u %t \"%r\" %>s %O \"%{Referer}i\" \"%{User-Agent}i\" \"%{Location}o\"" flip"#
    /// lighttpd's mod_accesslog default with the Location at the end.
    package static let lighttpdLine =
        #"accesslog.format = "%h %V %u %t \"%r\" %>s %b \"%{Referer}i\" \"%{User-Agent}i\" \"%{Location}o\"""#

    package static let rows: [FormatRow] = [
        FormatRow(
            .combined, "combined", reader: .combined,
            servers:
                "Apache/nginx combined and common, Apache `vhost_combined`, nginx `main`, lighttpd's and h2o's defaults, Traefik CLF; any of them with extra fields after the User-Agent",
            detection: "any line that is not JSON or Envoy", location: "an extra field (below)", zone: "in the line",
            advice: "Log the response's Location header as the last field, in your server's format, e.g.:",
            // flipaudit cannot tell which of the three wrote a combined
            // log: each line under a comment naming its server (`#` is a
            // comment in all three).
            example: ["# nginx", nginxLine, "# Apache", apacheLine, "# lighttpd", lighttpdLine].joined(separator: "\n")),
        FormatRow(
            .json, "json", reader: .json, servers: "nginx `escape=json`, structured application logs", detection: "first byte `{`",
            location: "`location`, `sent_http_location`, `http_location`", zone: "in the value (none: UTC)",
            keys: [
                ("time", .time), ("timestamp", .time), ("@timestamp", .time), ("time_iso8601", .time), ("time_local", .time),
                ("request", .request), ("method", .method),
                ("request_uri", .uri), ("uri", .uri), ("url", .uri), ("path", .uri), ("query", .query), ("args", .query),
                ("status", .status), ("location", .location), ("sent_http_location", .location), ("http_location", .location),
                ("remote_addr", .client), ("client_ip", .client), ("ip", .client),
                ("http_user_agent", .userAgent), ("user_agent", .userAgent),
            ],
            advice: "Add a location key, e.g. nginx escape=json: \"location\":\"$sent_http_location\"."),
        FormatRow(
            .caddy, "caddy", reader: .json, servers: "Caddy v2 JSON access log", detection: "first byte `{`, keys `request.uri` …",
            location: "`resp_headers.Location` (always)", zone: "epoch seconds",
            keys: [
                ("ts", .time), ("request.method", .method), ("request.uri", .uri), ("resp_headers.Location", .location),
                ("request.client_ip", .client), ("request.remote_ip", .client),
            ],
            advice: "Caddy logs response headers itself: check that the file is Caddy's access log (resp_headers)."),
        FormatRow(
            .traefik, "traefik", reader: .json, servers: "Traefik JSON access log", detection: "first byte `{`, keys `RequestPath` …",
            location: "`downstream_Location` when kept", zone: "RFC 3339",
            keys: [
                ("StartUTC", .time), ("RequestMethod", .method), ("RequestPath", .uri), ("DownstreamStatus", .status),
                ("downstream_Location", .location), ("ClientHost", .client),
            ],
            advice: "Keep the header in the access log:", example: "accessLog.fields.headers.names.Location=keep"),
        FormatRow(
            .gcloud, "gcloud", reader: .json, servers: "Google Cloud HTTP(S) load balancer, exported JSON",
            detection: "first byte `{`, keys `httpRequest.*`", location: "cannot", zone: "RFC 3339",
            keys: [
                ("httpRequest.requestMethod", .method), ("httpRequest.requestUrl", .uri), ("httpRequest.status", .status),
                ("httpRequest.remoteIp", .client),
            ],
            advice: "A Google Cloud load balancer cannot log the backend's Location header: audit the backend's own access log."),
        FormatRow(
            .cloudflare, "cloudflare", reader: .json, servers: "Cloudflare Logpush `http_requests`",
            detection: "first byte `{`, keys `ClientRequestURI` …", location: "`ResponseHeaders.location` (custom field)",
            zone: "ns, s or RFC 3339",
            keys: [
                ("EdgeStartTimestamp", .time), ("ClientRequestMethod", .method), ("ClientRequestURI", .uri), ("EdgeResponseStatus", .status),
                ("ResponseHeaders.location", .location), ("ResponseHeaders.Location", .location), ("ClientIP", .client),
            ],
            advice: "Add the response header Location to the Logpush job's custom fields."),
        FormatRow(
            .haproxy, "haproxy", reader: .haproxy, servers: "HAProxy `option httplog`, with a syslog header or raw",
            detection: "combined refused it", location: "a captured response header", zone: "a syslog header's, else none: `--tz` (UTC)",
            zoneless: "HAProxy",
            advice: "Add to the frontend (and raise the log line length past 1024 bytes with \"log ... len 4096\"):",
            example: "capture response header Location len 2048"),
        FormatRow(
            .envoy, "envoy", reader: .envoy, servers: "Envoy's default format", detection: "first byte `[`", location: "`%RESP(LOCATION)%` added",
            zone: "in the value", advice: "Add \"%RESP(LOCATION)%\" to the access log format, e.g. at its end:", example: #""%RESP(LOCATION)%""#),
        FormatRow(
            .alb, "alb", reader: .alb, servers: "AWS Application Load Balancer",
            detection: "combined refused it; first word `http`, `https`, `h2`, `grpcs`, `ws`, `wss`", location: "cannot", zone: "UTC",
            advice: "An AWS load balancer cannot log the backend's Location header: audit the backend's own access log."),
        FormatRow(
            .iis, "iis", reader: .w3c, servers: "IIS W3C extended log", detection: "a date first, after a `#Fields:` line",
            location: "a custom field `Location`", zone: "none: `--tz` (UTC)", zoneless: "IIS",
            advice: "Add a custom field to the site's W3C logging: field name Location, source type Response Header, source Location."),
        FormatRow(
            .cloudfront, "cloudfront", reader: .w3c, servers: "CloudFront standard log (W3C, tabs)",
            detection: "a date first, after a `#Fields:` line with `x-edge-location`", location: "cannot", zone: "UTC",
            advice: "CloudFront's standard logs cannot log the origin's Location header: audit the origin's own access log."),
        FormatRow(
            .nginx, "nginx", reader: .pasted, servers: "a pasted nginx `log_format` (`--log-format`)", detection: "—",
            location: "`$sent_http_location`", zone: "in the value", advice: "Add \"$sent_http_location\" at the end of your log_format, e.g.:",
            example: nginxLine),
        FormatRow(
            .apache, "apache", reader: .pasted, servers: "a pasted Apache `LogFormat` (`--log-format`)", detection: "—",
            location: "`%{Location}o`", zone: "in the value", advice: "Add \"%{Location}o\" at the end of your LogFormat, e.g.:", example: apacheLine),
    ]

    /// The row of the format named `name`, if one is.
    package static func row(named name: String) -> FormatRow? { rows.first { $0.name == name } }

    /// docs/formats.md's key-path table: each role's paths, in order.
    package static var keyDocumentation: [String] {
        JSONLineParser.Role.allCases.map { role in
            let paths = rows.flatMap { row in row.keys.filter { $0.role == role }.map { "`\($0.path)`" } }
            return "| \(role.name) | \(paths.joined(separator: ", ")) |"
        }
    }
}

extension RecordFormat {
    /// Its row of `FormatTable`.
    package var row: FormatRow { FormatTable.rows[rawValue] }
    /// Its name in messages, reports and `--format`.
    package var name: String { row.name }
}
