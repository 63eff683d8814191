import Reading

/// HAProxy `log-format` strings (HAProxy 2.6, "Custom log format"), pasted
/// as written in `haproxy.cfg` (`log-format "%ci:%cp [%tr] …"`, or with
/// `\ ` for spaces) or bare, turned into the pieces `LogFormatParser`
/// reads: each variable becomes the nginx variable that logs the same
/// value, or one of HAProxy's own.
///
/// ```
/// log-format "%ci:%cp [%tr] %ft %b/%s %TR/%Tw/%Tc/%Tr/%Ta %ST %B %CC %CS %tsc %ac/%fc/%bc/%sc/%rc %sq/%bq %hr %hs %{+Q}r"
/// log-format "%ci [%T] %HM %{+Q}HU %ST %[capture.res.hdr(0)]"
/// ```
/// A line may carry a syslog header ahead of what the format writes; its
/// zone, else `--tz`, reads `%t`/`%tr`, which carry none.
enum HAProxyLogFormat {
    /// Names of fields with no nginx variable of their own.
    static let time = "haproxy_time"
    static let captures = "haproxy_captures"
    static let ignored = "haproxy_ignored"

    /// How a missing field is named in HAProxy's syntax.
    static let missing = (time: "%t, %tr, %T, %Tl, %trg, %trl or %Ts", status: "%ST", request: "%r, %HU or %HP")

    /// HAProxy 2.6's log-format variables (names are letters only).
    private static let variables: Set<String> = [
        "o", "B", "CC", "CS", "H", "HM", "HP", "HPO", "HQ", "HU", "HV", "ID", "ST", "T", "Ta", "Tc", "Td", "Th", "Ti", "Tl", "TR", "Tr",
        "Ts", "Tt", "Tu", "Tw", "U", "ac", "b", "bc", "bi", "bp", "bq", "ci", "cp", "f", "fc", "fi", "fp", "ft", "hr", "hrl", "hs", "hsl",
        "lc", "ms", "pid", "r", "rc", "rt", "s", "sc", "si", "sl", "sp", "sq", "sslc", "sslv", "t", "tr", "trg", "trl", "ts", "tsc",
    ]

    /// Whether `text` is in HAProxy's syntax: a `log-format` line, or a
    /// variable only HAProxy has (`%ci`, `%tr`, `%ST`, `%HM`, `%HU`,
    /// `%hs`, a sample fetch `%[…]`, a `%{+Q}` flag).
    static func isHAProxy(_ text: String) -> Bool {
        let t = text.trimmingCharacters(in: " \t\n")
        if t.hasPrefix("log-format ") || t.hasPrefix("log-format\t") { return true }
        return ["%ci", "%tr", "%ST", "%HM", "%HU", "%HP", "%hs", "%[", "%{+Q}", "%{-Q}"].contains { t.contains($0) }
    }

    /// The format string of a pasted `log-format` line, or the string
    /// itself: quotes taken off, `\ `, `\"` and `\\` unescaped.
    static func formatString(_ text: String) -> String {
        var t = text.trimmingCharacters(in: " \t\n")
        if t.hasPrefix("log-format") { t = String(t.dropFirst("log-format".count)).trimmingCharacters(in: " \t") }
        var out = ""
        var quoted = false
        var escaped = false
        for c in t {
            if escaped {
                out.append(c)
                escaped = false
            } else if c == "\\" {
                escaped = true
            } else if c == "\"" {
                quoted.toggle()
            } else {
                out.append(c)
            }
        }
        return out
    }

    /// The pieces of an HAProxy `log-format`; an unknown variable, or one
    /// that cannot be told apart from its neighbour, is refused, named.
    static func pieces(_ text: String) throws(ConfigurationError) -> [LogFormatParser.Piece] {
        let chars = Array(formatString(text))
        var pieces: [LogFormatParser.Piece] = []
        var literal: [UInt8] = []
        func flush() {
            if !literal.isEmpty { pieces.append(.literal(literal)) }
            literal = []
        }
        var i = 0
        while i < chars.count {
            guard chars[i] == "%", i + 1 < chars.count else {
                literal.append(contentsOf: Array(String(chars[i]).utf8))
                i += 1
                continue
            }
            if chars[i + 1] == "%" {
                literal.append(.percent)
                i += 2
                continue
            }
            let start = i
            i += 1
            // Flags: `%{+Q}r` quotes the value, `%{-Q}` does not; others
            // (`+X`, `+E`) change no separator.
            var quoted = false
            if chars[i] == "{" {
                guard let close = chars[i...].firstIndex(of: "}") else { throw .logFormat("\(String(chars[start...])): a %{ with no closing }") }
                let flags = String(chars[(i + 1)..<close])
                quoted = flags.split(separator: ",").contains { $0 == "+Q" }
                i = close + 1
            }
            let name: String
            let directive: String
            if i < chars.count, chars[i] == "[" {
                // A sample fetch, up to its matching `]`.
                var depth = 0
                var j = i
                while j < chars.count {
                    if chars[j] == "[" { depth += 1 } else if chars[j] == "]" { depth -= 1 }
                    if depth == 0 { break }
                    j += 1
                }
                guard j < chars.count else { throw .logFormat("\(String(chars[start...])): a %[ with no closing ]") }
                let expression = String(chars[(i + 1)..<j]).lowercased()
                directive = String(chars[start...j])
                i = j + 1
                if expression.hasPrefix("capture.res.hdr(") {
                    name = captures
                } else if expression.hasPrefix("res.hdr(location") {
                    name = "sent_http_location"
                } else {
                    name = ignored
                }
            } else {
                var j = i
                while j < chars.count, chars[j].isLetter, chars[j].isASCII { j += 1 }
                let variable = String(chars[i..<j])
                directive = String(chars[start..<j])
                guard !variable.isEmpty else { throw .logFormat("\(directive): a % with no variable name") }
                guard variables.contains(variable) else { throw .logFormat("\(directive) is not an HAProxy log-format variable") }
                i = j
                name = field(variable)
            }
            if quoted { literal.append(.quote) }
            flush()
            if case .variable = pieces.last {
                throw .logFormat("two variables with no text between them (\(directive)) cannot be told apart")
            }
            pieces.append(.variable(name))
            if quoted { literal.append(.quote) }
        }
        flush()
        return pieces
    }

    /// The field a variable logs.
    private static func field(_ variable: String) -> String {
        switch variable {
        case "ci": return "remote_addr"
        // Accept or request date: `dd/Mon/yyyy:HH:MM:SS.mmm`, no zone (%t,
        // %tr); with one (%T, %Tl, %trg, %trl).
        case "t", "tr", "T", "Tl", "trg", "trl": return time
        case "Ts": return "msec"
        case "ST": return "status"
        case "r": return "request"
        case "HM": return "request_method"
        case "HU", "HP": return "request_uri"
        case "HQ": return "args"
        case "hs": return captures
        default: return ignored
        }
    }
}
