/// The summary fits 120 terminal columns (docs/outputs.md): a finding's
/// example line is cut after its `FILE:LINE` with `…`, never before it;
/// prose (coverage, advice, notes) is wrapped at spaces, its next lines
/// indented under its text. Widths are display widths, without the
/// colour codes. A single word wider than the room (a long path) is left
/// whole: a name is never cut.
enum SummaryWidth {
    static let columns = 120

    /// `keep` whole, then as much of `detail` as fits, `…` where it was cut.
    static func cut(_ keep: String, _ detail: String) -> String {
        let room = columns - visible(keep)
        guard visible(detail) > room else { return keep + detail }
        var out = String.UnicodeScalarView()
        var used = 0
        for scalar in detail.unicodeScalars {
            let w = DisplayWidth.of(scalar)
            if used + w > room - 1 { break }
            out.append(scalar)
            used += w
        }
        return keep + String(out) + "…"
    }

    /// Every line of `text` over the width wrapped at spaces; the lines it
    /// adds start under the first line's text (after a `- ` bullet).
    static func wrap(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            visible(String(line)) <= columns ? String(line) : wrapped(String(line))
        }.joined(separator: "\n")
    }

    private static func wrapped(_ line: String) -> String {
        let indent = line.prefix { $0 == " " }.count
        let body = line.dropFirst(indent)
        // The hanging indent is measured on what shows (colour codes off).
        let shown = plain(line)
        let shownIndent = shown.prefix { $0 == " " }.count
        let hang = shownIndent + (shown.dropFirst(shownIndent).hasPrefix("- ") ? 2 : 4)
        var lines: [String] = []
        // A bullet stays with the first word.
        let bullet = body.hasPrefix("- ")
        var current = String(repeating: " ", count: indent) + (bullet ? "- " : "")
        var width = indent + (bullet ? 2 : 0)
        var empty = true
        for word in body.dropFirst(bullet ? 2 : 0).split(separator: " ", omittingEmptySubsequences: false) {
            let w = visible(String(word))
            if !empty && width + 1 + w > columns {
                lines.append(current)
                current = String(repeating: " ", count: hang) + word
                width = hang + w
                continue
            }
            current += (empty ? "" : " ") + word
            width += (empty ? 0 : 1) + w
            empty = false
        }
        lines.append(current)
        return lines.joined(separator: "\n")
    }

    /// `text` without ANSI colour codes (`ESC [ … m`).
    static func plain(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        var inCode = false
        for scalar in text.unicodeScalars {
            if inCode {
                if scalar == "m" { inCode = false }
            } else if scalar == "\u{1B}" {
                inCode = true
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// Display width without ANSI colour codes.
    static func visible(_ text: String) -> Int { DisplayWidth.of(plain(text)) }
}
