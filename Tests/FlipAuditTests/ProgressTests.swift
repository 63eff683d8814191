import Foundation
import Testing

@testable import Audit
@testable import Reading
@testable import Reports
@testable import Rules

@Suite("Progress line")
struct ProgressTests {
    @Test("percent, bytes, rate, time left and files, from the figures given")
    func known() {
        let mib: UInt64 = 1 << 20
        let (read, total, elapsed) = (30 * mib, 120 * mib, 3.0)
        let line = ProgressText.line(read: read, total: total, filesDone: 2, fileCount: 7, elapsed: elapsed)
        let percent = Int(read * 100 / total)
        let left = ProgressText.duration(Double(total - read) / (Double(read) / elapsed))
        #expect(
            line == "\(percent)%  \(TerminalReport.bytes(read)) of \(TerminalReport.bytes(total))  \(TerminalReport.bytes(read / 3))/s  \(left) left  files 2/7"
        )
        #expect(left == "0:09")
        // Past the total (a file grew while read): 100 %, never more.
        #expect(ProgressText.line(read: 2 * total, total: total, filesDone: 7, fileCount: 7, elapsed: 1).hasPrefix("100%  "))
        // No time left before the rate means something.
        #expect(ProgressText.line(read: 1, total: total, filesDone: 0, fileCount: 1, elapsed: 0.1).contains("–:–– left"))
    }

    @Test("a stream: bytes and rate only")
    func unknownTotal() {
        let line = ProgressText.line(read: 5 << 20, total: nil, filesDone: 0, fileCount: 1, elapsed: 2)
        #expect(line == "\(TerminalReport.bytes(5 << 20)) read  \(TerminalReport.bytes(5 << 19))/s  files 0/1")
        #expect(!line.contains("%") && !line.contains("left"))
    }

    @Test("durations as m:ss and h:mm:ss, capped")
    func durations() {
        #expect(ProgressText.duration(0) == "0:00")
        #expect(ProgressText.duration(61.2) == "1:02")
        #expect(ProgressText.duration(3600 * 2 + 60 * 3 + 4) == "2:03:04")
        #expect(ProgressText.duration(1e300) == "99:59:59")
        #expect(ProgressText.duration(-5) == "0:00")
    }

    @Test("the analyzer reports compressed positions that end at each file's size, and the total of the sizes")
    func analyzerPositions() throws {
        final class Log: @unchecked Sendable {
            let lock = NSLock()
            var items: [Analyzer.Progress] = []
        }
        let log = Log()
        let paths = try samplePaths()
        _ = try Analyzer(
            configuration: AuditConfiguration(),
            progress: { p in
                log.lock.lock(); log.items.append(p); log.lock.unlock()
            }
        ).run(paths)
        let sizes = try paths.map { try FileManager.default.attributesOfItem(atPath: $0)[.size] as! UInt64 }
        #expect(log.items.allSatisfy { $0.totalBytes == sizes.reduce(0, +) })
        let ends = log.items.filter(\.finished)
        #expect(Set(ends.map(\.fileNumber)).count == paths.count)
        // Inputs are numbered in rank order (first record time): find each
        // by its name.
        for (path, size) in zip(paths, sizes) {
            let number = try #require(ends.first { $0.file == path }?.fileNumber)
            #expect(ends.allSatisfy { $0.fileNumber != number || $0.compressedBytes == size })
            let positions = log.items.filter { $0.fileNumber == number }.map(\.compressedBytes)
            #expect(positions == positions.sorted() && positions.allSatisfy { $0 <= size } && positions.last == size)
        }
        // When every byte is read, every file counts as done: not only when
        // the time-ordered merge reaches its end (then every input ends at
        // once, and the line said "files 0/4" at 99%).
        var read: [Int: UInt64] = [:]
        var done: Set<Int> = []
        for p in log.items {
            read[p.fileNumber] = p.compressedBytes
            if p.finished { done.insert(p.fileNumber) }
            if read.values.reduce(0, +) == sizes.reduce(0, +) { break }
        }
        #expect(done.count == paths.count)
        // A stream has no known total.
        #expect(FeedSetup.totalSize([InputFile(displayName: "-", path: nil)]) == nil)
        #expect(FeedSetup.totalSize([InputFile(displayName: "/dev/null", path: "/dev/null")]) == nil)
    }

    @Test("on a terminal the line is drawn and cleared; never when standard error is a pipe")
    func terminal() throws {
        // Outputs go to a temporary folder: never name a device as an
        // output here (an output is written through a rename).
        let dir = temporaryDirectory()
        let piped = try runCLI([sampleLogs, "--json", dir + "/piped.json"])
        #expect(!piped.stderr.contains("\r") && !piped.stderr.contains("files "))
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else { return }
        let binary = Bundle.module.bundleURL.deletingLastPathComponent().appendingPathComponent("flipaudit").path
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        p.arguments = ["-q", "-e", "-c", "'\(binary)' '\(sampleLogs)' --json '\(dir)/tty.json' > /dev/null", "/dev/null"]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        let draws = text.components(separatedBy: "\r\u{1B}[K").dropFirst()
        #expect(draws.contains { $0.contains("%") && $0.contains("files ") }, "\(text.prefix(300))")
        // The last progress line is cleared: a clear is followed by no
        // progress text, only messages (the malformed-line warnings).
        let afterLastDraw = text.components(separatedBy: "\r\u{1B}[K").last ?? ""
        #expect(!afterLastDraw.contains("% "))
    }
}
