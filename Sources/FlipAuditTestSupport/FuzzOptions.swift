import Command
import Parsing
import Rules

/// Treats the input as the value of a numeric option: whatever
/// `OptionLimits` and `LogDuration` accept must survive the arithmetic it
/// feeds (docs/contract.md §8: no option value may overflow), and what
/// they refuse is a usage error, never a trap.
public func fuzzOptions(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)

    if let n = Int(text) {
        if OptionLimits.check(sessionTimeout: n, maxLine: 65_536, maxSessions: 10) == nil {
            let ms = Int64(n).multipliedReportingOverflow(by: 1000)
            invariant(
                !ms.overflow && !ms.partialValue.addingReportingOverflow(Timestamp.latest).overflow,
                "--session-timeout \(n) accepted but overflows in milliseconds")
        }
        if OptionLimits.check(sessionTimeout: 600, maxLine: n, maxSessions: 10) == nil {
            invariant(n >= 256 && !(n + 2).multipliedReportingOverflow(by: 64).overflow, "--max-line \(n) accepted")
        }
        if OptionLimits.check(sessionTimeout: 600, maxLine: 65_536, maxSessions: n) == nil {
            invariant(n >= 1, "--max-sessions \(n) accepted")
        }
    }
    if let seconds = LogDuration.seconds(text) {
        let ms = Int64(seconds).multipliedReportingOverflow(by: 1000)
        invariant(
            seconds > 0 && !ms.overflow && !ms.partialValue.addingReportingOverflow(Timestamp.latest).overflow,
            "--reuse-window \(text.debugDescription) accepted as \(seconds) s")
    }
    return 0
}
