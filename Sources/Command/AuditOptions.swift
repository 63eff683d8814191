import ArgumentParser
import Parsing
import Rules

/// The options that decide what an audit finds: shared by the command and
/// `flipaudit stage plan`, which keeps them in the job plan for every
/// other stage.
struct AuditOptions: ParsableArguments {
    @Option(help: "Log format of every input (auto: each line's own; docs/formats.md).")
    var format: FormatChoice = .auto

    @Option(
        name: .customLong("log-format"),
        help: ArgumentHelp(
            "The server's nginx log_format, Apache LogFormat or HAProxy log-format, as in its configuration; GLOB=FORMAT for the inputs whose path matches GLOB (repeatable).",
            valueName: "[GLOB=]FORMAT"))
    var logFormats: [String] = []

    /// The `--log-format` without a glob, if one was given (the last).
    var logFormat: String? { logFormats.last { AuditConfiguration.splitRule($0).glob == nil } }

    @Option(help: ArgumentHelp("Audit only records at or after TIME (ISO 8601, e.g. 2026-11-22T00:00:00Z).", valueName: "TIME"))
    var since: String?

    @Option(help: ArgumentHelp("Audit only records before TIME (ISO 8601).", valueName: "TIME"))
    var until: String?

    @Option(
        name: .customLong("tiers"),
        help: ArgumentHelp(
            "The inputs matching these two globs log the same requests (a proxy and its backend): each request is audited once (repeatable; found by itself too).",
            valueName: "GLOB,GLOB"))
    var tiers: [String] = []

    @Option(
        name: .customLong("cut-at"),
        help: ArgumentHelp(
            "Every input was cut at or after TIME (a clock time such as 00:00, its last occurrence before the run's start, in --tz; or ISO 8601): with --checkpoint, no server's log is taken to end before it.",
            valueName: "TIME"))
    var cutAt: String?

    @Option(
        help: ArgumentHelp(
            "The zone of log times that carry none (HAProxy's, IIS's): an IANA name such as Europe/Berlin, or +01:00 (default UTC).",
            valueName: "ZONE"))
    var tz: String?

    @Option(
        name: .customLong("json-field"),
        help: ArgumentHelp(
            "Where a JSON log keeps a role: time[:s|ms|us|ns|iso], method, target, status, location, client, user-agent (repeatable; resp.headers.Location[0]).",
            valueName: "ROLE=PATH"))
    var jsonFields: [String] = []

    @Option(name: .customLong("client-id"), help: ArgumentHelp("A Google client ID your server expects (repeatable).", valueName: "ID"))
    var clientIDs: [String] = []

    @Option(name: .customLong("project-id"), help: ArgumentHelp("Your Actions project ID: allowlists /r/ID on Google's hosts (repeatable).", valueName: "ID"))
    var projectIDs: [String] = []

    @Option(name: .customLong("allow-redirect"), help: ArgumentHelp("One more allowlisted redirect URI, exact (repeatable).", valueName: "URI"))
    var allowRedirects: [String] = []

    @Option(name: .customLong("endpoint"), help: ArgumentHelp("A request path that is always an App Flip endpoint (repeatable).", valueName: "PATH"))
    var endpoints: [String] = []

    @Option(
        help: ArgumentHelp(
            "Leave out the files of a directory argument whose name or path matches GLOB (repeatable; 'error.log*'). A file named on the command line is always read.",
            valueName: "GLOB"))
    var exclude: [String] = []

    @Option(name: .customLong("session-timeout"), help: ArgumentHelp("Seconds after its last event that a session expires.", valueName: "SECONDS"))
    var sessionTimeout: Int = 600

    @Option(
        name: .customLong("reuse-window"),
        help: ArgumentHelp("How long ended states and returned codes are remembered, in log time (90m, 36h, 7d).", valueName: "DURATION"))
    var reuseWindow: String = "24h"

    @Option(help: "Time bucket of the error distribution (UTC).")
    var bucket: AuditConfiguration.Bucket = .day

    @Option(name: .customLong("max-line"), help: ArgumentHelp("Longest line read, in bytes; longer lines are counted as malformed.", valueName: "BYTES"))
    var maxLine: Int = 64 * 1024

    @Option(
        help: ArgumentHelp(
            "The run's start, for the future rule: records more than an hour after it are malformed (ISO 8601, e.g. 2026-11-23T02:00:00Z; default: the wall clock).",
            valueName: "TIME"))
    var now: String?

    /// `--now` in milliseconds, when given and valid.
    var nowMilliseconds: Int64? {
        now.flatMap(AuditConfiguration.parseTime)
    }

    func validate() throws {
        if now != nil && nowMilliseconds == nil {
            throw ValidationError("--now: \"\(now!)\" is not an ISO 8601 time such as 2026-11-23T02:00:00Z")
        }
        if let fixed = format.format, fixed.row.reader == .pasted, logFormat == nil {
            throw ValidationError("--format \(fixed.name) needs --log-format '<the server's \(fixed == .nginx ? "log_format" : "LogFormat")>'")
        }
        if logFormats.filter({ AuditConfiguration.splitRule($0).glob == nil }).count > 1 {
            throw ValidationError("--log-format: give one format for every input, and GLOB=FORMAT for the others")
        }
        if logFormat != nil, let fixed = format.format, fixed.row.reader != .pasted {
            throw ValidationError("--log-format goes with --format auto (or nginx, apache), not --format \(fixed.name)")
        }
        for (name, value) in [("--since", since), ("--until", until)] {
            if let value, AuditConfiguration.parseTime(value) == nil {
                throw ValidationError("\(name): \"\(value)\" is not an ISO 8601 time such as 2026-11-22T00:00:00Z")
            }
        }
        if let s = since.flatMap(AuditConfiguration.parseTime), let u = until.flatMap(AuditConfiguration.parseTime), s >= u {
            throw ValidationError("--since \(since!) is not before --until \(until!): no record would be audited")
        }
        if let tz, AuditConfiguration.zone(named: tz) == nil {
            throw ValidationError("--tz: \"\(tz)\" is not a time zone such as Europe/Berlin, UTC or +01:00")
        }
        for text in tiers where AuditConfiguration.tierGlobs(text) == nil {
            throw ValidationError("--tiers: \"\(text)\" is not two globs split by a comma, such as 'logs/haproxy/*,logs/apache/*'")
        }
        if let cutAt {
            let config = configuration
            guard let cut = config.cutAt else {
                throw ValidationError("--cut-at: \"\(cutAt)\" is neither a clock time such as 00:00 nor an ISO 8601 time such as 2026-11-23T00:00:00Z")
            }
            if cut > config.now {
                throw ValidationError(
                    "--cut-at \(cutAt) is after the run's start (\(AuditConfiguration.timeText(config.now))): no log can have been cut then")
            }
        }
        for field in jsonFields where Self.jsonField(field) == nil {
            throw ValidationError(
                "--json-field: \"\(field)\" is not ROLE=PATH with a role of time[:s|ms|us|ns|iso], method, target, status, location, client, user-agent")
        }
        // Ranges first: the log_format check below sizes buffers by --max-line.
        if let message = OptionLimits.check(sessionTimeout: sessionTimeout, maxLine: maxLine, maxSessions: 1) {
            throw ValidationError(message)
        }
        for text in logFormats {
            do { try AuditConfiguration.check(logFormat: AuditConfiguration.splitRule(text).format, maxLine: maxLine) } catch {
                throw ValidationError("\(error)")
            }
        }
        if LogDuration.seconds(reuseWindow) == nil {
            throw ValidationError("--reuse-window: \"\(reuseWindow)\" is not a duration such as 90m, 36h or 7d (at most \(LogDuration.maximumDays) days)")
        }
    }

    /// The audit these options ask for.
    var configuration: AuditConfiguration {
        var config = AuditConfiguration()
        if let logFormat {
            config.format = .logFormat(logFormat)
        } else if let fixed = format.format {
            config.format = .fixed(fixed)
        } else {
            config.format = .auto
        }
        for text in logFormats {
            let (glob, format) = AuditConfiguration.splitRule(text)
            if let glob { config.formatRules.append((glob, .logFormat(format))) }
        }
        if let tz { config.zone = AuditConfiguration.zone(named: tz) }
        config.since = since.flatMap(AuditConfiguration.parseTime)
        config.until = until.flatMap(AuditConfiguration.parseTime)
        for field in jsonFields {
            guard let (role, path, unit) = Self.jsonField(field) else { continue }
            config.jsonFields.append((role, path))
            if let unit { config.jsonTimeUnit = unit }
        }
        config.clientIDs = Set(clientIDs)
        config.projectIDs = projectIDs
        config.allowRedirects = allowRedirects
        config.endpoints = endpoints
        config.exclude = exclude
        config.sessionTimeoutSeconds = sessionTimeout
        config.bucket = bucket
        config.reuseWindowSeconds = LogDuration.seconds(reuseWindow)!
        config.maxLine = maxLine
        if let ms = nowMilliseconds { config.futureAfter = AuditConfiguration.futureLimit(now: ms) }
        config.tiers = tiers.compactMap(AuditConfiguration.tierGlobs)
        config.cutAt = cutAt.flatMap { AuditConfiguration.cutTime($0, now: config.now, zone: config.zone) }
        return config
    }

    /// `ROLE=PATH[:UNIT]` of `--json-field`, or nil when it is not one.
    static func jsonField(_ text: String) -> (JSONLineParser.Role, String, JSONLineParser.TimeUnit?)? {
        guard let eq = text.firstIndex(of: "=") else { return nil }
        let name = String(text[..<eq])
        var path = String(text[text.index(after: eq)...])
        guard let role = JSONLineParser.Role.allCases.first(where: { $0.name == name && $0 != .request && $0 != .query }) else { return nil }
        var unit: JSONLineParser.TimeUnit?
        if role == .time, let colon = path.lastIndex(of: ":"), let u = JSONLineParser.TimeUnit(rawValue: String(path[path.index(after: colon)...])) {
            unit = u
            path = String(path[..<colon])
        }
        if path.hasSuffix("[0]") { path.removeLast(3) }
        guard !path.isEmpty, !path.hasPrefix("."), !path.hasSuffix("."), !path.contains("..") else { return nil }
        return (role, path, unit)
    }

    /// The options as arguments that parse back to them (what the job plan
    /// keeps).
    var arguments: [String] {
        var out = ["--format", format.name]
        for text in logFormats { out += ["--log-format", text] }
        for field in jsonFields { out += ["--json-field", field] }
        if let tz { out += ["--tz", tz] }
        if let since { out += ["--since", since] }
        if let until { out += ["--until", until] }
        if let cutAt { out += ["--cut-at", cutAt] }
        for pair in tiers { out += ["--tiers", pair] }
        for id in clientIDs { out += ["--client-id", id] }
        for id in projectIDs { out += ["--project-id", id] }
        for uri in allowRedirects { out += ["--allow-redirect", uri] }
        for path in endpoints { out += ["--endpoint", path] }
        for glob in exclude { out += ["--exclude", glob] }
        out += ["--session-timeout", String(sessionTimeout), "--reuse-window", reuseWindow, "--bucket", bucket.rawValue]
        out += ["--max-line", String(maxLine)]
        // Every step of a job judges the future from the same instant.
        out += ["--now", now ?? AuditConfiguration.timeText(AuditConfiguration.wallClock())]
        // `--name=value`: a value that starts with `-` stays a value.
        return stride(from: 0, to: out.count, by: 2).map { "\(out[$0])=\(out[$0 + 1])" }
    }
}

extension AuditConfiguration.Bucket: ExpressibleByArgument {}

/// The values of the repeatable audit options (`--client-id`,
/// `--project-id`, `--allow-redirect`, `--endpoint`), taken out of the
/// arguments before ArgumentParser parses them and put back after.
/// ArgumentParser removes each argument it parses from an array, one at a
/// time, so 20,000 `--client-id` values (a config file's allowlist) took
/// over a minute before any input was read; this pass is linear.
struct RepeatedValues {
    static let names: Set<String> = ["client-id", "project-id", "allow-redirect", "endpoint"]
    private var values: [String: [String]] = [:]

    /// `arguments` without the repeatable options' `--name VALUE` and
    /// `--name=VALUE` (before a `--`), and their values. A value that
    /// starts with `-` (other than `-`) is left for ArgumentParser to
    /// judge, as it would have; so is every other argument, in its place.
    static func extract(_ arguments: [String]) -> (rest: [String], values: RepeatedValues) {
        var rest: [String] = []
        rest.reserveCapacity(arguments.count)
        var taken = RepeatedValues()
        func isValue(_ s: String) -> Bool { !s.hasPrefix("-") || s == "-" }
        var i = 0
        while i < arguments.count {
            let a = arguments[i]
            i += 1
            if a == "--" {
                rest.append(a)
                rest += arguments[i...]
                break
            }
            guard a.hasPrefix("--") else {
                rest.append(a)
                continue
            }
            let body = a.dropFirst(2)
            if let eq = body.firstIndex(of: "=") {
                let name = String(body[..<eq])
                if names.contains(name) {
                    taken.values[name, default: []].append(String(body[body.index(after: eq)...]))
                } else {
                    rest.append(a)
                }
                continue
            }
            let name = String(body)
            if names.contains(name), i < arguments.count, isValue(arguments[i]) {
                taken.values[name, default: []].append(arguments[i])
                i += 1
                continue
            }
            rest.append(a)
        }
        return (rest, taken)
    }

    /// Adds the values taken out to what ArgumentParser parsed.
    func apply(to audit: inout AuditOptions) {
        audit.clientIDs += values["client-id"] ?? []
        audit.projectIDs += values["project-id"] ?? []
        audit.allowRedirects += values["allow-redirect"] ?? []
        audit.endpoints += values["endpoint"] ?? []
    }
}
