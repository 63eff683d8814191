import Foundation
import Parsing

/// Everything the command line decides about an audit, apart from where
/// the output goes.
package struct AuditConfiguration: Sendable {
    /// How to read lines.
    package typealias Format = RecordReader.Setting

    /// How the error distribution is bucketed in time (UTC).
    package enum Bucket: String, Sendable, CaseIterable {
        case day, hour, none
    }

    package var format: Format = .auto
    /// `--log-format GLOB=FORMAT`: the format of the inputs whose path,
    /// as given, matches the glob (the first rule that matches wins);
    /// `format` reads the others.
    package var formatRules: [(glob: String, format: Format)] = []
    /// JSON key paths for roles (`--json-field ROLE=PATH`), and the unit
    /// of a custom time path's numbers.
    package var jsonFields: [(role: JSONLineParser.Role, path: String)] = []
    package var jsonTimeUnit: JSONLineParser.TimeUnit?
    /// The zone of times that carry none (HAProxy's; `--tz`); UTC when nil.
    package var zone: LocalZone?
    /// `--since` and `--until` (ms): only records in [since, until) are
    /// audited; the others are counted (`outsideRecords`).
    package var since: Int64?
    package var until: Int64?
    /// `--cut-at` (ms): every input was cut at or after this instant, so
    /// no stream ends before it (docs/contract.md §9).
    package var cutAt: Int64?
    /// `--tiers GLOB,GLOB`: the inputs matching the first glob and those
    /// matching the second log the same requests (a proxy and its backend,
    /// docs/contract.md §9).
    package var tiers: [(String, String)] = []
    /// Configured Google client IDs (`--client-id`).
    package var clientIDs: Set<String> = []
    /// `--project-id` and `--allow-redirect`: the allowlist is built when
    /// they are set, not on every use.
    package var projectIDs: [String] = [] { didSet { allowlist = Self.allowlist(projectIDs, allowRedirects) } }
    package var allowRedirects: [String] = [] { didSet { allowlist = Self.allowlist(projectIDs, allowRedirects) } }
    /// Google's redirect URIs and the project's own.
    package private(set) var allowlist = Self.allowlist([], [])
    /// Request paths that are always flip endpoints (`--endpoint`).
    package var endpoints: [String] = []
    /// Globs of the files a directory walk leaves out (`--exclude`).
    package var exclude: [String] = []
    /// Seconds after its last event that a session expires.
    package var sessionTimeoutSeconds: Int = 600
    package var bucket: Bucket = .day
    /// How long ended states and returned codes are remembered, in seconds
    /// of log time (`--reuse-window`).
    package var reuseWindowSeconds: Int = 86_400
    /// Longest line accepted, in bytes.
    package var maxLine: Int = 64 * 1024
    /// Read on several threads: the `Feed`'s workers and the caller share
    /// inflating, cutting and scanning. Off, the feed has no workers and
    /// everything runs on the calling thread (the reference path the
    /// tests compare with).
    package var parallel = true
    /// Most sessions held open at once (`--max-sessions`); when a new one
    /// would pass it, the least recently active is closed early.
    package var maxSessions = Self.defaultMaxSessions
    /// Most sessions held open at once by default.
    package static let defaultMaxSessions = 100_000

    /// Flip events held in memory by the sorting pass before a sorted run
    /// goes to a temporary file (about 20 MiB of events).
    package var sortBudget = 50_000
    /// How far records of one input may run back in time and still be put
    /// in order by the streaming merge (milliseconds): past it, the input
    /// takes the sorting pass. It decides the work, never the answer.
    package static let reorderWindow: Int64 = 300_000
    /// Malformed-line messages printed (and kept as examples) before the
    /// rest are only counted.
    package static let malformedMessageLimit = 10
    /// Rows of each kind held in memory for ordering before they are
    /// sorted and spilled to a temporary file.
    package var rowBudget = 50_000
    /// How states and codes become keys: keyed, and kept in the
    /// checkpoint, when runs are chained (`--checkpoint`).
    package var fingerprint = Fingerprint.process
    /// The options that change what an audit finds, as command-line
    /// arguments (defaults included, so a report says what it assumed).
    package var resultOptions: [String] {
        var out: [String]
        switch format {
        case .auto: out = ["--format auto"]
        case .fixed(let f): out = ["--format \(f.name)"]
        case .logFormat(let text): out = ["--log-format '\(text)'"]
        }
        out += formatRules.map { rule in
            if case .logFormat(let text) = rule.format { return "--log-format '\(rule.glob)=\(text)'" }
            return "--log-format '\(rule.glob)'"
        }
        if let zone { out.append("--tz \(zone.name)") }
        if let since { out.append("--since \(Self.timeText(since))") }
        if let until { out.append("--until \(Self.timeText(until))") }
        if let cutAt { out.append("--cut-at \(Self.timeText(cutAt))") }
        out += tiers.map { "--tiers '\($0.0),\($0.1)'" }
        out += jsonFields.map { "--json-field \($0.role.name)=\($0.path)\($0.role == .time ? jsonTimeUnit.map { ":" + $0.rawValue } ?? "" : "")" }
        out += clientIDs.sorted().map { "--client-id \($0)" }
        out += projectIDs.map { "--project-id \($0)" }
        out += allowRedirects.map { "--allow-redirect \($0)" }
        out += endpoints.map { "--endpoint \($0)" }
        out.append("--session-timeout \(sessionTimeoutSeconds)")
        out.append("--reuse-window \(Self.durationText(reuseWindowSeconds))")
        out.append("--bucket \(bucket.rawValue)")
        out.append("--max-line \(maxLine)")
        out.append("--max-sessions \(maxSessions)")
        return out
    }

    /// `7d`, `24h`, `36h`, `90m` or `45s`, as `--reuse-window` takes it:
    /// days from two on, else hours, minutes or seconds, whichever divides.
    static func durationText(_ seconds: Int) -> String {
        if seconds % 86_400 == 0 && seconds >= 2 * 86_400 { return "\(seconds / 86_400)d" }
        for (unit, size) in [("h", 3600), ("m", 60)] where seconds % size == 0 { return "\(seconds / size)\(unit)" }
        return "\(seconds)s"
    }

    /// Skip the streaming pass (tests compare the two passes).
    package var alwaysSort = false
    /// Whether flip records' lines are fingerprinted for duplicates
    /// (`DuplicateFilter`): only where a duplicate can exist — several
    /// inputs, or a checkpoint — since hashing every flip line is a
    /// fifth of a flip line's cost.
    package var keysLines = true
    /// Flip records per piece of input that get a twin (`Twin`); nil:
    /// every one. A streaming pass that knows no tiers needs only each
    /// input's first few (its sample, docs/formats.md): a query's hash
    /// is a tenth of a flip line's cost.
    package var twinsPerPiece: Int?
    /// Records dated after this (milliseconds) are malformed, `time in the
    /// future`: one hour after the run's start, or after `--now`.
    package var futureAfter: Int64 = Self.futureLimit(now: Self.wallClock())
    /// Records dated before this (milliseconds) are late: counted, listed,
    /// and left out of the audit (docs/contract.md §9). The checkpoint's
    /// watermark less the reorder window; the dawn of time without one.
    package var lateBefore: Int64 = .min
    /// How far past the run's start a record may lie (one hour).
    static let futureMargin: Int64 = 3_600_000

    /// When the run started, or `--now` (milliseconds).
    package var now: Int64 { futureAfter - Self.futureMargin }

    /// The future limit for a run started at `now` (milliseconds).
    package static func futureLimit(now: Int64) -> Int64 { now + futureMargin }

    /// `--now`: an ISO 8601 time in milliseconds, or nil.
    package static func parseTime(_ text: String) -> Int64? {
        var bytes = Array(text.utf8)
        return bytes.withUnsafeMutableBytes { Timestamp.parseISO8601(UnsafeRawBufferPointer($0)) }
    }

    /// `--cut-at`: a clock time (`00:00`, `23:30:00`) is its last
    /// occurrence at or before `now` in `zone` (UTC when nil); anything
    /// else an ISO 8601 time. Nil when it is neither.
    package static func cutTime(_ text: String, now: Int64, zone: LocalZone?) -> Int64? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count), parts.allSatisfy({ (1...2).contains($0.count) && $0.allSatisfy(\.isASCII) }),
            let h = Int(parts[0]), let m = Int(parts[1]), let s = parts.count == 3 ? Int(parts[2]) : 0,
            (0..<24).contains(h), (0..<60).contains(m), (0..<60).contains(s)
        else { return parseTime(text) }
        let day: Int64 = 86_400_000
        let local = now &+ (zone?.offset(at: now) ?? 0)
        var at = (local - ((local % day) + day) % day) + Int64(h * 3600 + m * 60 + s) * 1000
        if at > local { at -= day }
        return zone?.utc(fromLocal: at) ?? at
    }

    /// A time as `--now` takes it (ISO 8601 UTC, milliseconds).
    package static func timeText(_ ms: Int64) -> String { Timestamp.iso8601(ms) }

    /// Now, in milliseconds since 1970.
    package static func wallClock() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }

    package init() {}

    /// Refuses an nginx `log_format` line that cannot work (before any
    /// input is read).
    package static func check(logFormat text: String, maxLine: Int) throws(ConfigurationError) {
        _ = try LogFormatParser(logFormat: text, maxLine: maxLine)
    }

    private static func allowlist(_ projectIDs: [String], _ extra: [String]) -> Allowlist {
        Allowlist(projectIDs: projectIDs, extra: extra)
    }

    /// Record readers for these settings: `format`'s first, then one per
    /// rule of `formatRules`.
    package func readers() throws(ConfigurationError) -> [RecordReader] {
        var out = [try RecordReader(format, maxLine: maxLine, jsonFields: jsonFields, timeUnit: jsonTimeUnit, zone: zone)]
        for rule in formatRules { out.append(try RecordReader(rule.format, maxLine: maxLine, jsonFields: jsonFields, timeUnit: jsonTimeUnit, zone: zone)) }
        return out
    }

    /// Which of `readers()` reads the input named `name` (as given; a
    /// URI a distributed job reads, `hdfs://host/logs/a.gz`, also by its
    /// path, `/logs/a.gz`).
    /// Whether the input named `name` (as given; a URI also by its path)
    /// matches `glob`.
    package static func matches(_ glob: String, name: String) -> Bool {
        if fnmatch(glob, name, 0) == 0 { return true }
        guard let scheme = name.range(of: "://"), let slash = name[scheme.upperBound...].firstIndex(of: "/") else { return false }
        return fnmatch(glob, String(name[slash...]), 0) == 0
    }

    /// `--tiers GLOB,GLOB`: the two globs, or nil when it is not two
    /// non-empty globs split by one comma.
    package static func tierGlobs(_ text: String) -> (String, String)? {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
        return (String(parts[0]), String(parts[1]))
    }

    package func readerIndex(for name: String) -> Int {
        guard !formatRules.isEmpty else { return 0 }
        var path: String?
        if let scheme = name.range(of: "://") {
            path = name[scheme.upperBound...].firstIndex(of: "/").map { String(name[$0...]) }
        }
        for (i, rule) in formatRules.enumerated()
        where fnmatch(rule.glob, name, 0) == 0 || path.map({ fnmatch(rule.glob, $0, 0) == 0 }) == true {
            return i + 1
        }
        return 0
    }

    /// The format of the input named `name`.
    package func format(for name: String) -> Format {
        let i = readerIndex(for: name)
        return i == 0 ? format : formatRules[i - 1].format
    }

    /// `GLOB=FORMAT` of `--log-format`: the glob, when the text before its
    /// first `=` has no space, quote, `$` or `%` (a format has them).
    package static func splitRule(_ text: String) -> (glob: String?, format: String) {
        guard let eq = text.firstIndex(of: "=") else { return (nil, text) }
        let head = text[..<eq]
        guard !head.isEmpty, !head.contains(where: { " \t$%\"'".contains($0) }) else { return (nil, text) }
        return (String(head), String(text[text.index(after: eq)...]))
    }

    /// The zone `--tz` names: an IANA name (`Europe/Berlin`), `UTC`, or a
    /// fixed offset (`+01:00`, `-0530`); nil when it names none. Its
    /// offsets from 1970 to 2100 come from the zone database.
    package static func zone(named name: String) -> LocalZone? {
        if let fixed = fixedOffset(name) { return LocalZone(name: name, offsets: [(Int64.min, fixed)]) }
        guard let tz = TimeZone(identifier: name) else { return nil }
        var offsets: [(from: Int64, offset: Int64)] = [(Int64.min, Int64(tz.secondsFromGMT(for: Date(timeIntervalSince1970: 0))) * 1000)]
        var at = Date(timeIntervalSince1970: 0)
        let end = Date(timeIntervalSince1970: 4_102_444_800)  // 2100-01-01
        while let next = tz.nextDaylightSavingTimeTransition(after: at), next < end {
            offsets.append((Int64(next.timeIntervalSince1970 * 1000), Int64(tz.secondsFromGMT(for: next)) * 1000))
            at = next
        }
        return LocalZone(name: name, offsets: offsets)
    }

    /// `+hh:mm`, `+hhmm`, `-hh`, `Z`, `UTC`, `GMT`: the offset east of UTC in ms.
    private static func fixedOffset(_ text: String) -> Int64? {
        if ["Z", "UTC", "GMT"].contains(text.uppercased()) { return 0 }
        guard let sign = text.first, sign == "+" || sign == "-" else { return nil }
        let digits = String(text.dropFirst().filter { $0 != ":" })
        guard digits.count == 2 || digits.count == 4, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(digits) else {
            return nil
        }
        let (hh, mm) = digits.count == 2 ? (value, 0) : (value / 100, value % 100)
        guard hh <= 23, mm <= 59 else { return nil }
        return Int64((sign == "-" ? -1 : 1) * (hh * 60 + mm)) * 60_000
    }
}
