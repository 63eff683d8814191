import Reading

/// The log formats a record can be read as: each server's own, and the
/// pasted `log_format`/`LogFormat` string. What flipaudit knows of each
/// is its row of `FormatTable`; docs/formats.md has an example line of
/// each.
package enum RecordFormat: Int, CaseIterable, Sendable {
    /// Apache/nginx combined and common, `vhost_combined`, lighttpd's and
    /// h2o's defaults, nginx's `main`, Traefik's CLF: any of them with
    /// extra fields after the User-Agent.
    case combined
    /// One JSON object per line with flat keys (nginx `escape=json`,
    /// structured application logs, `--json-field`).
    case json
    /// Caddy v2's JSON access log.
    case caddy
    /// Traefik's JSON access log.
    case traefik
    /// A Google Cloud HTTP(S) load balancer entry exported as JSON.
    case gcloud
    /// Cloudflare Logpush `http_requests`.
    case cloudflare
    /// HAProxy `option httplog`.
    case haproxy
    /// Envoy's default access log format.
    case envoy
    /// AWS Application Load Balancer access logs.
    case alb
    /// IIS W3C extended logs (`#Fields:` headers).
    case iis
    /// CloudFront standard logs (W3C, tab-separated).
    case cloudfront
    /// A pasted nginx `log_format`.
    case nginx
    /// A pasted Apache `LogFormat`.
    case apache

    /// Whether its lines are JSON objects: `unobservable` is judged apart
    /// for JSON lines and the others (docs/contract.md §3).
    package var isJSON: Bool { row.reader == .json }

    /// The format of one line under `--format auto`, from its first byte
    /// that is not a space or tab: `{` JSON, `[` Envoy, anything else
    /// combined (the others are tried when combined does not read it).
    /// `line` is not blank.
    @inline(__always)
    static func shape(_ line: UnsafeRawBufferPointer) -> Self {
        var i = 0
        while i < line.count && (line[i] == .space || line[i] == .tab) { i += 1 }
        guard i < line.count else { return .combined }
        switch line[i] {
        case .openBrace: return .json
        case .openBracket: return .envoy
        default: return .combined
        }
    }
}
