import Audit
import Parsing
import Rules

/// What an input's server needs to log the response Location header, by
/// the format its records were read in (docs/formats.md has each line).
enum LocationAdvice {
    /// `example` as lines that fit the summary and still read as
    /// configuration: nginx joins the strings of one `log_format`.
    static func lines(_ example: String) -> [String] {
        example.split(separator: "\n").flatMap { line -> [String] in
            guard line == FormatTable.nginxLine else { return [String(line)] }
            return [
                #"log_format flip '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent '"#,
                #"                '"$http_referer" "$http_user_agent" "$sent_http_location"';"#,
            ]
        }
    }

    /// The advice for inputs read as `format` (a `FileSummary.format`):
    /// its row's sentence and configuration line.
    static func advice(format: String) -> (text: String, example: String?) {
        guard let row = FormatTable.row(named: format) else { return ("docs/formats.md says how each server logs it.", nil) }
        return (row.advice, row.example)
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
