import ArgumentParser
import FlipAuditCore
import Foundation

/// `flipaudit`: wires the command line to `FlipAuditCore` and maps the
/// result to an exit status (0 clean, 1 finding at or above --fail-on,
/// 2 usage error, 3 input not read completely, 4 an output not written
/// completely; the highest of 4, 3, 1 wins).
@main
struct FlipAuditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flipaudit",
        abstract: "Audit Google App Flip account-linking traffic in access logs.",
        discussion: """
            Reads gzip'd or plain access logs (combined, JSON lines, or a pasted nginx \
            log_format), rebuilds every App Flip session by its state, and reports what \
            breaks the protocol or looks like an attack.

            Outputs are checked before any input is read: one that is an input or \
            another output, a directory, an over-long name or an unwritable folder is a \
            usage error. Regular files are replaced atomically; a FIFO, a device or \
            /dev/fd/N is written as it is; through a symlink, its target is written. \
            Each input file is read once however many paths name it; in a directory \
            only regular files are read. A FIFO or - is read once, as a stream. A file \
            is read up to the size it had when opened. A signal (INT, TERM, HUP, QUIT, \
            USR1, USR2) leaves no temporary file and exits with 128 + its number; a \
            closed pipe on standard output ends the output quietly.

            Exit status: 0 clean; 1 a finding at or above --fail-on; 2 usage error \
            (checked before any input is read); 3 some input could not be read \
            completely; 4 an output could not be written completely (full disk, \
            closed standard output; every other output is still written). The \
            highest of 4, 3, 1 wins.
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

    @Option(
        name: .customLong("reuse-window"),
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

    @Option(
        name: .customLong("max-sessions"),
        help: ArgumentHelp("Most sessions held open at once; past it the least recently active is closed early (counted in the report).", valueName: "N"))
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
        // Ranges first: the log_format check below sizes buffers by --max-line.
        if let message = OptionLimits.check(sessionTimeout: sessionTimeout, maxLine: maxLine, maxSessions: maxSessions) {
            throw ValidationError(message)
        }
        if let text = logFormat {
            do { _ = try NginxLogFormatParser(logFormat: text, maxLine: maxLine) } catch { throw ValidationError("\(error)") }
        }
        if LogDuration.seconds(reuseWindow) == nil {
            throw ValidationError("--reuse-window: \"\(reuseWindow)\" is not a duration such as 90m, 36h or 7d (at most \(LogDuration.maximumDays) days)")
        }
        if inputs.filter({ $0 == "-" }).count > 1 { throw ValidationError("standard input (-) can be read only once") }
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
        // Every output is checked, and the CSV folder made, before any
        // input is read.
        let plan: OutputPlan
        do {
            let files = [("--html", html), ("--metrics", metrics), ("--checkpoint", checkpoint)].compactMap { option, path in
                path.map { (option: option, path: $0) }
            }
            plan = try OutputPlan.make(
                csv: csv, json: json, files: files, regularOnly: ["--checkpoint"],
                arguments: inputs, usesStandardOutput: json == "-" || !quiet)
        } catch {
            stderr.write("flipaudit: \(error)")
            throw ExitCode(2)
        }
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
            warn: {
                meter?.clear(); stderr.write("flipaudit: " + TerminalText.escape($0))
            },
            progress: onProgress)
        // Output files are written through temporary files; a run ended by
        // a signal removes them and leaves no partial output.
        Interruption.removeTemporaryOutputs(onExit: { meter?.clear() })
        var writer: CSVWriter?
        if csv != nil {
            do { writer = try CSVWriter(plan: plan) } catch {
                stderr.write("flipaudit: --csv: \(error)")
                throw ExitCode(2)
            }
        }
        let result = try analyzer.run(
            inputs, rows: writer.map { [$0] } ?? [], carry: checkpoint != nil, carried: carried,
            skipping: plan.ownOutputs)
        meter?.clear()

        // Each output is written whatever happened to the others; a failure
        // is named and makes the exit status 4. A reader that closed
        // standard output ends that output quietly.
        var outputFailed = false
        var standardOutputClosed = false
        func failed(_ error: OutputError, option: String) {
            if error.path == "-" && error.isBrokenPipe {
                standardOutputClosed = true
                return
            }
            outputFailed = true
            stderr.write("flipaudit: \(option): \(error)")
        }
        if let writer {
            for error in writer.commitAll(statistics: result.statistics) { failed(error, option: "--csv") }
        }
        if let target = plan.json {
            let text = try JSONReport.render(result)
            do { try OutputWriter.write(text, to: target) } catch { failed(error, option: "--json") }
        }
        if !quiet && json != "-" && !standardOutputClosed {
            let useColor = !noColor && ProcessInfo.processInfo.environment["NO_COLOR"].map(\.isEmpty) ?? true && isatty(STDOUT_FILENO) == 1
            do { try StandardStreams.writeOutput(TerminalReport(color: useColor).render(result)) } catch { failed(error, option: "summary") }
        }
        // The exit status (the highest of 4, 3, 1), known before the
        // metrics, which carry it; the metrics are written last for that
        // reason.
        var status: Int32 = 0
        if let threshold = Severity(rawValue: failOn.rawValue), let worst = result.worstSeverity, worst >= threshold { status = 1 }
        if result.hadInputErrors { status = 3 }
        if outputFailed { status = Self.outputFailureStatus }
        if let checkpoint, let next = result.checkpoint, let target = plan.files["--checkpoint"] {
            if result.hadInputErrors {
                stderr.write(
                    "flipaudit: --checkpoint \(TerminalText.escape(checkpoint)) left as it was: some input could not be read completely (run this night again once it is mended)"
                )
            } else {
                do { try next.write(to: target.path) } catch {
                    stderr.write("flipaudit: --checkpoint: \(error)")
                    status = Self.outputFailureStatus
                }
            }
        }
        if let target = plan.files["--html"] {
            let text = HTMLReport.render(result, failOn: Severity(rawValue: failOn.rawValue))
            if !Self.writeOutput(text, to: target) { status = Self.outputFailureStatus }
        }
        if let metrics {
            let elapsed = ContinuousClock.now - started
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            // The previous run's file, when it is one (never a FIFO's reader's data).
            let previous =
                plan.files["--metrics"]?.method == .replace
                ? (try? String(contentsOfFile: metrics, encoding: .utf8)).flatMap(MetricsReport.lastSuccess(in:)) : nil
            let text = MetricsReport.render(
                result, exitStatus: status, duration: seconds,
                now: Date().timeIntervalSince1970, previousSuccess: previous,
                carriedIn: result.carriedIn, carriedOut: result.carriedOut)
            if let target = plan.files["--metrics"], !Self.writeOutput(text, to: target) { status = Self.outputFailureStatus }
        }
        if status != 0 { throw ExitCode(status) }
    }

    /// The exit status when an output could not be written.
    static let outputFailureStatus: Int32 = 4

    /// Writes one output file as its target wants it; on failure says so
    /// on standard error and returns false (the other outputs are still
    /// written).
    static func writeOutput(_ text: String, to target: OutputTarget) -> Bool {
        do { try OutputWriter.write(text, to: target) } catch {
            StandardError().write("flipaudit: \(target.option): \(error)")
            return false
        }
        return true
    }

    /// Parses, runs, and exits with docs/contract.md §6's statuses: ArgumentParser's
    /// usage errors become 2.
    static func main() {
        // A closed standard descriptor must not be taken by an output file.
        StandardStreams.reserve()
        // A closed pipe is an error of the write (EPIPE), handled where it
        // happens, not a signal that kills the run half-way.
        signal(SIGPIPE, SIG_IGN)
        do {
            // `--help` comes back as a command of its own (ArgumentParser's
            // HelpCommand): run whatever was parsed.
            var command = try parseAsRoot(try ConfigArguments.expand(Array(CommandLine.arguments.dropFirst())))
            try command.run()
        } catch let code as ExitCode {
            Foundation.exit(code.rawValue)
        } catch let error as ConfigFile.ConfigError {
            StandardStreams.writeError("flipaudit: --config \(TerminalText.escape(error.description))")
            Foundation.exit(2)
        } catch let error as ConfigurationError {
            StandardStreams.writeError("flipaudit: \(error)")
            Foundation.exit(2)
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                // --help, --version: standard output like any other output.
                do { try StandardStreams.writeOutput(fullMessage(for: error) + "\n") } catch {
                    if !error.isBrokenPipe {
                        StandardStreams.writeError("flipaudit: \(error)")
                        Foundation.exit(4)
                    }
                }
                Foundation.exit(0)
            }
            StandardStreams.writeError(fullMessage(for: error))
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
        let text = String(
            ProgressText.line(
                read: positions.values.reduce(0, +), total: p.totalBytes,
                filesDone: finished.count, fileCount: p.fileCount, elapsed: seconds
            )
            .prefix(columns - 1))
        guard text != lastText else { return }
        lastText = text
        StandardStreams.writeError("\r\u{1B}[K" + text, newline: false)
        shown = true
    }

    func clear() {
        lock.lock(); defer { lock.unlock() }
        guard shown else { return }
        StandardStreams.writeError("\r\u{1B}[K", newline: false)
        shown = false
        lastText = ""
    }
}

/// What a terminating signal (INT, TERM, HUP, QUIT, USR1, USR2) does:
/// remove the temporary output files, then exit with 128 + the signal
/// number, as a shell expects. SIGPIPE is ignored (see `main`): a write to
/// a closed pipe fails with EPIPE and is handled as an output error.
enum Interruption {
    /// Kept alive for the whole run.
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []

    static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2]

    static func removeTemporaryOutputs(onExit: @escaping @Sendable () -> Void) {
        for signalNumber in signals {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler {
                TemporaryOutputs.shared.removeAll()
                onExit()
                StandardStreams.writeError("flipaudit: interrupted (signal \(signalNumber)); no output written")
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
        StandardStreams.writeError(line)
    }
}
