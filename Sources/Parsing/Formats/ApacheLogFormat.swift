import Reading

/// Apache `LogFormat` strings, pasted as written in `apache2.conf`
/// (`LogFormat "%h … \"%r\" …" nickname`, with `\"`) or unescaped, turned
/// into the pieces `LogFormatParser` reads: each directive becomes the
/// nginx variable that logs the same value.
///
/// ```
/// LogFormat "%h %l %u %t \"%r\" %>s %O \"%{Referer}i\" \"%{User-Agent}i\" %D \"%{Location}o\"" flip
/// %v:%p %h %l %u %t "%r" %>s %O "%{Referer}i" "%{User-Agent}i"
/// ```
enum ApacheLogFormat {
    /// Names of fields with no nginx variable of their own.
    static let anyTime = "apache_time_strftime"
    static let microseconds = "apache_time_usec"
    static let fractionMilli = "apache_time_msec_frac"
    static let fractionMicro = "apache_time_usec_frac"
    static let forwardedFor = "apache_x_forwarded_for"

    /// How a missing field is named in Apache's syntax.
    static let missing = (time: "%t or %{…}t", status: "%s or %>s", request: "%r or %U")

    /// Directive letters Apache's mod_log_config knows.
    private static let letters = Set("aABbcCDefhHiIklLmMnoOpPqrRsStTuUvVxXR^")

    /// Whether `text` is in Apache's syntax: a `%` directive, and no `$`
    /// variable.
    static func isApache(_ text: String) -> Bool {
        let t = text.trimmingCharacters(in: " \t\n")
        if t.hasPrefix("LogFormat") || t.hasPrefix("CustomLog") { return true }
        return directives(in: t) > 0 && !t.contains("$")
    }

    /// `%` directives in `text` (`%%` is not one).
    private static func directives(in text: String) -> Int {
        var count = 0
        var chars = Array(text)[...]
        while let c = chars.popFirst() {
            guard c == "%", let next = chars.first else { continue }
            if next == "%" {
                chars = chars.dropFirst()
                continue
            }
            if letters.contains(next) || next == "{" || next == ">" || next == "<" || next.isNumber || next == "!" { count += 1 }
        }
        return count
    }

    /// The format string of a pasted `LogFormat "…" nickname` line, or
    /// the string itself, with `\"` and `\\` unescaped.
    static func formatString(_ text: String) -> String {
        var t = text.trimmingCharacters(in: " \t\n")
        for word in ["LogFormat", "CustomLog"] where t.hasPrefix(word) {
            t = String(t.dropFirst(word.count)).trimmingCharacters(in: " \t")
            if word == "CustomLog" {
                // CustomLog FILE "format": drop the file.
                let file = t.prefix { $0 != " " && $0 != "\t" }
                t = String(t.dropFirst(file.count)).trimmingCharacters(in: " \t")
            }
        }
        var body = t
        if t.first == "\"" {
            // The quoted string, up to its closing unescaped quote.
            var out = ""
            var escaped = false
            for c in t.dropFirst() {
                if escaped {
                    if c != "\"" && c != "\\" { out.append("\\") }
                    out.append(c)
                    escaped = false
                } else if c == "\\" {
                    escaped = true
                } else if c == "\"" {
                    break
                } else {
                    out.append(c)
                }
            }
            return out
        }
        if body.contains("\\\"") { body = body.replacingAll("\\\"", with: "\"") }
        return body
    }

    /// The pieces of an Apache `LogFormat`; an unknown directive or one
    /// that cannot be told apart from its neighbour is refused, named.
    static func pieces(_ text: String) throws(ConfigurationError) -> [LogFormatParser.Piece] {
        // `%U%q`, path then query with its `?`: one field, the target.
        let chars = Array(formatString(text).replacingAll("%U%q", with: "%U"))
        var pieces: [LogFormatParser.Piece] = []
        var literal: [UInt8] = []
        func flush() {
            if !literal.isEmpty { pieces.append(.literal(literal)) }
            literal = []
        }
        func field(_ name: String, directive: String) throws(ConfigurationError) {
            flush()
            if case .variable = pieces.last {
                throw .logFormat("two directives with no text between them (\(directive)) cannot be told apart")
            }
            pieces.append(.variable(name))
        }
        var i = 0
        while i < chars.count {
            let c = chars[i]
            guard c == "%", i + 1 < chars.count else {
                literal.append(contentsOf: Array(String(c).utf8))
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
            // Conditions (`%400,501{User-agent}i`, `%!200h`) and `<`/`>`.
            while i < chars.count, chars[i] == "!" || chars[i] == "," || chars[i].isNumber || chars[i] == "<" || chars[i] == ">" { i += 1 }
            var argument: String?
            if i < chars.count, chars[i] == "{" {
                guard let close = chars[i...].firstIndex(of: "}") else {
                    throw .logFormat("\(String(chars[start...])): a %{ with no closing }")
                }
                argument = String(chars[(i + 1)..<close])
                i = close + 1
            }
            guard i < chars.count else { throw .logFormat("the format ends in a lone %") }
            var letter = chars[i]
            i += 1
            if letter == "^", i + 1 < chars.count {
                // %{Name}^ti, %{Name}^to: trailers.
                letter = chars[i + 1]
                i += 2
                try field("apache_trailer", directive: String(chars[start..<i]))
                continue
            }
            let directive = String(chars[start..<i])
            guard letters.contains(letter) else {
                throw .logFormat("\(directive) is not an Apache LogFormat directive")
            }
            switch letter {
            case "t":
                switch argument.map(timeArgument) {
                case nil:
                    literal.append(.openBracket)
                    try field("time_local", directive: directive)
                    literal.append(.closeBracket)
                case "sec"?, "msec"?: try field("msec", directive: directive)
                case "usec"?: try field(microseconds, directive: directive)
                case "msec_frac"?: try field(fractionMilli, directive: directive)
                case "usec_frac"?: try field(fractionMicro, directive: directive)
                default: try field(anyTime, directive: directive)
                }
            case "h", "a": try field(argument == nil || argument == "c" ? "remote_addr" : "apache_ignored", directive: directive)
            // The client behind a proxy: X-Forwarded-For's first address.
            case "i" where argument?.lowercased() == "x-forwarded-for": try field(forwardedFor, directive: directive)
            case "r": try field("request", directive: directive)
            case "s": try field("status", directive: directive)
            case "m": try field("request_method", directive: directive)
            case "U": try field("uri", directive: directive)
            case "q": try field("args", directive: directive)
            case "o":
                let isLocation = argument?.lowercased() == "location"
                try field(isLocation ? "sent_http_location" : "apache_ignored", directive: directive)
            default: try field("apache_ignored", directive: directive)
            }
        }
        flush()
        return pieces
    }

    /// `%{FORMAT}t`'s argument without `begin:`/`end:`.
    private static func timeArgument(_ argument: String) -> String {
        for prefix in ["begin:", "end:"] where argument.hasPrefix(prefix) { return String(argument.dropFirst(prefix.count)) }
        return argument
    }
}

extension String {
    /// Every `target` replaced with `replacement`.
    func replacingAll(_ target: String, with replacement: String) -> String {
        let t = Array(target)
        var out = ""
        var chars = Array(self)[...]
        while !chars.isEmpty {
            if chars.starts(with: t) {
                out += replacement
                chars = chars.dropFirst(t.count)
            } else {
                out.append(chars.removeFirst())
            }
        }
        return out
    }
}
