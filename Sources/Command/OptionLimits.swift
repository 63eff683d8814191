/// The ranges the numeric options accept: every value inside is safe in
/// the arithmetic it feeds (milliseconds, buffer sizes), every value
/// outside is a usage error (docs/contract.md §8: no option value may
/// overflow).
package enum OptionLimits {
    /// `--session-timeout`: one second to a hundred years.
    package static let sessionTimeout: ClosedRange<Int> = 1...3_153_600_000
    /// `--max-line`: two read buffers of it are held per input.
    package static let maxLine: ClosedRange<Int> = 256...(16 << 20)
    /// `--max-sessions`.
    package static let maxSessions: ClosedRange<Int> = 1...1_000_000_000

    /// The first value out of range, as a one-line message; nil when all
    /// are fine.
    package static func check(sessionTimeout: Int, maxLine: Int, maxSessions: Int) -> String? {
        if !self.sessionTimeout.contains(sessionTimeout) {
            return "--session-timeout must be between 1 and \(self.sessionTimeout.upperBound) seconds (100 years), not \(sessionTimeout)"
        }
        if !self.maxLine.contains(maxLine) {
            return "--max-line must be between 256 and \(self.maxLine.upperBound) bytes (16 MiB), not \(maxLine)"
        }
        if !self.maxSessions.contains(maxSessions) {
            return "--max-sessions must be between 1 and \(self.maxSessions.upperBound), not \(maxSessions)"
        }
        return nil
    }
}
