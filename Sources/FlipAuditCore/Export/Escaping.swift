/// Makes log-derived text safe for a terminal: control characters, escape
/// sequences and Unicode bidi/invisible controls are shown as `\x1b` or
/// `\u{202E}` instead of being interpreted.
public enum TerminalText {
    public static func escape(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if needsEscape(scalar) {
                if scalar.value < 0x100 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\x" + (hex.count < 2 ? "0" + hex : hex)
                } else {
                    out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
                }
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    static func needsEscape(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x00...0x1F, 0x7F...0x9F: return true                     // C0, DEL, C1
        case 0x200B...0x200F, 0x2028...0x202E, 0x2060...0x2069: return true  // zero-width, bidi, separators
        case 0x061C, 0xFEFF: return true
        default: return false
        }
    }
}

/// RFC 4180 cells with formula-injection protection (SPEC §7).
public enum CSV {
    /// A cell: prefixed with `'` when it starts with `=`, `+`, `-`, `@`,
    /// tab or carriage return; quoted when it holds `,`, `"`, CR or LF.
    public static func cell(_ value: String) -> String {
        var v = value
        if let first = v.unicodeScalars.first, ["=", "+", "-", "@", "\t", "\r"].contains(first) {
            v = "'" + v
        }
        if v.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) {
            v = "\"" + v.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
        return v
    }

    /// One line: cells joined by commas, ended by `\n`.
    public static func row(_ cells: [String]) -> String {
        cells.map(cell).joined(separator: ",") + "\n"
    }
}

extension String {
    /// Every occurrence of `target` replaced (no Foundation needed).
    func replacingOccurrences(of target: String, with replacement: String) -> String {
        guard !target.isEmpty, contains(target) else { return self }
        var out = ""
        var rest = self[...]
        while let r = rest.range(of: target) {
            out += rest[..<r.lowerBound]
            out += replacement
            rest = rest[r.upperBound...]
        }
        return out + rest
    }
}
