import Crypto
import Reading

/// Text files flipaudit writes whole and reads back whole (a checkpoint, a
/// job plan) end with a line that seals them:
///
///     end   LINES   SHA-256 of every byte before this line
///
/// so that a changed byte or a cut is found before any line is believed.
package enum SealedText {
    /// `content` (of `lines` lines) followed by its end line.
    package static func seal(_ content: [UInt8], lines: Int) -> [UInt8] {
        content + Array("end\t\(lines)\t\(Checkpoint.hex(Array(SHA256.hash(data: content))))\n".utf8)
    }

    /// Why `lines` — the newline-ended lines of `bytes` — are not sealed by
    /// their last line; nil when they are.
    package static func problem(_ bytes: [UInt8], lines: [ArraySlice<UInt8>]) -> String? {
        guard let endLine = lines.last, endLine.starts(with: "end\t".utf8) else { return "cut off (no end line)" }
        let endFields = TextFields.parts(endLine, separator: .tab)
        let body = bytes[..<(bytes.count - endLine.count - 1)]
        guard endFields.count == 3, Int(String(decoding: endFields[1], as: UTF8.self)) == lines.count - 1,
            String(decoding: endFields[2], as: UTF8.self) == Checkpoint.hex(Array(SHA256.hash(data: body)))
        else { return "line \(lines.count): the end line does not match the content (changed or cut off)" }
        return nil
    }
}
