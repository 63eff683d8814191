import Foundation
import Reading

/// Makes log-derived text safe for a terminal: control characters, escape
/// sequences and Unicode bidi/invisible controls are shown as `\x1b` or
/// `\u{202E}` instead of being interpreted.
package enum TerminalText {
    package static func escape(_ text: String) -> String {
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
        case 0x00...0x1F, 0x7F...0x9F: return true  // C0, DEL, C1
        case 0x200B...0x200F, 0x2028...0x202E, 0x2060...0x2069: return true  // zero-width, bidi, separators
        case 0x061C, 0xFEFF: return true
        default: return false
        }
    }
}

/// RFC 4180 cells with formula-injection protection (docs/contract.md §7), built as
/// UTF-8 bytes.
package enum CSV {
    /// A cell: prefixed with `'` when it starts with `=`, `+`, `-`, `@`,
    /// tab or carriage return; quoted when it holds `,`, `"`, CR or LF.
    package static func cell(_ value: String) -> String {
        var out: [UInt8] = []
        append(value, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// One line: cells joined by commas, ended by `\n`.
    package static func row(_ cells: [String]) -> String {
        var out: [UInt8] = []
        append(row: cells, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends one line to `out`.
    static func append(row cells: [String], to out: inout [UInt8]) {
        for (i, c) in cells.enumerated() {
            if i > 0 { out.append(.comma) }
            append(c, to: &out)
        }
        out.append(.newline)
    }

    /// Appends one escaped cell to `out` (the rules are `RowBytes.cell`'s).
    static func append(_ value: String, to out: inout [UInt8]) {
        RowBytes.write(atMost: RowBytes.escapedBound(value.utf8.count), to: &out) { row in row.cell(value) }
    }

    /// Whether a cell starting with `first` is prefixed with `'`.
    @inline(__always)
    static func startsFormula(_ first: UInt8) -> Bool {
        first == .equals || first == .plus || first == .minus || first == .at || first == .tab || first == .carriageReturn
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
