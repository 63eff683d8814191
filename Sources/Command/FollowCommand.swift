import ArgumentParser
import Rules
import Run

/// `flipaudit follow [options] FILE|GLOB…`: the audit's rules on logs
/// while they are written, each finding out as one NDJSON line the moment
/// it is decided, through rotations and restarts exactly once
/// (docs/follow.md). Runs until SIGTERM or SIGINT (exit 0).
struct FollowCommand: ParsableCommand {
    static let name = "follow"

    static let configuration = CommandConfiguration(
        commandName: "flipaudit follow",
        abstract: "Audit logs while they are written: each finding as one JSON line the moment it is decided.",
        discussion: """
            Follows each named file and each file a glob matches (now or later; quote the \
            glob), from where --checkpoint left it, else from its end (--from-start: its \
            beginning). Rotation is followed by identity (device, inode, first line): a \
            renamed file is read to its end before the new one; a file truncated in place \
            (copytruncate) is read again from 0, what was not read yet from its plain copy. \
            Compressed files are never followed.

            Findings go to standard output or --findings FILE, one JSON object a line, with \
            a stable id: after a restart on the same checkpoint none is written twice and \
            none is lost (with --findings FILE). The checkpoint is committed at start, every \
            --commit-interval seconds, on SIGHUP (which also reopens --findings) and on \
            SIGTERM or SIGINT, which then exit 0.

            Exit status: 0 stopped by SIGTERM or SIGINT after the last commit; 2 usage error \
            (a checkpoint of a nightly run, or one in use); 4 --findings or the checkpoint \
            could not be written.
            """)

    @Argument(help: ArgumentHelp("Log files or quoted globs to follow.", valueName: "file|glob"), completion: .file())
    var inputs: [String] = []

    @OptionGroup var audit: AuditOptions

    @Option(
        help: ArgumentHelp(
            "Commit read positions, open sessions and remembered states, codes and records here; a restart goes on from it.",
            valueName: "FILE"),
        completion: .file())
    var checkpoint: String?

    @Option(help: ArgumentHelp("Append findings to this file (default: standard output).", valueName: "FILE"), completion: .file())
    var findings: String?

    @Option(name: .customLong("findings-format"), help: ArgumentHelp("ndjson, or ocsf for OCSF Detection Findings (class 2004).", valueName: "FORMAT"))
    var findingsFormat: String = "ndjson"

    @Flag(name: .customLong("from-start"), help: "Read files seen for the first time from their beginning, not their end.")
    var fromStart = false

    @Option(help: ArgumentHelp("Serve /metrics (Prometheus) and /healthz on HOST:PORT.", valueName: "HOST:PORT"))
    var listen: String?

    @Option(name: .customLong("commit-interval"), help: ArgumentHelp("Seconds between checkpoint commits.", valueName: "SECONDS"))
    var commitInterval: Int = 10

    @Option(
        name: .customLong("max-sessions"),
        help: ArgumentHelp("Most sessions held open at once, as for the audit.", valueName: "N"))
    var maxSessions: Int = AuditConfiguration.defaultMaxSessions

    @Option(
        help: ArgumentHelp("Read options from a TOML file (the nightly job's audit options, or follow's own).", valueName: "FILE"),
        completion: .file(extensions: ["toml"]))
    var config: String?

    mutating func validate() throws {
        if inputs.isEmpty { throw ValidationError("name at least one log file or glob to follow") }
        if inputs.contains("-") { throw ValidationError("standard input (-) cannot be followed; name a file") }
        if let message = OptionLimits.check(sessionTimeout: audit.sessionTimeout, maxLine: audit.maxLine, maxSessions: maxSessions) {
            throw ValidationError(message)
        }
        if !["ndjson", "ocsf"].contains(findingsFormat) { throw ValidationError("--findings-format \(findingsFormat): give ndjson or ocsf") }
        if !(1...86_400).contains(commitInterval) { throw ValidationError("--commit-interval \(commitInterval): give 1 to 86400 seconds") }
        if checkpoint == "-" || findings == "-" {
            throw ValidationError("\(checkpoint == "-" ? "--checkpoint" : "--findings") -: name a file (findings go to standard output without --findings)")
        }
        if let checkpoint, let findings, checkpoint == findings {
            throw ValidationError("--checkpoint and --findings name one file; give two")
        }
    }

    /// An ArgumentParser error of follow's command line (or --help).
    struct Failure: Error {
        var error: Error
    }

    /// Parses and runs; ArgumentParser's errors come back as `Failure`.
    static func runFollow(_ given: [String]) throws {
        let arguments = try ConfigArguments.expandFollow(given)
        let command: FollowCommand
        do { command = try parse(arguments) } catch { throw Failure(error: error) }
        try command.run()
    }

    func run() throws {
        var configuration = audit.configuration
        configuration.maxSessions = maxSessions
        let run = FollowRun(
            inputs: inputs, configuration: configuration, checkpoint: checkpoint, findings: findings, ocsf: findingsFormat == "ocsf",
            fromStart: fromStart, listen: listen, commitInterval: commitInterval)
        let status = try run.run()
        if status != .clean { throw status }
    }
}
