import Audit
import Rules

/// What an input's server needs to log the response Location header, by
/// the format its records were read in (docs/formats.md has each line).
enum LocationAdvice {
    /// The example nginx line.
    static let nginxLogFormat =
        #"log_format flip '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" "$sent_http_location"';"#
    /// `example` as lines that fit the summary and still read as
    /// configuration: nginx joins the strings of one `log_format`.
    static func lines(_ example: String) -> [String] {
        example.split(separator: "\n").flatMap { line -> [String] in
            guard line == nginxLogFormat else { return [String(line)] }
            return [
                #"log_format flip '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent '"#,
                #"                '"$http_referer" "$http_user_agent" "$sent_http_location"';"#,
            ]
        }
    }

    /// The example Apache line.
    static let apacheLogFormat = #"LogFormat "%h %l %u %t \"%r\" %>s %O \"%{Referer}i\" \"%{User-Agent}i\" \"%{Location}o\"" flip"#
    /// The example lighttpd line (mod_accesslog; its default with the Location at the end).
    static let lighttpdAccessLogFormat =
        #"accesslog.format = "%h %V %u %t \"%r\" %>s %b \"%{Referer}i\" \"%{User-Agent}i\" \"%{Location}o\"""#
    /// The three servers that write the combined format by default, each
    /// with its line under a comment naming it (`#` is a comment in all
    /// three): flipaudit cannot tell which of them wrote a combined log.
    static let combinedLogFormats = ["# nginx", nginxLogFormat, "# Apache", apacheLogFormat, "# lighttpd", lighttpdAccessLogFormat].joined(
        separator: "\n")

    /// The advice for inputs read as `format` (a `FileSummary.format`):
    /// a sentence, and the configuration line to add, if there is one.
    static func advice(format: String) -> (text: String, example: String?) {
        switch format {
        case "combined":
            return ("Log the response's Location header as the last field, in your server's format, e.g.:", combinedLogFormats)
        case "nginx": return ("Add \"$sent_http_location\" at the end of your log_format, e.g.:", nginxLogFormat)
        case "apache": return ("Add \"%{Location}o\" at the end of your LogFormat, e.g.:", apacheLogFormat)
        case "haproxy":
            return (
                "Add to the frontend (and raise the log line length past 1024 bytes with \"log ... len 4096\"):", "capture response header Location len 2048"
            )
        case "envoy": return ("Add \"%RESP(LOCATION)%\" to the access log format, e.g. at its end:", #""%RESP(LOCATION)%""#)
        case "traefik": return ("Keep the header in the access log:", "accessLog.fields.headers.names.Location=keep")
        case "caddy": return ("Caddy logs response headers itself: check that the file is Caddy's access log (resp_headers).", nil)
        case "cloudflare": return ("Add the response header Location to the Logpush job's custom fields.", nil)
        case "json": return ("Add a location key, e.g. nginx escape=json: \"location\":\"$sent_http_location\".", nil)
        case "alb": return ("An AWS load balancer cannot log the backend's Location header: audit the backend's own access log.", nil)
        case "iis":
            return (
                "Add a custom field to the site's W3C logging: field name Location, source type Response Header, source Location.", nil
            )
        case "cloudfront": return ("CloudFront's standard logs cannot log the origin's Location header: audit the origin's own access log.", nil)
        case "gcloud": return ("A Google Cloud load balancer cannot log the backend's Location header: audit the backend's own access log.", nil)
        default: return ("docs/formats.md says how each server logs it.", nil)
        }
    }

    /// The unobservable inputs grouped by the advice their format needs,
    /// in the order of their first input.
    static func groups(_ result: AuditResult) -> [(files: [String], text: String, example: String?)] {
        var formats: [String: String] = [:]
        for f in result.files { formats[f.name] = f.format }
        var out: [(files: [String], text: String, example: String?)] = []
        for name in result.unobservableFiles {
            let (text, example) = advice(format: formats[name] ?? "none")
            if let i = out.firstIndex(where: { $0.text == text }) {
                out[i].files.append(name)
            } else {
                out.append(([name], text, example))
            }
        }
        return out
    }
}
