/// Makes text safe inside HTML, in element text and in quoted attribute
/// values alike: `&`, `<`, `>`, `"` and `'` become character references,
/// so no text can open a tag, close an attribute or start an entity.
/// Control, bidi and invisible characters are first shown as `\x1b` or
/// `\u{202E}` (as on the terminal), so a log cannot reorder what the
/// reader sees.
enum HTMLEscaping {
    package static func escape(_ text: String) -> String {
        let visible = TerminalText.escape(text)
        guard visible.utf8.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 == 0x27 }) else { return visible }
        var out = ""
        out.reserveCapacity(visible.utf8.count + 16)
        for c in visible.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// `escape`, then at most `limit` characters (with `…` when cut), so
    /// one long log value cannot make the report large. Cut before
    /// escaping: an entity is never split.
    package static func escape(_ text: String, limit: Int) -> String {
        text.count > limit ? escape(String(text.prefix(limit))) + "…" : escape(text)
    }

    /// Our own prose with `code` spans marked by backticks: escaped, then
    /// each backtick pair made a `<code>` element.
    static func prose(_ text: String) -> String {
        let parts = escape(text).split(separator: "`", omittingEmptySubsequences: false)
        var out = ""
        for (i, part) in parts.enumerated() {
            out += i % 2 == 1 && i < parts.count - 1 ? "<code>" + part + "</code>" : String(part)
        }
        return out
    }
}
