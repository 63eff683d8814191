import Foundation
import Testing

@testable import Audit
@testable import Reading
@testable import Rules

/// A folder of many small files is read with kept threads, kept line
/// scanners and kept zlib streams, a few inputs ahead of the merge. None of
/// that may show in the results.
@Suite("Many small inputs")
struct ManyInputsTests {
    /// Flip sessions over 40 minutes from two servers, a line a few seconds
    /// apart, out of order by up to 20 s: answered with a code, with an
    /// error, not at all, or with a code answered twice; some states used
    /// twice. In time order (with the jitter), as one server logs them.
    static func night(seed: UInt64) -> [String] {
        var random = SplitMix(seed: seed)
        var timed: [(Int, String)] = []
        for j in 0..<240 {
            let t = j * 10 + Int(random.next() % 20)
            let state = "st\(j % 200)"
            let ip = j % 2 == 0 ? "203.0.113.9" : "198.51.100.7"
            func line(_ at: Int, _ target: String, _ status: Int, location: String = "-") -> (Int, String) {
                (at, combined(at % 60, target, status, location: location, ip: ip, minute: at / 60))
            }
            timed.append(line(t, authorize(state: state), 200))
            switch random.next() % 4 {
            case 0: timed.append(line(t + 4, "/consent", 302, location: "\(opa)?code=c\(j)&state=\(state)"))
            case 1: timed.append(line(t + 7, "/consent", 302, location: "\(opa)?error=access_denied&state=\(state)"))
            case 2: break
            default:
                timed.append(line(t + 3, "/consent", 302, location: "\(opa)?code=c\(j)&state=\(state)"))
                timed.append(line(t + 90, "/consent", 302, location: "\(home)?code=c\(j)&state=\(state)"))
            }
            timed.append(line(t + 1, "/static/app.js?v=\(j)", 200))
        }
        return timed.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// CSV rows without their source cell (the file and line differ), sorted.
    static func rows(_ csv: String) -> [String] {
        csv.split(separator: "\n").dropFirst().map { line in
            String(line[..<line.lastIndex(of: ",")!])
        }.sorted()
    }

    @Test("the same lines as one file or as many small ones give the same rows", arguments: [true, false])
    func manyFiles(parallel: Bool) throws {
        let lines = Self.night(seed: 7)
        let dir = temporaryDirectory()
        let one = writeLog(lines, named: "one.log.gz", in: temporaryDirectory())
        var paths: [String] = []
        // Pieces of 1 to 24 lines, the last lines of one in the next's time.
        var random = SplitMix(seed: 11)
        var start = 0
        while start < lines.count {
            let end = min(lines.count, start + 1 + Int(random.next() % 24))
            paths.append(writeLog(Array(lines[start..<end]), named: String(format: "part-%04d.gz", paths.count), in: dir))
            start = end
        }
        #expect(paths.count > 40)
        var configuration = AuditConfiguration()
        configuration.parallel = parallel
        let whole = try Audit.run([one], configuration)
        let pieces = try Audit.run([dir], configuration)
        #expect(whole.findings.count > 50)
        #expect(Self.rows(pieces.csv[0]) == Self.rows(whole.csv[0]))
        #expect(Self.rows(pieces.csv[1]) == Self.rows(whole.csv[1]))
        #expect(pieces.csv[2] == whole.csv[2])
        #expect(pieces.accounting.records == whole.accounting.records)
    }

    @Test("a line scanner kept from a JSON input reads the next input by its own format")
    func formatPerInput() throws {
        let dir = temporaryDirectory()
        let json = (0..<30).map { i in
            #"{"time":"2026-11-22T10:00:\#(String(format: "%02d", i))Z","remote_addr":"203.0.113.9","request":"GET /static/\#(i) HTTP/1.1","status":200}"#
        }
        let combinedLines = (0..<30).map { i in combined(i, authorize(state: "c\(i)"), 200, minute: 1) }
        // The combined file is read after the JSON one (its records are
        // later), by a scanner the JSON file gave back.
        let a = writeLog(json, named: "a.log.gz", in: dir)
        let b = writeLog(combinedLines, named: "b.log.gz", in: dir)
        for parallel in [true, false] {
            var configuration = AuditConfiguration()
            configuration.parallel = parallel
            let both = try Audit.run([a, b], configuration)
            let alone = try Audit.run([b], configuration)
            #expect(both.accounting.malformedLines == 0)
            #expect(both.accounting.records == 60)
            #expect(both.accounting.inScopeFlipRecords == alone.accounting.inScopeFlipRecords)
            #expect(Self.rows(both.csv[0]) == Self.rows(alone.csv[0]))
        }
    }

    @Test("a zlib stream kept from a damaged gzip input decodes the next input whole")
    func inflaterAfterDamage() throws {
        let dir = temporaryDirectory()
        let lines = (0..<2000).map { i in combined(i % 60, "/static/\(i)?v=\(i * 7919)", 200, minute: i / 60 % 50) }
        let good = writeLog(lines, named: "good.log.gz", in: dir)
        var damaged = Array(FileManager.default.contents(atPath: good)!)
        for i in stride(from: damaged.count / 3, to: damaged.count / 3 + 64, by: 1) { damaged[i] ^= 0x5A }
        let bad = writeBytes(damaged, named: "bad.log", in: dir)
        // Several damaged readers give back their streams, in a state zlib
        // left after the error; the good file is then read with them.
        for _ in 0..<3 {
            let read = readLines(bad)
            #expect(read.error != nil)
        }
        for _ in 0..<3 {
            let read = readLines(good)
            #expect(read.error == nil)
            #expect(read.lines == lines)
        }
    }

    @Test("the two-thread map gives every result in order", arguments: [0, 1, 2, 15, 16, 17, 33, 1000])
    func map(count: Int) {
        let input = Array(0..<count)
        #expect(WorkerThread.map(input) { $0 * $0 + 1 } == input.map { $0 * $0 + 1 })
    }

    @Test("jobs on kept threads all run, however many start at once")
    func keptThreads() {
        // More jobs than threads kept idle, each waiting for the next to
        // start: a job never waits for a thread to come free.
        let count = 40
        let state = HandOff(0)
        for _ in 0..<count {
            WorkerThread.read.start {
                state.change { $0 += 1 }
                _ = state.wait(for: { $0 >= count ? true : nil }, until: { $0 >= count })
            }
        }
        #expect(state.wait(for: { $0 >= count ? $0 : nil }, until: { $0 >= count }) == count)
        // And again, on the threads the first round left idle.
        let again = HandOff(0)
        for _ in 0..<count { WorkerThread.read.start { again.change { $0 += 1 } } }
        #expect(again.wait(for: { $0 >= count ? $0 : nil }, until: { $0 >= count }) == count)
    }
}

@Suite("--exclude: files of a directory argument left out")
struct ExcludeTests {
    @Test("error.log* in a folder is left out and counted in one note; a file named on the command line is read")
    func errorLogs() throws {
        let dir = temporaryDirectory()
        let logs = dir + "/nginx"
        try FileManager.default.createDirectory(atPath: logs, withIntermediateDirectories: true)
        _ = writeLog([flipLine("a1")], named: "access.log", in: logs)
        let error = writeLog(["2026/11/22 10:00:01 [error] 12#12: *1 open() failed"], named: "error.log", in: logs)
        _ = writeLog(["2026/11/22 09:00:01 [error] 12#12: *1 open() failed"], named: "error.log.1", in: logs)
        func files(_ args: [String]) throws -> (Int, Int, String) {
            let run = try runCLI(args + ["--json", "-"])
            let doc = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
            let input = try #require(doc["input"] as? [String: Any])
            return (input["files"] as? Int ?? -1, input["malformed_lines"] as? Int ?? -1, run.stderr)
        }
        // Read, the error logs' lines are nginx's notices: not malformed.
        let all = try files([logs])
        #expect(all.0 == 3 && all.1 == 0)
        let kept = try files([logs, "--exclude", "error.log*"])
        #expect(kept.0 == 1 && kept.1 == 0)
        #expect(kept.2.contains("\(logs): 2 file(s) left out by --exclude"))
        // By path as the walk names it, and never a file named as an argument.
        #expect(try files([logs, "--exclude", "*/nginx/error*"]).0 == 1)
        #expect(try files([logs, error, "--exclude", "error.log*"]).0 == 2)
        // The distributed plan lists the same files.
        let plan = try runCLI(["stage", "plan", logs, "--exclude", "error.log*"])
        #expect(plan.status == 0)
        let listed = plan.stdout.split(separator: "\n").filter { $0.hasPrefix("file\t") }
        #expect(listed.count == 1 && listed.first?.contains("access.log") == true)
    }
}
