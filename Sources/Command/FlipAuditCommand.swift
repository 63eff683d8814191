import ArgumentParser
import Audit
import Foundation
import Parsing
import Reading
import Reports
import Rules
import Synchronization

/// `flipaudit`: wires the command line to the audit and maps the
/// result to an exit status (`ExitStatus`: 0 clean, 1 finding at or above
/// --fail-on, 2 usage error, 3 input not read completely, 4 an output not
/// written completely, 5 blind; the highest of 5, 4, 3, 1 wins).
struct FlipAuditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flipaudit",
        abstract: "Audit Google App Flip account-linking traffic in access logs.",
        discussion: """
            Reads gzip'd or plain access logs in any server's own format, each line in \
            its own (nginx, Apache, Caddy, HAProxy, lighttpd, h2o, Traefik, Envoy, \
            Google Cloud and AWS load balancers, Cloudflare, CloudFront, IIS; a pasted \
            log_format or LogFormat), rebuilds every App Flip session by its state, and \
            reports what breaks the protocol or looks like an attack.

            Outputs are checked before any input is read and replaced atomically; \
            man flipaudit says how FIFOs, symlinks, folders and signals are handled.

            Exit status: 0 clean: no finding at or above --fail-on (default never); 1 a \
            finding at or above --fail-on; 2 usage error (checked before any input is \
            read: bad values, an output that would overwrite an input or another \
            output, a checkpoint that is locked or has seen an input); 3 some input \
            could not be read completely (everything readable is still reported); 4 \
            an output could not be written completely (full disk, closed or broken \
            standard output; every other output is still written); 5 blind: an input \
            was mostly not understood, or none was (whatever --fail-on says). The highest \
            of 5, 4, 3, 1 wins; a signal exits with 128 + its number.

            flipaudit explain --help: one session's story for a security review \
            (docs/security-review.md).

            flipaudit stage --help: the same audit cut into map, shuffle and reduce \
            steps for Apache Spark or Hadoop Streaming (docs/distributed.md).
            """,
        version: FlipAuditVersion.current)

    @Argument(
        help: ArgumentHelp("Log files, directories (read recursively) or - for standard input.", valueName: "file|dir|-"),
        completion: .file())
    var inputs: [String] = []

    @OptionGroup var audit: AuditOptions

    @Option(
        help: ArgumentHelp("Carry open sessions and remembered states and codes from run to run (started when missing).", valueName: "FILE"),
        completion: .file())
    var checkpoint: String?

    @OptionGroup var output: OutputOptions

    @Flag(
        name: .customLong("dry-run"),
        help: ArgumentHelp(
            "A look by hand: read --checkpoint and audit as the next run would; print the summary (and --json -), write no file and take no lock, so the chain is left as it was."
        ))
    var dryRun = false

    @Option(
        name: .customLong("max-sessions"),
        help: ArgumentHelp("Most sessions held open at once; past it the least recently active is closed early (counted in the report).", valueName: "N"))
    var maxSessions: Int = AuditConfiguration.defaultMaxSessions

    @Option(
        help: ArgumentHelp(
            "Read options from a TOML file: any long option under its own name (command-line options win; its relative paths are from its folder).",
            valueName: "FILE"),
        completion: .file(extensions: ["toml"]))
    var config: String?

    mutating func validate() throws {
        if inputs.isEmpty { throw ValidationError("name at least one log file, directory, or - for standard input") }
        // `flipaudit help` as other tools take it, when no file is named help.
        if inputs == ["help"] && !FileManager.default.fileExists(atPath: "help") {
            throw ValidationError("there is no file named help; flipaudit --help lists the options, man -l docs/flipaudit.1 has the rest")
        }
        if let message = OptionLimits.check(sessionTimeout: 1, maxLine: audit.maxLine, maxSessions: maxSessions) {
            throw ValidationError(message)
        }
        if inputs.filter({ $0 == "-" }).count > 1 { throw ValidationError("standard input (-) can be read only once") }
        if checkpoint == "-" {
            throw ValidationError("--checkpoint -: a checkpoint is a file the next run reads back, not standard input or output; name a file")
        }
        // Only --json takes - for standard output (the summary's place);
        // a file or folder named - would be a surprise.
        for (option, value) in [("--csv", output.csv), ("--html", output.html), ("--metrics", output.metrics)] where value == "-" {
            throw ValidationError("\(option) -: only --json writes to standard output (--json -); name a \(option == "--csv" ? "folder" : "file")")
        }
    }

    func run() throws {
        let started = ContinuousClock.now
        var config = audit.configuration
        config.maxSessions = maxSessions

        let stderr = StandardError()
        let checkpoint = self.checkpoint.map(CheckpointLock.target)
        // A look by hand (--dry-run) writes no file the chain owns: the
        // nightly job's CSV, HTML, metrics and JSON files, the checkpoint
        // and its lock all stay as they are; the summary is printed.
        var output = self.output
        if dryRun {
            output.csv = nil
            output.html = nil
            output.metrics = nil
            if output.json != "-" { output.json = nil }
            output.quiet = output.quiet && output.json == "-"
        }
        // Every output is checked, and the CSV folder made, before any
        // input is read.
        var plan = try output.plan(inputs: inputs, checkpoint: dryRun ? nil : checkpoint)
        var carried: Checkpoint?
        var lock: CheckpointLock?
        if let checkpoint {
            // A look by hand reads only: a commit renames a whole new file
            // into place, so reading a whole one needs no lock.
            if !dryRun {
                do { lock = try CheckpointLock(checkpoint: checkpoint) } catch {
                    stderr.write("flipaudit: --checkpoint \(TerminalText.escape(checkpoint)) \(error)")
                    plan.removeMadeFolders()
                    throw ExitCode(2)
                }
            }
            // A folder read as input skips the lock as it skips the checkpoint.
            for path in dryRun ? [checkpoint, CheckpointLock.path(for: checkpoint)] : [CheckpointLock.path(for: checkpoint)] {
                if let identity = FileIdentity.of(path: path) { plan.ownOutputs.identities.insert(identity) }
            }
            do { carried = try Checkpoint.load(checkpoint) } catch {
                stderr.write("flipaudit: --checkpoint \(TerminalText.escape(checkpoint)): \(TerminalText.escape("\(error)")); nothing written")
                plan.removeMadeFolders()
                throw ExitCode(2)
            }
            if carried == nil { stderr.write("flipaudit: --checkpoint \(TerminalText.escape(checkpoint)) does not exist: starting fresh") }
            config.fingerprint = carried?.fingerprint ?? .keyed(Fingerprint.newKey())
        }
        let meter: ProgressLine? = (output.quiet || output.noProgress || isatty(STDERR_FILENO) != 1) ? nil : ProgressLine()
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
        let writer = try output.csvWriter(plan)
        let result: AuditResult
        do {
            result = try analyzer.run(
                inputs, rows: writer.map { [$0] } ?? [], carry: checkpoint != nil, carried: carried,
                skipping: plan.ownOutputs)
        } catch {
            // Refused before any input was read (no night twice, a
            // log_format that cannot work): nothing left behind.
            writer?.discard()
            plan.removeMadeFolders()
            throw error
        }
        meter?.clear()
        let next = checkpoint != nil ? result.checkpoint.flatMap { cp in plan.files["--checkpoint"].map { (cp.encoded(), $0) } } : nil
        let status = output.write(result, plan: plan, writer: writer, started: started, checkpoint: next)
        _ = consume lock
        if dryRun {
            stderr.write("flipaudit: --dry-run: no file written\(checkpoint == nil ? "" : ", the checkpoint is as it was: the next run audits this night")")
        }
        if status != 0 { throw ExitCode(status) }
    }

    /// Parses, runs, and exits with docs/contract.md §6's statuses: ArgumentParser's
    /// usage errors become 2.
    static func main() {
        // A closed standard descriptor must not be taken by an output file.
        StandardStreams.reserve()
        Interruption.install()
        if let shortage = Descriptors.shortage() {
            StandardStreams.writeError("flipaudit: " + shortage)
            Foundation.exit(2)
        }
        // A closed pipe is an error of the write (EPIPE), handled where it
        // happens, not a signal that kills the run half-way.
        signal(SIGPIPE, SIG_IGN)
        let arguments = Array(CommandLine.arguments.dropFirst())
        do {
            // `--help` comes back as a command of its own (ArgumentParser's
            // HelpCommand): run whatever was parsed.
            if let shell = Completions.requestedShell(arguments), let script = Completions.script(for: shell) {
                try StandardStreams.writeOutput(script)
            } else if arguments.first == StageCommand.name {
                try StageCommand.runStage(Array(arguments.dropFirst()))
            } else if arguments.first == ExplainCommand.name {
                try ExplainCommand.runExplain(Array(arguments.dropFirst()))
            } else {
                let expanded = try ConfigArguments.expand(arguments)
                let (rest, repeated) = RepeatedValues.extract(expanded)
                var command = try parseAsRoot(rest)
                if var audit = command as? FlipAuditCommand {
                    repeated.apply(to: &audit.audit)
                    command = audit
                }
                try command.run()
            }
        } catch let code as ExitCode {
            Foundation.exit(code.rawValue)
        } catch let error as ConfigFile.ConfigError {
            StandardStreams.writeError("flipaudit: --config \(TerminalText.escape(error.description))")
            Foundation.exit(2)
        } catch let error as ConfigurationError {
            // It may name a file as a checkpoint stored it: escaped.
            StandardStreams.writeError("flipaudit: \(TerminalText.escape("\(error)"))")
            Foundation.exit(2)
        } catch let error as StageError {
            StandardStreams.writeError("flipaudit: stage: \(TerminalText.escape(error.description))")
            Foundation.exit(error.status)
        } catch let error as OutputError {
            StandardStreams.writeError("flipaudit: stage: \(error)")
            Foundation.exit(4)
        } catch let failure as StageCommand.Failure {
            let (code, message) = StageCommand.report(failure.error)
            if code == 0 {
                do { try StandardStreams.writeOutput(message + "\n") } catch {}
            } else {
                StandardStreams.writeError(message)
            }
            Foundation.exit(code)
        } catch let failure as ExplainCommand.Failure {
            let error = failure.error
            if ExplainCommand.exitCode(for: error) == .success {
                do { try StandardStreams.writeOutput(ExplainCommand.fullMessage(for: error) + "\n") } catch {}
                Foundation.exit(0)
            }
            StandardStreams.writeError(ExplainCommand.fullMessage(for: error))
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
            // A value the config file set: say where (FILE:LINE).
            let source = ConfigArguments.source(of: fullMessage(for: error), arguments: arguments)
            StandardStreams.writeError((source.map { "flipaudit: --config \(TerminalText.escape($0)): " } ?? "") + fullMessage(for: error))
            Foundation.exit(2)
        }
        Foundation.exit(0)
    }
}

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
///
/// The handlers are installed first thing in `main`, before anything is
/// read or parsed, so a signal sent a few milliseconds after start is
/// never lost (a dispatch signal source, armed later and only once its
/// queue got to it, let 10 % of them through unseen). A handler only
/// writes the signal's number to a pipe (async-signal-safe); a thread of
/// its own reads it and does the rest.
enum Interruption {
    static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2]

    /// What the run adds before exiting (clearing the progress line).
    private static let onExit = Mutex<@Sendable () -> Void>({})

    /// Installs the handlers and starts the thread that acts on them.
    static func install() {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return }
        for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(ends[1], F_SETFL, O_NONBLOCK)
        interruptionPipe = ends[1]
        let reader = ends[0]
        Thread.detachNewThread { watch(reader) }
        // A parent may start us with them blocked (Foundation's Process
        // does): blocked, a handler never runs.
        var mask = sigset_t()
        sigemptyset(&mask)
        for signalNumber in signals { sigaddset(&mask, signalNumber) }
        pthread_sigmask(SIG_UNBLOCK, &mask, nil)
        for signalNumber in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = interruptionHandler
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(signalNumber, &action, nil)
        }
    }

    /// Sets what the run does before exiting on a signal.
    static func removeTemporaryOutputs(onExit: @escaping @Sendable () -> Void) {
        Self.onExit.withLock { $0 = onExit }
    }

    private static func watch(_ reader: Int32) {
        var byte: UInt8 = 0
        while true {
            let n = read(reader, &byte, 1)
            if n == 1 { interrupted(Int32(byte)) }
            if n == 0 || (n < 0 && errno != EINTR) { return }
        }
    }

    private static func interrupted(_ signalNumber: Int32) -> Never {
        // Waits for the commit step if it is under way (signals are held
        // off there), so what it says is true.
        let committed = OutputCommit.shared.hold()
        TemporaryOutputs.shared.removeAll()
        onExit.withLock { $0 }()
        StandardStreams.writeError(
            committed
                ? "flipaudit: interrupted (signal \(signalNumber)) after every output file was written"
                : "flipaudit: interrupted (signal \(signalNumber)); no output file written, the previous ones (and the checkpoint) are as they were"
        )
        _exit(128 + signalNumber)
    }
}

/// Where a signal handler writes the signal's number (write end, non-blocking).
nonisolated(unsafe) private var interruptionPipe: Int32 = -1

/// The signal handler: one byte into the pipe, nothing else.
private func interruptionHandler(_ signalNumber: Int32) {
    var byte = UInt8(truncatingIfNeeded: signalNumber)
    let saved = errno
    _ = write(interruptionPipe, &byte, 1)
    errno = saved
}

/// Writes one-line messages to standard error.
struct StandardError: Sendable {
    func write(_ line: String) {
        StandardStreams.writeError(line)
    }
}
