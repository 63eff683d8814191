import ArgumentParser
import FlipAuditCore
import Foundation

/// `flipaudit`: wires the command line to `FlipAuditCore` and maps the
/// result to an exit status (0 clean, 1 finding at or above --fail-on,
/// 2 usage error, 3 input not read completely; 3 wins over 1).
@main
struct FlipAuditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flipaudit",
        abstract: "Audit Google App Flip account-linking traffic in access logs.",
        discussion: """
            Reads gzip'd or plain access logs (combined, JSON lines, or a pasted nginx \
            log_format), rebuilds every App Flip session by its state, and reports what \
            breaks the protocol or looks like an attack.

            Exit status: 0 clean; 1 a finding at or above --fail-on; 2 usage error; \
            3 some input could not be read completely (3 wins over 1).
            """,
        version: "0.1.0")

    enum FormatOption: String, ExpressibleByArgument, CaseIterable {
        case auto, combined, json, nginx
    }

    enum FailOn: String, ExpressibleByArgument, CaseIterable {
        case critical, high, medium, low, info, never
    }

    @Argument(help: ArgumentHelp("Log files, directories (read recursively) or - for standard input.", valueName: "file|dir|-"))
    var inputs: [String] = []

    @Option(help: "Log format of every input.")
    var format: FormatOption = .auto

    @Option(name: .customLong("log-format"), help: ArgumentHelp("An nginx log_format line (implies --format nginx).", valueName: "nginx log_format"))
    var logFormat: String?

    @Option(name: .customLong("client-id"), help: ArgumentHelp("A Google client ID your server expects (repeatable).", valueName: "ID"))
    var clientIDs: [String] = []

    @Option(name: .customLong("project-id"), help: ArgumentHelp("Your Actions project ID: allowlists /r/ID on Google's hosts (repeatable).", valueName: "ID"))
    var projectIDs: [String] = []

    @Option(name: .customLong("allow-redirect"), help: ArgumentHelp("One more allowlisted redirect URI, exact (repeatable).", valueName: "URI"))
    var allowRedirects: [String] = []

    @Option(name: .customLong("endpoint"), help: ArgumentHelp("A request path that is always an App Flip endpoint (repeatable).", valueName: "PATH"))
    var endpoints: [String] = []

    @Option(name: .customLong("session-timeout"), help: ArgumentHelp("Seconds after its last event that a session expires.", valueName: "SECONDS"))
    var sessionTimeout: Int = 600

    @Option(help: ArgumentHelp("Carry open sessions and remembered states and codes from run to run (started when missing).", valueName: "FILE"))
    var checkpoint: String?

    @Option(name: .customLong("reuse-window"),
            help: ArgumentHelp("How long ended states and returned codes are remembered, in log time (90m, 36h, 7d).", valueName: "DURATION"))
    var reuseWindow: String = "24h"

    @Option(help: "Time bucket of the error distribution (UTC).")
    var bucket: AuditConfiguration.Bucket = .day

    @Option(help: ArgumentHelp("Write sessions.csv, findings.csv and error_distribution.csv into DIR.", valueName: "DIR"))
    var csv: String?

    @Option(help: ArgumentHelp("Write the summary report as JSON to FILE, or - for standard output.", valueName: "FILE|-"))
    var json: String?

    @Option(help: ArgumentHelp("Write the report as one self-contained HTML page to FILE.", valueName: "FILE"))
    var html: String?

    @Option(help: ArgumentHelp("Write Prometheus metrics of this run to FILE (node_exporter's textfile collector).", valueName: "FILE"))
    var metrics: String?

    @Option(name: .customLong("fail-on"), help: "Exit 1 when a finding at or above this severity exists.")
    var failOn: FailOn = .never

    @Option(name: .customLong("max-line"), help: ArgumentHelp("Longest line read, in bytes; longer lines are counted as malformed.", valueName: "BYTES"))
    var maxLine: Int = 64 * 1024

    @Option(name: .customLong("max-sessions"), help: ArgumentHelp("Most sessions held open at once; past it the least recently active is closed early (counted in the report).", valueName: "N"))
    var maxSessions: Int = SessionTracker.defaultMaxSessions

    @Option(help: ArgumentHelp("Read options from a TOML file: any long option under its own name (command-line options win).", valueName: "FILE"))
    var config: String?

    @Flag(name: [.short, .long], help: "Print no summary and no progress (errors still go to standard error).")
    var quiet = false

    @Flag(name: .customLong("no-progress"), help: "Do not show progress on standard error.")
    var noProgress = false

    @Flag(name: .customLong("no-color"), help: "Do not color the summary (also: NO_COLOR).")
    var noColor = false

    mutating func validate() throws {
        if inputs.isEmpty { throw ValidationError("name at least one log file, directory, or - for standard input") }
        if format == .nginx && logFormat == nil { throw ValidationError("--format nginx needs --log-format '<nginx log_format>'") }
        if logFormat != nil && format != .nginx && format != .auto {
            throw ValidationError("--log-format goes with --format nginx (or auto), not --format \(format.rawValue)")
        }
        if let text = logFormat {
            do { _ = try NginxLogFormatParser(logFormat: text, maxLine: maxLine) } catch { throw ValidationError("\(error)") }
        }
        if sessionTimeout <= 0 { throw ValidationError("--session-timeout must be a positive number of seconds") }
        if LogDuration.seconds(reuseWindow) == nil {
            throw ValidationError("--reuse-window: \"\(reuseWindow)\" is not a duration such as 90m, 36h or 7d (at most \(LogDuration.maximumDays) days)")
        }
        if maxLine < 256 { throw ValidationError("--max-line must be at least 256 bytes") }
        if maxSessions < 1 { throw ValidationError("--max-sessions must be at least 1") }
        if inputs.filter({ $0 == "-" }).count > 1 { throw ValidationError("standard input (-) can be read only once") }
        if let csv { try Self.checkWritableDirectory(csv) }
        if let json, json != "-" {
            let parent = (json as NSString).deletingLastPathComponent
            try Self.checkWritableDirectory(parent.isEmpty ? "." : parent, create: false, option: "--json")
        }
        for (option, path) in [("--html", html), ("--metrics", metrics)] {
            guard let path else { continue }
            let parent = (path as NSString).deletingLastPathComponent
            try Self.checkWritableDirectory(parent.isEmpty ? "." : parent, create: false, option: option)
        }
    }

    /// Fails before any input is read when an output folder cannot be used.
    static func checkWritableDirectory(_ path: String, create: Bool = true, option: String = "--csv") throws {
        let fm = FileManager.default
        var isDir: ObjCBool = false
        if !fm.fileExists(atPath: path, isDirectory: &isDir) {
            guard create else { throw ValidationError("\(option): folder \(path) does not exist") }
            do { try fm.createDirectory(atPath: path, withIntermediateDirectories: true) } catch {
                throw ValidationError("\(option): cannot create folder \(path)")
            }
            return
        }
        guard isDir.boolValue else { throw ValidationError("\(option): \(path) is not a folder") }
        guard fm.isWritableFile(atPath: path) else { throw ValidationError("\(option): folder \(path) is not writable") }
    }

    func run() throws {
        let started = ContinuousClock.now
        var config = AuditConfiguration()
        switch format {
        case .auto: config.format = logFormat.map { .nginx($0) } ?? .auto
        case .combined: config.format = .combined
        case .json: config.format = .json
        case .nginx: config.format = .nginx(logFormat ?? "")
        }
        config.clientIDs = Set(clientIDs)
        config.projectIDs = projectIDs
        config.allowRedirects = allowRedirects
        config.endpoints = endpoints
        config.sessionTimeoutSeconds = sessionTimeout
        config.bucket = bucket
        config.reuseWindowSeconds = LogDuration.seconds(reuseWindow)!
        config.maxLine = maxLine
        config.maxSessions = maxSessions

        let stderr = StandardError()
        var carried: Checkpoint?
        if let checkpoint {
            do { carried = try Checkpoint.load(checkpoint) } catch {
                stderr.write("flipaudit: --checkpoint \(TerminalText.escape(checkpoint)): \(error); nothing written")
                throw ExitCode(2)
            }
            if carried == nil { stderr.write("flipaudit: --checkpoint \(TerminalText.escape(checkpoint)) does not exist: starting fresh") }
            config.fingerprint = .keyed(carried?.key ?? Fingerprint.newKey())
        }
        let meter: ProgressLine? = (quiet || noProgress || isatty(STDERR_FILENO) != 1) ? nil : ProgressLine()
        var onProgress: (@Sendable (Analyzer.Progress) -> Void)?
        if let meter { onProgress = { meter.update($0) } }
        let analyzer = Analyzer(
            configuration: config,
            warn: { meter?.clear(); stderr.write("flipaudit: " + TerminalText.escape($0)) },
            progress: onProgress)
        // Output files are written through temporary files; an interrupted
        // run removes them and leaves no partial output.
        Interruption.removeTemporaryOutputs(onExit: { meter?.clear() })
        var writer: CSVWriter?
        if let csv {
            do { writer = try CSVWriter(directory: csv) } catch {
                stderr.write("flipaudit: --csv: \(error)")
                throw ExitCode(2)
            }
        }
        let result = try analyzer.run(inputs, rows: writer.map { [$0] } ?? [], carry: checkpoint != nil, carried: carried)
        meter?.clear()

        if let writer {
            do { try writer.commit(statistics: result.statistics) } catch {
                stderr.write("flipaudit: \(error)")
                throw ExitCode(3)
            }
        }
        if let json {
            let text = try JSONReport.render(result)
            if json == "-" {
                FileHandle.standardOutput.write(Data(text.utf8))
            } else {
                do { try AtomicFile.write(text, to: json) } catch {
                    stderr.write("flipaudit: \(error)")
                    throw ExitCode(3)
                }
            }
        }
        if !quiet && json != "-" {
            let useColor = !noColor && ProcessInfo.processInfo.environment["NO_COLOR"].map(\.isEmpty) ?? true && isatty(STDOUT_FILENO) == 1
            FileHandle.standardOutput.write(Data(TerminalReport(color: useColor).render(result).utf8))
        }
        // The exit status (3 wins over 1), known before the metrics, which
        // carry it; the metrics are written last for that reason.
        var status: Int32 = 0
        if let threshold = Severity(rawValue: failOn.rawValue), let worst = result.worstSeverity, worst >= threshold { status = 1 }
        if result.hadInputErrors { status = 3 }
        if let checkpoint, let next = result.checkpoint {
            if result.hadInputErrors {
                stderr.write("flipaudit: --checkpoint \(TerminalText.escape(checkpoint)) left as it was: some input could not be read completely (run this night again once it is mended)")
            } else {
                do { try next.write(to: checkpoint) } catch {
                    stderr.write("flipaudit: --checkpoint: \(error)")
                    status = Self.outputFailureStatus
                }
            }
        }
        if let html {
            let text = HTMLReport.render(result, failOn: Severity(rawValue: failOn.rawValue))
            if !Self.writeOutput(text, to: html, option: "--html") { status = Self.outputFailureStatus }
        }
        if let metrics {
            let elapsed = ContinuousClock.now - started
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            let previous = (try? String(contentsOfFile: metrics, encoding: .utf8)).flatMap(MetricsReport.lastSuccess(in:))
            let text = MetricsReport.render(result, exitStatus: status, duration: seconds,
                                            now: Date().timeIntervalSince1970, previousSuccess: previous,
                                            carriedIn: result.carriedIn, carriedOut: result.carriedOut)
            if !Self.writeOutput(text, to: metrics, option: "--metrics") { status = Self.outputFailureStatus }
        }
        if status != 0 { throw ExitCode(status) }
    }

    /// The exit status when an output could not be written.
    static let outputFailureStatus: Int32 = 3

    /// Writes one output file atomically; on failure says so on standard
    /// error and returns false (the other outputs are still written).
    static func writeOutput(_ text: String, to path: String, option: String) -> Bool {
        do { try AtomicFile.write(text, to: path) } catch {
            StandardError().write("flipaudit: \(option): \(error)")
            return false
        }
        return true
    }

    /// Parses, runs, and exits with docs/contract.md §6's statuses: ArgumentParser's
    /// usage errors become 2.
    static func main() {
        do {
            // `--help` comes back as a command of its own (ArgumentParser's
            // HelpCommand): run whatever was parsed.
            var command = try parseAsRoot(try ConfigArguments.expand(Array(CommandLine.arguments.dropFirst())))
            try command.run()
        } catch let code as ExitCode {
            Foundation.exit(code.rawValue)
        } catch let error as ConfigFile.ConfigError {
            FileHandle.standardError.write(Data("flipaudit: --config \(TerminalText.escape(error.description))\n".utf8))
            Foundation.exit(2)
        } catch let error as ConfigurationError {
            FileHandle.standardError.write(Data("flipaudit: \(error)\n".utf8))
            Foundation.exit(2)
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                print(fullMessage(for: error))
                Foundation.exit(0)
            }
            FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
            Foundation.exit(2)
        }
        Foundation.exit(0)
    }
}

extension AuditConfiguration.Bucket: ExpressibleByArgument {}

/// A progress line on standard error (a terminal): percent of all input
/// bytes, rate, time left, files done (`ProgressText`), redrawn at most ten
/// times a second and erased before any other output. Inputs are read side
/// by side, so it adds up each one's latest position.
final class ProgressLine: @unchecked Sendable {
    private let lock = NSLock()
    private let started = ContinuousClock.now
    private var last: ContinuousClock.Instant?
    private var shown = false
    /// Per input (by number): bytes read as stored, and whether it is done.
    private var positions: [Int: UInt64] = [:]
    private var finished: Set<Int> = []
    /// The line on screen, not drawn again while it reads the same.
    private var lastText = ""
    /// The terminal's width: a longer line would wrap, and `\r` would
    /// then no longer return to its start.
    private let columns: Int = {
        var size = winsize()
        return ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0 ? Int(size.ws_col) : 80
    }()

    func update(_ p: Analyzer.Progress) {
        lock.lock(); defer { lock.unlock() }
        positions[p.fileNumber] = p.compressedBytes
        if p.finished { finished.insert(p.fileNumber) }
        let now = ContinuousClock.now
        if let last, now - last < .milliseconds(100) { return }
        last = now
        let elapsed = now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let text = String(ProgressText.line(read: positions.values.reduce(0, +), total: p.totalBytes,
                                            filesDone: finished.count, fileCount: p.fileCount, elapsed: seconds)
                            .prefix(columns - 1))
        guard text != lastText else { return }
        lastText = text
        FileHandle.standardError.write(Data(("\r\u{1B}[K" + text).utf8))
        shown = true
    }

    func clear() {
        lock.lock(); defer { lock.unlock() }
        guard shown else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
        shown = false
        lastText = ""
    }
}

/// What SIGINT and SIGTERM do: remove the temporary output files, then
/// exit with 128 + the signal number, as a shell expects.
enum Interruption {
    /// Kept alive for the whole run.
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []

    static func removeTemporaryOutputs(onExit: @escaping @Sendable () -> Void) {
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler {
                TemporaryOutputs.shared.removeAll()
                onExit()
                FileHandle.standardError.write(Data("flipaudit: interrupted; no output written\n".utf8))
                _exit(128 + signalNumber)
            }
            source.resume()
            sources.append(source)
        }
    }
}

/// Writes one-line messages to standard error.
struct StandardError: Sendable {
    func write(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
