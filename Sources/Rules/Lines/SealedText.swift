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

    /// Why a sealed file cannot be read: at `line` (1-based), or the whole
    /// file when nil.
    package struct Problem: Error {
        package var line: Int?
        package var reason: String
    }

    /// Reads a sealed file of tagged lines, the one skeleton of every such
    /// reader (a checkpoint, a job plan): the file ends with a newline, its
    /// first line is accepted by `header` (nil: accepted; else why not), the
    /// seal matches, and each line between the first and the end line is
    /// handed to `record` as its tag (the text before the first tab), the
    /// rest and its line number. A `Malformed` record is a problem at its line.
    package static func read(
        _ bytes: [UInt8],
        header: (ArraySlice<UInt8>) -> String?,
        record: (_ tag: String, _ rest: ArraySlice<UInt8>, _ line: Int) throws(TextFields.Malformed) -> Void
    ) throws(Problem) {
        var lines = TextFields.parts(bytes[...], separator: .newline, expected: bytes.count / 64)
        guard lines.last?.isEmpty == true else { throw Problem(line: nil, reason: "cut off (no newline at the end)") }
        lines.removeLast()
        if let refused = header(lines.first ?? [][...]) { throw Problem(line: 1, reason: refused) }
        if let problem = problem(bytes, lines: lines) { throw Problem(line: nil, reason: problem) }
        for (i, line) in lines.enumerated().dropFirst().dropLast() {
            let tab = line.firstIndex(of: .tab) ?? line.endIndex
            let tag = String(decoding: line[..<tab], as: UTF8.self)
            let rest = tab < line.endIndex ? line[(tab + 1)...] : [][...]
            do throws(TextFields.Malformed) { try record(tag, rest, i + 1) } catch {
                throw Problem(line: i + 1, reason: "\(error)")
            }
        }
    }
}
