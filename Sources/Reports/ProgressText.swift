/// The text of the progress line on a terminal (docs/contract.md §9):
/// percent of all input bytes (as stored: compressed bytes for gzip), bytes
/// and rate, time left, files done of total. When an input is a stream its
/// size is unknown: then bytes and rate only. A pure function, so it is
/// tested apart from the terminal.
package enum ProgressText {
    /// - Parameters:
    ///   - read: bytes read so far from all inputs, as stored.
    ///   - total: the inputs' sizes added up; nil when unknown.
    ///   - filesDone, fileCount: inputs finished, and all of them.
    ///   - elapsed: seconds since reading started.
    package static func line(read: UInt64, total: UInt64?, filesDone: Int, fileCount: Int, elapsed: Double) -> String {
        let rate = elapsed > 0 ? Double(read) / elapsed : 0
        let rateText = rate > 0 ? TerminalReport.bytes(UInt64(rate)) + "/s" : "–/s"
        let files = "files \(filesDone)/\(fileCount)"
        guard let total, total > 0 else {
            return "\(TerminalReport.bytes(read)) read  \(rateText)  \(files)"
        }
        let done = min(read, total)
        let percent = Int(Double(done) * 100 / Double(total))
        // Time left only once the rate means something.
        let left: String
        if rate > 0 && elapsed >= 0.5 {
            left = duration(Double(total - done) / rate) + " left"
        } else {
            left = "–:–– left"
        }
        return "\(percent)%  \(TerminalReport.bytes(done)) of \(TerminalReport.bytes(total))  \(rateText)  \(left)  \(files)"
    }

    /// `m:ss`, or `h:mm:ss` from an hour on.
    package static func duration(_ seconds: Double) -> String {
        // Capped (a stalled read gives a huge estimate), and never negative.
        let s = Int(min(max(seconds, 0), 359_999).rounded(.up))
        let (h, m, r) = (s / 3600, s / 60 % 60, s % 60)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return h > 0 ? "\(h):\(two(m)):\(two(r))" : "\(m):\(two(r))"
    }
}
