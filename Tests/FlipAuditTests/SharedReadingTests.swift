import Foundation
import Testing

@testable import Audit
@testable import Parsing
@testable import Reading
@testable import Rules

/// Everything a feed hands the merge, as comparable text: each batch's
/// events (time, source, status, client, request and return fields),
/// frontier and Location flag, then the input's summary and messages.
func drain(_ feed: EventFeed) -> [String] {
    var out: [String] = []
    while true {
        switch feed.next() {
        case .batch(let batch):
            let events = batch.events.map { e in
                "\(e.time)@\(e.source.line) \(e.status) \(e.clientIP) req=\(e.request.map { "\($0.state ?? "-")|\($0.clientID ?? "-")|\($0.redirectURI ?? "-")" } ?? "none") "
                    + "ret=\(e.returned.map { "\($0.state ?? "-")|\($0.codeDigest?.description ?? "-")|\($0.error ?? "-")" } ?? "none")"
            }
            out.append(
                "batch frontier=\(batch.frontier.map(String.init) ?? "nil") location=\(batch.locationLines.text.map(String.init) ?? "nil")/\(batch.locationLines.json.map(String.init) ?? "nil") [\(events.joined(separator: "; "))]"
            )
        case .end(let scan):
            var accounting = scan.accounting
            let reasons = accounting.malformedByReason.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            accounting.malformedByReason = [:]
            out.append("end \(accounting) \(reasons) \(scan.summary) latest=\(String(describing: scan.latestTime)) error=\(String(describing: scan.error))")
            out += scan.warnings
            return out
        }
    }
}

/// A log that puts every line-framing case where chunk edges can hit it:
/// blank and unreadable lines before the first record, CRLF, lines just
/// under, at and over the limit (with and without `\r`), over-long lines
/// longer than a buffer, NUL bytes, invalid UTF-8, flip requests and
/// returns, and no newline after the last line.
func framingLog(maxLine: Int, repeats: Int) -> [UInt8] {
    var out: [UInt8] = []
    func add(_ s: String, _ end: String = "\n") { out += Array(s.utf8) + Array(end.utf8) }
    add("")
    add("   \t")
    out += [0xC3, 0x28, 0x0A]  // invalid UTF-8 before any record
    for r in 0..<repeats {
        let second = r % 50
        add(
            combined(
                second, authorize(state: "st\(r)"), 302,
                location: "https://oauth-redirect.googleusercontent.com/a/demo-project?code=c\(r)&state=st\(r)"), r % 3 == 0 ? "\r\n" : "\n")
        add(combined(second, "/static/app.js?v=\(r)", 200))
        let filler = combined(second, "/p?" + String(repeating: "q", count: 40), 200)
        let pad = maxLine - filler.utf8.count
        if pad > 0 {
            // Exactly at the limit, with CRLF; one over; one over plus CR.
            let atLimit = combined(second, "/p?" + String(repeating: "q", count: 40 + pad), 200)
            add(atLimit, "\r\n")
            add(atLimit + "z")
            add(atLimit + "z", "\r\n")
        }
        if r % 4 == 1 { add(String(repeating: "L", count: maxLine * (2 + r % 7)), r % 8 == 1 ? "\r\n" : "\n") }
        if r % 5 == 2 { out += Array("nul\u{0}line\n".utf8) }
        if r % 6 == 3 { out += [0x66, 0xFF, 0x0A] }
        if r % 7 == 4 { add("") }
        add(combined(second + 1, "/login", 302, location: "https://example.com/welcome"))
    }
    add(combined(59, authorize(state: "last"), 200), "")
    return out
}

@Suite("Reading one input with any number of threads")
struct SharedReadingTests {
    static let maxLine = 600

    func configuration(_ format: AuditConfiguration.Format = .auto) -> AuditConfiguration {
        var c = AuditConfiguration()
        c.maxLine = Self.maxLine
        c.format = format
        return c
    }

    /// The reference reading of `file`, written here without the feed:
    /// the reader's chunks split into lines as they come, on the calling
    /// thread, every event built with its line.
    func direct(_ file: InputFile, _ configuration: AuditConfiguration) -> [String] {
        var assembler = ScanAssembler(file: file, format: configuration.format)
        var batches: [EventBatch] = []
        let reader: LogFileReader
        do {
            reader = try LogFileReader(path: file.path)
        } catch {
            return drain(Ended(assembler.finish(end: nil, failure: error, emit: { batches.append($0) }), batches))
        }
        var splitter = LineSplitter(maxLine: configuration.maxLine)
        var scanner = try! LineScanner(fileIndex: 0, configuration: configuration)
        scanner.linesBefore = 0
        var failure: InputError?
        do {
            while let chunk = try reader.nextChunk() {
                splitter.feed(chunk, to: &scanner)
                assembler.add(scanner.take(), emit: { batches.append($0) })
            }
            splitter.finish(to: &scanner)
        } catch {
            failure = error
            if let cut = splitter.discardPartialLine() { scanner.cutOff(bytes: cut) }
        }
        assembler.add(scanner.take(), emit: { batches.append($0) })
        let end = assembler.finish(end: InputEnd(reader), failure: failure, emit: { batches.append($0) })
        return drain(Ended(end, batches))
    }

    /// Batches already read, then their input's end, as a feed.
    final class Ended: EventFeed {
        private var items: [FeedItem]
        init(_ end: FileScan, _ batches: [EventBatch]) { items = batches.map { .batch($0) } + [.end(end)] }
        func next() -> FeedItem { items.removeFirst() }
        func prepare() {}
    }

    /// `file` read by a feed with `workers` threads besides the caller.
    func feed(
        _ file: InputFile, _ configuration: AuditConfiguration, workers: Int = 2, depth: Int,
        bufferSize: Int = LogFileReader.bufferSize
    ) -> [String] {
        let feed = Feed(
            inputs: [file], maxLine: configuration.maxLine,
            shape: .init(workers: workers, depth: depth, buffers: 8, pieceBytes: bufferSize),
            makeScanner: { PieceScanner(configuration: configuration, names: [file.displayName]) })
        defer { feed.stop() }
        return drain(InputFeed(feed, index: 0, file: file, format: configuration.format))
    }

    /// Compares the two readings; returns the single-threaded one.
    @discardableResult
    func compare(_ path: String, _ configuration: AuditConfiguration, bufferSizes: [Int], depths: [Int] = [2, 3, 8]) -> [String] {
        let file = InputFile(displayName: (path as NSString).lastPathComponent, path: path)
        let reference = direct(file, configuration)
        #expect(reference.count >= 2)
        for size in bufferSizes {
            for depth in depths {
                for workers in [0, 1, 2] {
                    let read = feed(file, configuration, workers: workers, depth: depth, bufferSize: size)
                    #expect(read == reference, "buffer \(size), depth \(depth), \(workers) workers: \(file.displayName)")
                }
            }
        }
        return reference
    }

    @Test(
        "pieces cut at any buffer size give the single-threaded batches, line numbers, counts and messages",
        arguments: ["framing.log", "framing.log.gz"])
    func framing(name: String) {
        let dir = temporaryDirectory()
        let path = writeBytes(framingLog(maxLine: Self.maxLine, repeats: 1000), named: name, in: dir)
        let reference = compare(path, configuration(), bufferSizes: [Self.maxLine + 2, Self.maxLine + 3, 700, 1024, 4099, 65536])
        // The log exercises what it is meant to: several batches, every
        // request in scope, each kind of bad line.
        #expect(reference.filter { $0.hasPrefix("batch") }.count == 4)
        let end = reference.first { $0.hasPrefix("end") } ?? ""
        #expect(end.contains("inScopeFlipRecords: 1001"))
        #expect(end.contains("invalid UTF-8=168") && end.contains("NUL byte in line=200"))
        #expect(end.contains("line longer than --max-line=2250"))
    }

    @Test(
        "damaged, multi-member, CRLF and empty inputs read the same on two threads",
        arguments: [
            "truncated.log.gz", "corrupt-middle.log.gz", "crlf.log.gz", "multi-member.log.gz",
            "trailing-garbage.log.gz", "empty-member.log.gz", "zero-byte.log.gz", "empty-file.log",
            "access.log.zst", "plain.log",
        ])
    func fixtures(name: String) {
        compare(fixture(name), configuration(), bufferSizes: [Self.maxLine + 2, 1000, 65536])
    }

    @Test("each line is read in the format its first byte shows, wherever the pieces are cut and scanned")
    func formatPerLine() {
        let dir = temporaryDirectory()
        var bytes = Array("\n  \n".utf8) + [0xFF, 0x0A]
        for i in 0..<400 {
            bytes += Array(#"{"time":"2026-11-22T08:00:\#(String(format: "%02d", i % 60))Z","request":"GET /x?\#(i) HTTP/1.1","status":200}"#.utf8) + [0x0A]
        }
        // Combined lines after the JSON ones (pieces that start with one)
        // are read as combined: one stream of two servers is read whole.
        for i in 0..<200 { bytes += Array((combined(i % 60, "/a", 200) + "\n").utf8) }
        let path = writeBytes(bytes, named: "mixed.log", in: dir)
        compare(path, configuration(), bufferSizes: [Self.maxLine + 2, 600], depths: [2, 8])
        let file = InputFile(displayName: "mixed.log", path: path)
        let last = feed(file, configuration(), depth: 8, bufferSize: 600)
        #expect(last.contains { $0.contains("format: \"mixed\"") })
        #expect(last.contains { $0.contains("records: 600,") && $0.contains("malformedLines: 1,") })
    }

    @Test("each W3C line is read by the #Fields: line before it, wherever the pieces are cut and scanned")
    func w3cHeaders() {
        let dir = temporaryDirectory()
        var lines: [String] = []
        let layouts = [
            "#Fields: date time c-ip cs-method cs-uri-stem cs-uri-query sc-status Location",
            "#Fields: date time cs-method cs-uri-stem cs-uri-query sc-status Location c-ip cs(User-Agent)",
        ]
        for r in 0..<300 {
            let layout = r / 40 % 2
            if r % 40 == 0 { lines += ["#Software: Microsoft Internet Information Services 10.0", "#Version: 1.0", layouts[layout]] }
            let (stem, query) = authorize(state: "w\(r)").split(separator: "?", maxSplits: 1).map(String.init).pair
            let time = String(format: "2026-11-22 10:%02d:%02d", r / 60, r % 60)
            let location = "https://oauth-redirect.googleusercontent.com/a/demo-project?code=c\(r)&state=w\(r)"
            lines.append(
                layout == 0
                    ? "\(time) 203.0.113.9 GET \(stem) \(query) 302 \(location)"
                    : "\(time) GET \(stem) \(query) 302 \(location) 198.51.100.7 GoogleApp/1.0+(iPhone)")
        }
        let path = writeLog(lines, named: "iis.log", in: dir)
        let reference = compare(path, configuration(), bufferSizes: [Self.maxLine + 2, 700, 1024, 4099], depths: [2, 8])
        #expect(reference.contains { $0.contains("records: 300,") && $0.contains("malformedLines: 0,") && $0.contains("format: \"iis\"") })
        // Each layout's client: the columns moved with the header.
        let events = reference.filter { $0.hasPrefix("batch") }.joined()
        #expect(events.components(separatedBy: " 302 203.0.113.9 ").count - 1 == 160)
        #expect(events.components(separatedBy: " 302 198.51.100.7 ").count - 1 == 140)
    }

    @Test("a lone quoted field read as the Location with no URL on redirects: said once, with the option that settles it")
    func doubtfulLocation() {
        let dir = temporaryDirectory()
        // nginx's stock `main`: "$http_x_forwarded_for" after the User-Agent.
        let lines = (0..<5).map { combined($0, authorize(state: "m\($0)"), 302, location: "-") } + [combined(9, "/", 304, location: "-")]
        let path = writeLog(lines, named: "main.log", in: dir)
        let read = direct(InputFile(displayName: "main.log", path: path), configuration())
        #expect(
            read.contains { $0.hasPrefix("main.log:1: 5 redirect records have no URL in the quoted field after the User-Agent") && $0.contains("--log-format") }
        )
        // Only the statuses that always carry a Location count: 301, 302,
        // 303, 307 and 308 of 300…309.
        let statuses = (300...309).map { combined($0 - 300, "/x", $0, location: "-") }
        let each = direct(InputFile(displayName: "s.log", path: writeLog(statuses, named: "s.log", in: dir)), configuration())
        #expect(each.contains { $0.hasPrefix("s.log:2: 5 redirect records have no URL") }, "\(each)")
    }

    @Test("a missing input ends at once with its error, as on one thread")
    func missing() {
        let file = InputFile(displayName: "gone.log", path: "/nonexistent/flipaudit/gone.log")
        let shared = feed(file, configuration(), depth: 4)
        #expect(shared == direct(file, configuration()))
        #expect(shared.last == "gone.log: no such file or directory")
    }
}

@Suite("Cutting an input into pieces of whole lines")
struct PieceCutterTests {
    @Test("pieces hold whole lines; over-long lines are measured like the line splitter does", arguments: [12, 13, 20, 33, 64, 500])
    func pieces(bufferSize: Int) throws {
        let maxLine = 10
        let text =
            "a\r\n" + String(repeating: "x", count: 11) + "\r\n" + "bb\n" + String(repeating: "y", count: 40) + "\n"
            + "0123456789\r\n" + "cc\n" + String(repeating: "z", count: 25) + "\r"
        let dir = temporaryDirectory()
        let path = writeBytes(Array(text.utf8), named: "t.log", in: dir)
        let reader = try LogFileReader(path: path)
        let cutter = PieceCutter(reader: reader, maxLine: maxLine)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bufferSize, alignment: 16)
        defer { buffer.deallocate() }
        var sink = CollectingSink()
        var splitter = LineSplitter(maxLine: maxLine)
        var pieces = 0
        while true {
            let piece = cutter.cut(into: buffer)
            pieces += 1
            if let long = piece.leadingOverlong { sink.overlongLine(number: 0, length: long) }
            let bytes = UnsafeRawBufferPointer(rebasing: buffer[piece.range])
            if piece.end == nil { #expect(bytes.isEmpty || bytes.last == UInt8(ascii: "\n")) }
            splitter.feed(bytes, to: &sink)
            if let end = piece.end {
                splitter.finish(to: &sink)
                if let long = end.trailingOverlong { sink.overlongLine(number: 0, length: long) }
                #expect(end.failure == nil && end.cutOff == nil)
                break
            }
        }
        let reference = readLines(path, maxLine: maxLine)
        #expect(sink.lines == reference.lines)
        #expect(sink.lines == ["a", "bb", "0123456789", "cc"])
        #expect(sink.overlong.map(\.length) == [11, 40, 25])
        #expect(pieces >= text.utf8.count / bufferSize)
    }
}

extension Array {
    /// The first two elements.
    fileprivate var pair: (Element, Element) { (self[0], self[1]) }
}
