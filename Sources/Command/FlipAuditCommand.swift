import ArgumentParser
import Audit
import Foundation
import Parsing
import Reading
import Reports
import Rules
import Run
import Writing

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

            \(ExitStatus.helpTable)

            flipaudit explain --help: one session's story for a security review \
            (docs/security-review.md).

            flipaudit follow --help: the same rules on logs while they are written, each \
            finding within a second (docs/follow.md).

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
        var configuration = audit.configuration
        configuration.maxSessions = maxSessions
        let run = AuditRun(
            inputs: inputs, configuration: configuration, checkpoint: checkpoint, delivery: output.delivery, dryRun: dryRun)
        let status = try run.run()
        if status != .clean { throw status }
    }

    /// Parses, runs, and exits with docs/contract.md §6's statuses
    /// (`ExitStatus`): ArgumentParser's usage errors become 2.
    static func main() {
        // A closed standard descriptor must not be taken by an output file.
        StandardDescriptors.reserve()
        Interruption.install()
        if let shortage = Descriptors.shortage() {
            Diagnostics.audit.say(shortage)
            Foundation.exit(ExitStatus.usage.rawValue)
        }
        // A closed pipe is an error of the write (EPIPE), handled where it
        // happens, not a signal that kills the run half-way.
        signal(SIGPIPE, SIG_IGN)
        Foundation.exit(status(running: Array(CommandLine.arguments.dropFirst())).rawValue)
    }

    /// Runs the command line `arguments` name (the audit, `stage …`,
    /// `explain …`, a completion script); its exit status, every error said
    /// on standard error.
    static func status(running arguments: [String]) -> ExitStatus {
        do {
            // `--help` comes back as a command of its own (ArgumentParser's
            // HelpCommand): run whatever was parsed.
            if let shell = Completions.requestedShell(arguments), let script = Completions.script(for: shell) {
                try StandardStreams.writeOutput(script)
            } else if arguments.first == StageCommand.name {
                try StageCommand.runStage(Array(arguments.dropFirst()))
            } else if arguments.first == ExplainCommand.name {
                try ExplainCommand.runExplain(Array(arguments.dropFirst()))
            } else if arguments.first == FollowCommand.name {
                try FollowCommand.runFollow(Array(arguments.dropFirst()))
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
            return .clean
        } catch let status as ExitStatus {
            return status
        } catch let code as ExitCode {
            return ExitStatus(rawValue: code.rawValue) ?? .usage
        } catch let error as ConfigFile.ConfigError {
            Diagnostics.audit.say("--config \(TerminalText.escape(error.description))")
            return .usage
        } catch let error as ConfigurationError {
            // It may name a file as a checkpoint stored it: escaped.
            Diagnostics.audit.say("\(TerminalText.escape("\(error)"))")
            return .usage
        } catch let error as StageError {
            Diagnostics.stage.say("\(TerminalText.escape(error.description))")
            return error.status
        } catch let error as OutputError {
            // Named by the command that wrote it (a stage's output, or a
            // completion script on standard output).
            (arguments.first == StageCommand.name ? Diagnostics.stage : Diagnostics.audit).say("\(error)")
            return .outputFailed
        } catch let failure as StageCommand.Failure {
            return parserFailure(failure.error, of: StageCommand.self)
        } catch let failure as ExplainCommand.Failure {
            return parserFailure(failure.error, of: ExplainCommand.self)
        } catch let failure as FollowCommand.Failure {
            return parserFailure(failure.error, of: FollowCommand.self)
        } catch {
            return parserFailure(error, of: FlipAuditCommand.self, arguments: arguments)
        }
    }

    /// An ArgumentParser error of `command`'s line: `--help` and
    /// `--version` printed on standard output (an output like any other:
    /// exit 4 when it cannot be written, but a reader that left is no
    /// error), anything else on standard error, exit 2; a value the config
    /// file set names its FILE:LINE.
    static func parserFailure(_ error: Error, of command: any ParsableCommand.Type, arguments: [String] = []) -> ExitStatus {
        let message = command.fullMessage(for: error)
        if command.exitCode(for: error) == .success {
            do { try StandardStreams.writeOutput(message + "\n") } catch {
                if !error.isBrokenPipe {
                    Diagnostics.audit.say("\(error)")
                    return .outputFailed
                }
            }
            return .clean
        }
        let source = ConfigArguments.source(of: message, arguments: arguments)
        // ArgumentParser's own message ("Error: …", then the usage), as it
        // writes it: only a value the config file set is named before it.
        StandardStreams.writeError((source.map { "flipaudit: --config \(TerminalText.escape($0)): " } ?? "") + message)
        return .usage
    }
}
