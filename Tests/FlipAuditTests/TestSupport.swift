import Foundation
import Synchronization

@testable import Audit
@testable import Reading
@testable import Reports
@testable import Rules

/// Path of a committed fixture file.
func fixture(_ name: String) -> String {
    Bundle.module.url(forResource: "Fixtures", withExtension: nil)!.appendingPathComponent(name).path
}

/// Collects lines, what the splitter said of their plainness, and over-long
/// line reports.
struct CollectingSink: LineSink {
    var lines: [String] = []
    var numbers: [Int] = []
    var plain: [Bool] = []
    var overlong: [(number: Int, length: Int)] = []
    mutating func line(_ bytes: UnsafeRawBufferPointer, number: Int, plain: Bool) {
        lines.append(String(decoding: bytes, as: UTF8.self))
        numbers.append(number)
        self.plain.append(plain)
    }
    mutating func overlongLine(number: Int, length: Int) {
        overlong.append((number, length))
    }
}

/// Reads a whole input through the real reader and splitter.
func readLines(_ path: String, maxLine: Int = 64 * 1024) -> (lines: [String], error: InputError?, reader: LogFileReader?) {
    let reader: LogFileReader
    do { reader = try LogFileReader(path: path) } catch { return ([], error, nil) }
    var splitter = LineSplitter(maxLine: maxLine)
    var sink = CollectingSink()
    do {
        while let chunk = try reader.nextChunk() { splitter.feed(chunk, to: &sink) }
        splitter.finish(to: &sink)
        return (sink.lines, nil, reader)
    } catch {
        return (sink.lines, error, reader)
    }
}

/// The folders `temporaryDirectory` made: removed when the test process
/// exits (a run makes hundreds; they piled up by the ten thousand).
private let madeFolders = Mutex<[String]>([])
private let removedAtExit: Void = {
    atexit {
        for folder in madeFolders.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: folder) }
    }
}()

/// A fresh temporary folder.
func temporaryDirectory() -> String {
    removedAtExit
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipaudit-tests-\(UUID().uuidString)")
    madeFolders.withLock { $0.append(dir.path) }
    try! FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir.path
}

/// Writes `lines` to a file in `dir`, gzip'd when the name ends in `.gz`.
@discardableResult
func writeLog(_ lines: [String], named name: String, in dir: String) -> String {
    writeBytes(Array(lines.map { $0 + "\n" }.joined().utf8), named: name, in: dir)
}

/// Writes `bytes` to `name` in `dir`, gzip'd when the name ends in `.gz`.
@discardableResult
func writeBytes(_ bytes: [UInt8], named name: String, in dir: String) -> String {
    let path = dir + "/" + name
    // A name with folders (`srv0/access.log.1`): they are made.
    try? FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    let plain = name.hasSuffix(".gz") ? path + ".tmp" : path
    _ = FileManager.default.createFile(atPath: plain, contents: Data(bytes))
    if name.hasSuffix(".gz") {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "gzip -n -c '\(plain)' > '\(path)' && rm '\(plain)'"]
        try! p.run()
        p.waitUntilExit()
    }
    return path
}

/// The standard Google client ID of the tests.
let googleClient = "G123"
let opa = "https://oauth-redirect.googleusercontent.com/a/com.google.OPA"
let home = "https://oauth-redirect.googleusercontent.com/a/com.google.Chromecast"

/// Percent-encodes a query value.
func enc(_ s: String) -> String {
    s.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~"))!
}

/// An authorize request target.
func authorize(state: String? = "s1", redirect: String? = opa, client: String? = googleClient, extra: String = "") -> String {
    var q = ["response_type=code"]
    if let client { q.append("client_id=\(enc(client))") }
    if let redirect { q.append("redirect_uri=\(enc(redirect))") }
    if let state { q.append("state=\(enc(state))") }
    q.append("scope=devices.read+devices.control")
    return "/oauth/authorize?" + q.joined(separator: "&") + extra
}

/// A combined log line with a Location field (the 10th).
func combined(
    _ second: Int, _ method: String, _ target: String, _ status: Int, location: String? = "-",
    ip: String = "203.0.113.9", minute: Int = 0
) -> String {
    let time = String(format: "22/Nov/2026:10:%02d:%02d +0000", minute + second / 60, second % 60)
    var line = "\(ip) - - [\(time)] \"\(method) \(target) HTTP/1.1\" \(status) 0 \"-\" \"GoogleApp/1.0\""
    if let location { line += " \"\(location)\"" }
    return line
}

/// A GET request line with a Location field.
func combined(_ second: Int, _ target: String, _ status: Int, location: String? = "-", ip: String = "203.0.113.9", minute: Int = 0) -> String {
    combined(second, "GET", target, status, location: location, ip: ip, minute: minute)
}

/// Runs the analyzer over files with the given lines.
func audit(_ files: [String: [String]], configure: (inout AuditConfiguration) -> Void = { _ in }, order: [String]? = nil) -> Audit {
    let dir = temporaryDirectory()
    var paths: [String] = []
    for name in order ?? files.keys.sorted() { paths.append(writeLog(files[name]!, named: name, in: dir)) }
    var config = AuditConfiguration()
    configure(&config)
    return try! Audit.run(paths, config)
}

/// Runs the analyzer over one file.
func audit(_ lines: [String], configure: (inout AuditConfiguration) -> Void = { _ in }) -> Audit {
    audit(["access.log": lines], configure: configure)
}

/// An audit as a test sees it: the summary, every row as the `RowSink`s
/// received them, and the three CSV files as `CSVWriter` wrote them.
@dynamicMemberLookup
struct Audit {
    let result: AuditResult
    let sessions: [SessionRecord]
    let findings: [Finding]
    /// sessions.csv, findings.csv, error_distribution.csv.
    let csv: [String]

    subscript<T>(dynamicMember path: KeyPath<AuditResult, T>) -> T { result[keyPath: path] }

    func kinds() -> Set<FindingKind> { Set(findings.map(\.kind)) }
    func count(_ kind: FindingKind) -> Int { findings.filter { $0.kind == kind }.count }

    static func run(_ paths: [String], _ configuration: AuditConfiguration = AuditConfiguration()) throws -> Audit {
        let rows = RowCollector()
        let dir = temporaryDirectory()
        let writer = try CSVWriter(directory: dir)
        let result = try Analyzer(configuration: configuration).run(paths, rows: [rows, writer])
        try writer.commit(statistics: result.statistics)
        let csv = try ["sessions.csv", "findings.csv", "error_distribution.csv"].map {
            try String(contentsOfFile: dir + "/" + $0, encoding: .utf8)
        }
        return Audit(result: result, sessions: rows.sessions, findings: rows.findings, csv: csv)
    }
}
