import Foundation
import Testing

@testable import Command
@testable import Parsing
@testable import Reading

/// Numeric option values, random, huge, negative and at the edges, through
/// the real command line: never a crash, only a run (exit 0) or a usage
/// error (exit 2) — and a usage error exactly when `OptionLimits` refuses
/// the value.
@Suite("Option values (fuzzed)")
struct OptionFuzzTests {
    /// Values that probe the edges of every range and of Int itself.
    static func values(count: Int, seed: UInt64) -> [String] {
        var rng = SplitMix(seed: seed)
        var out = [
            "0", "1", "-1", "255", "256", "600", "3153600000", "3153600001", "16777216", "16777217",
            "1000000000", "1000000001", "9223372036854775807", "-9223372036854775808",
            "9223372036854775808", "10000000000000000", "99999999999999999999999", "1e9", "0x10", " 5", "+7",
        ]
        while out.count < count {
            switch rng.next() % 4 {
            case 0: out.append(String(Int64(bitPattern: rng.next())))
            case 1: out.append(String(rng.next() % 100_000))
            case 2: out.append(String(Int64(1) << (rng.next() % 63)))
            default: out.append(String(repeating: "9", count: Int(rng.next() % 30) + 1))
            }
        }
        return out
    }

    @Test("OptionLimits: every accepted value survives the arithmetic it feeds")
    func limits() {
        for value in Self.values(count: 5_000, seed: 1) {
            guard let n = Int(value) else { continue }
            if OptionLimits.check(sessionTimeout: n, maxLine: 65_536, maxSessions: 10) == nil {
                // SessionTracker's timeout in milliseconds, added to the latest time a log may hold.
                let ms = Int64(n).multipliedReportingOverflow(by: 1000)
                #expect(!ms.overflow && !(ms.partialValue.addingReportingOverflow(Timestamp.latest).overflow))
            }
            if OptionLimits.check(sessionTimeout: 600, maxLine: n, maxSessions: 10) == nil {
                // The analyzer's piece size: two buffers of a line.
                #expect(!(PieceCutter.minimumBuffer(maxLine: n).multipliedReportingOverflow(by: 2).overflow))
                #expect(n >= 256)
            }
            if OptionLimits.check(sessionTimeout: 600, maxLine: 65_536, maxSessions: n) == nil { #expect(n >= 1) }
        }
    }

    @Test("the command: random numeric values are a run or a usage error, never a crash")
    func command() throws {
        let dir = temporaryDirectory()
        let log = writeLog(
            ["203.0.113.9 - - [22/Nov/2026:10:00:01 +0000] \"GET / HTTP/1.1\" 200 5 \"-\" \"curl\""],
            named: "one.log", in: dir)
        let options = ["--session-timeout", "--max-line", "--max-sessions", "--reuse-window"]
        let units = ["s", "m", "h", "d", ""]
        for (i, number) in Self.values(count: 80, seed: 22).enumerated() {
            let option = options[i % options.count]
            let value = option == "--reuse-window" ? number + units[i / options.count % units.count] : number
            let run = try runCLI(["-q", "\(option)=\(value)", log])
            #expect(run.status == 0 || run.status == 2, "\(option) \(value): exit \(run.status) \(run.stderr)")
            #expect(!run.stderr.contains("Fatal error"), "\(option) \(value)")
            if option != "--reuse-window", let n = Int(value) {
                let refused: Bool
                switch option {
                case "--session-timeout": refused = !OptionLimits.sessionTimeout.contains(n)
                case "--max-line": refused = !OptionLimits.maxLine.contains(n)
                default: refused = !OptionLimits.maxSessions.contains(n)
                }
                #expect(run.status == (refused ? 2 : 0), "\(option) \(value): exit \(run.status)")
            }
        }
    }
}
