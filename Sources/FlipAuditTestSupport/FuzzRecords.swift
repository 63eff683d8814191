import Foundation
import Parsing
import Reports
import Rules

/// Collects what the tracker decides, and checks that none of it carries
/// text a terminal would interpret once escaped, or a code in clear.
final class CheckingSink: AuditSink {
    /// Raw authorization codes seen in the input lines (long, unique ones).
    var codes: [String] = []

    func finding(_ finding: consuming Finding) {
        check([finding.state, finding.clientID, finding.redirectURI, finding.detail], urls: [finding.redirectURI])
    }

    func sessionClosed(_ session: consuming SessionRecord) {
        check(
            [session.state, session.clientID, session.redirectURI, session.error, session.errorDescription, session.clientIP],
            urls: [session.redirectURI, session.clientIP])
    }

    /// `cells` must be safe to show; `urls` — the cells that carry URLs or
    /// text copied from a record's own fields — must not hold a code.
    private func check(_ cells: [String], urls: [String]) {
        for cell in cells {
            let shown = TerminalText.escape(cell)
            invariant(
                !shown.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || (0x202A...0x202E).contains($0.value) },
                "terminal text keeps a control character: \(shown.debugDescription)")
            let csv = CSV.cell(cell)
            if let first = csv.utf8.first {
                invariant(!Array("=+-@\t\r".utf8).contains(first), "CSV cell starts a formula: \(csv.debugDescription)")
            }
        }
        // (Error texts may quote anything an attacker wrote, "code=" too, so
        // only the URL-like cells are checked.)
        for code in codes {
            for cell in urls where cell.contains("code=" + code) {
                invariant(false, "code \(code) appears in clear in \(cell.debugDescription)")
            }
        }
    }
}

/// Every `code=` value of 12 or more letters and digits in `line`.
func rawCodes(in line: String) -> [String] {
    var found: [String] = []
    var rest = Substring(line)
    while let r = rest.range(of: "code=") {
        let value = rest[r.upperBound...].prefix { $0.isASCII && ($0.isLetter || $0.isNumber) }
        if value.count >= 12 { found.append(String(value)) }
        rest = rest[r.upperBound...]
    }
    return found
}

let apacheFormat = #"LogFormat "%h %l %u %t \"%r\" %>s %O \"%{Referer}i\" \"%{User-Agent}i\" %D \"%{Location}o\"" flip"#
let haproxyFormat = #"log-format "%ci:%cp [%tr] %ft %b/%s %TR/%Tw/%Tc/%Tr/%Ta %ST %B %CC %CS %tsc %ac/%fc/%bc/%sc/%rc %sq/%bq %hr %hs %{+Q}r""#
let nginxFormat = #"$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" "$sent_http_location""#

/// Splits the input into lines and runs each through every record parser,
/// the flip extractor and one session tracker per parser.
public func fuzzRecords(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let data = UnsafeRawBufferPointer(start: start, count: count)
    var configuration = AuditConfiguration()
    configuration.clientIDs = ["G123"]
    configuration.sessionTimeoutSeconds = 60
    var combined = CombinedLogParser(maxLine: 4096)
    var json = JSONLineParser(maxLine: 4096, fields: [(.location, "resp.h.Location"), (.time, "t")], timeUnit: .ns)
    var nginx = try! LogFormatParser(logFormat: nginxFormat, maxLine: 4096)
    var apache = try! LogFormatParser(logFormat: apacheFormat, maxLine: 4096)
    var haproxy = HAProxyLogParser(maxLine: 4096)
    var haproxyPasted = try! LogFormatParser(logFormat: haproxyFormat, maxLine: 4096)
    var envoy = EnvoyLogParser(maxLine: 4096)
    var alb = ALBLogParser(maxLine: 4096)
    var w3c = W3CLogParser(maxLine: 4096)
    var auto = try! RecordReader(.auto, maxLine: 4096)
    for which in 0..<10 {
        let sink = CheckingSink()
        let tracker = SessionTracker(configuration: configuration, files: 1, sink: sink)
        tracker.markLogsLocation(file: 0, lines: LocationLines(text: 1, json: 1))
        var extractor = FlipEventExtractor(configuration: configuration)
        var record = LogRecord()
        var lineStart = 0
        var number: Int64 = 0
        var latest: Int64 = 0
        while lineStart <= data.count {
            let end = data[lineStart...].firstIndex(of: 0x0A) ?? data.count
            let line = UnsafeRawBufferPointer(rebasing: data[lineStart..<end])
            number += 1
            let text = String(decoding: line, as: UTF8.self)
            // As the pipeline does: a line with NUL or invalid UTF-8 is
            // counted as malformed before any parser sees it.
            guard !line.contains(0), text.utf8.elementsEqual(line) else { lineStart = end + 1; continue }
            sink.codes += rawCodes(in: text)
            let failure: MalformedReason?
            switch which {
            case 0:
                // As the pipeline does: the line check says whether quoted
                // fields may need unescaping. The promise must not change
                // the record.
                let backslash = line.contains(0x5C)
                var slow = LogRecord()
                let slowFailure = combined.parse(line, into: &slow, escapes: true)
                let slowFields = (slow.time, slow.status, Array(slow.target), Array(slow.clientIP), Array(slow.method))
                failure = combined.parse(line, into: &record, escapes: backslash)
                precondition(
                    slowFailure == failure && slowFields.0 == record.time && slowFields.1 == record.status
                        && slowFields.2 == Array(record.target) && slowFields.3 == Array(record.clientIP)
                        && slowFields.4 == Array(record.method), "escape-free parse differs")
            case 1: failure = json.parse(line, into: &record)
            case 2: failure = nginx.parse(line, into: &record)
            case 3: failure = apache.parse(line, into: &record)
            case 4: failure = haproxy.parse(line, into: &record)
            case 5: failure = envoy.parse(line, into: &record)
            case 6: failure = alb.parse(line, into: &record)
            case 8: failure = haproxyPasted.parse(line, into: &record)
            case 7:
                // A directive line may set the columns of the lines after it.
                if W3CLogParser.isDirective(line) {
                    w3c.directive(line)
                    failure = .unparsable
                } else {
                    failure = w3c.parse(line, into: &record)
                }
            default:
                if line.first == 0x23 && auto.directive(line) {
                    lineStart = end + 1
                    continue
                }
                failure = auto.read(line, escapes: line.contains(0x5C))
                record = auto.record
                if failure != nil { _ = auto.fit(line, escapes: true) }
            }
            if failure == nil {
                let (_, event) = extractor.extract(record, source: SourceRef(file: 0, line: number), line: line)
                if let event {
                    tracker.process(event)
                    latest = max(latest, event.time)
                }
            }
            lineStart = end + 1
        }
        tracker.finish(endTime: latest)
    }
    return 0
}
