import ArgumentParser
import Rules
import Run

/// `flipaudit explain STATE [options] INPUTS`: one session's story for a
/// security review (docs/contract.md §11), from a trace of the audit's own
/// rules. It only reads: no output file, and with `--checkpoint` no lock
/// and no write. Exit status as grep's: 0 found, 1 nothing matched, 2
/// usage, 3 an input not read completely (4 standard output failed).
struct ExplainCommand: ParsableCommand {
    static let name = "explain"

    static let configuration = CommandConfiguration(
        commandName: "flipaudit explain",
        abstract:
            "Tell one session's story: every record tied to a state, code digest, FILE:LINE or client address, and each decision the audit took.",
        discussion: """
            STATE is a state value, a code digest (sha256: and 12 hex digits, as findings \
            show codes), FILE:LINE of a finding's source (FILE as the reports name it) or \
            ip:ADDR (every session a record from that client address took part in), \
            in any form an output prints it: the CSV's '-guarded form, the \\x1b escapes \
            of the summary, a digest in either case, a state that begins with -. \
            The inputs are audited with the same rules and options as flipaudit itself; \
            give the same inputs and options as the run whose finding you explain. With \
            --checkpoint, the sessions it carries are taken in (give the checkpoint as it \
            was before that run); it is never locked or written.

            Exit status: 0 something matched; 1 nothing matched; 2 usage error; 3 some \
            input could not be read completely; 4 standard output could not be written; \
            5 blind: an input was mostly not understood, or none was.
            """)

    @Argument(
        help: ArgumentHelp("A state, a code digest (sha256:…), FILE:LINE or ip:ADDR.", valueName: "state|sha256:…|FILE:LINE|ip:ADDR"))
    var target: String

    @Argument(help: ArgumentHelp("Log files, directories (read recursively) or - for standard input.", valueName: "file|dir|-"))
    var inputs: [String] = []

    @OptionGroup var audit: AuditOptions

    @Option(
        help: ArgumentHelp(
            "Take in the sessions this checkpoint carries (read only: no lock, no write); FILE.prev when FILE's last run audited the inputs.",
            valueName: "FILE"))
    var checkpoint: String?

    @Option(help: ArgumentHelp("The nightly job's TOML file: its audit options, checkpoint and inputs (its outputs are left out).", valueName: "FILE"))
    var config: String?

    @Option(
        name: .customLong("max-sessions"),
        help: ArgumentHelp("Most sessions held open at once, as for the audit.", valueName: "N"))
    var maxSessions: Int = AuditConfiguration.defaultMaxSessions

    @Flag(help: "Print the story as JSON.")
    var json = false

    // The common output options, so a job's command line works as it is:
    // the story is printed without color either way.
    @Option(help: "Accepted as for the audit: the story is plain text (auto, always, never).")
    var color: OutputOptions.ColorMode?

    @Flag(name: .customLong("no-color"), help: "Accepted as for the audit: the story is plain text.")
    var noColor = false

    mutating func validate() throws {
        if inputs.isEmpty { throw ValidationError("name at least one log file, directory, or - for standard input") }
        if let message = OptionLimits.check(sessionTimeout: 1, maxLine: audit.maxLine, maxSessions: maxSessions) {
            throw ValidationError(message)
        }
        if inputs.filter({ $0 == "-" }).count > 1 { throw ValidationError("standard input (-) can be read only once") }
    }

    /// An ArgumentParser error of explain's command line (or --help).
    struct Failure: Error {
        var error: Error
    }

    /// Parses and runs; ArgumentParser's errors come back as `Failure`.
    static func runExplain(_ given: [String]) throws {
        let arguments = try ConfigArguments.expandExplain(given)
        var command: ExplainCommand
        do { command = try parse(arguments) } catch {
            // A state may begin with `-` (one in 64 base64url states does):
            // first on the line and no option of explain's, it is the target.
            guard let first = arguments.first, first.hasPrefix("-"), first != "-", first != "--",
                var retried = try? parse([targetStandIn] + arguments.dropFirst())
            else { throw Failure(error: error) }
            retried.target = first
            command = retried
        }
        try command.run()
    }

    /// Parsed in the place of a target that begins with `-`.
    private static let targetStandIn = "flipaudit-explain-target"

    func run() throws {
        var configuration = audit.configuration
        configuration.maxSessions = maxSessions
        let run = ExplainRun(target: target, inputs: inputs, configuration: configuration, checkpoint: checkpoint, json: json)
        let status = try run.run()
        if status != .clean { throw status }
    }
}
