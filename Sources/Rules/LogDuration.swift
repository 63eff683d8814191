/// A span of log time written as a number and a unit: `90m`, `36h`, `7d`,
/// `3600s` (or plain seconds), as `--reuse-window` takes it.
package enum LogDuration {
    /// The longest span accepted: far past any use, and far from overflow
    /// once in milliseconds.
    package static let maximumDays = 3660

    /// The span in seconds; nil for text that is not a duration, is zero,
    /// or is longer than `maximumDays`.
    package static func seconds(_ text: String) -> Int? {
        var digits = Substring(text)
        var unit = 1
        switch text.last {
        case "s": unit = 1
        case "m": unit = 60
        case "h": unit = 3600
        case "d": unit = 86_400
        case let c? where c >= "0" && c <= "9": break
        default: return nil
        }
        if let last = text.last, !(last >= "0" && last <= "9") { digits = digits.dropLast() }
        guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy({ $0 >= "0" && $0 <= "9" }), let n = Int(digits) else { return nil }
        let total = n * unit
        guard total > 0, total <= maximumDays * 86_400 else { return nil }
        return total
    }
}
