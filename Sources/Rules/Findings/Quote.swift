/// Quoting of log-derived text inside finding details.
package enum Quote {
    /// `"value"`, shortened to 80 characters.
    package static func text(_ s: String) -> String {
        // Most values are short: count bytes before counting characters.
        let short = s.utf8.count > 80 && s.count > 80 ? String(s.prefix(77)) + "..." : s
        return "\"" + short + "\""
    }

    /// A URL with codes redacted, quoted.
    static func url(_ s: String) -> String {
        text(CodeDigest.redact(s))
    }
}
