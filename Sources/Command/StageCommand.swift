import ArgumentParser
import Audit
import Reports
import Rules
import Run
import Writing

/// `flipaudit stage …`: the audit cut into the steps an engine (Spark,
/// Hadoop Streaming) schedules and shuffles — plan, read, sessions, codes,
/// merge — each a filter over lines of text (docs/distributed.md).
struct StageCommand: ParsableCommand {
    static let name = "stage"

    static let configuration = CommandConfiguration(
        commandName: "flipaudit stage",
        abstract: "The audit as map / shuffle / reduce steps for Spark or Hadoop Streaming (docs/distributed.md).",
        discussion: """
            plan writes the job plan; read (the map) turns the plan's file lines into \
            event and facts lines; sessions and codes (reduces) take their input \
            grouped by the first field and sorted as bytes (LC_ALL=C sort); merge \
            writes the reports and exits as one process would. A stage exits 2 on \
            input it cannot trust (malformed, unsorted, not of this plan), 4 when \
            it cannot write; merge exits 3, writing nothing, when the steps' lines \
            do not add up (a line missing, repeated or of another job).
            """,
        subcommands: [Plan.self, Read.self, Sessions.self, Codes.self, Merge.self])

    /// An ArgumentParser error of a stage's command line, reported with
    /// the stage's own help.
    struct Failure: Error {
        var error: Error
    }

    /// Parses and runs a stage.
    static func runStage(_ arguments: [String]) throws {
        var command: ParsableCommand
        // `stage plan` takes the audit options (see `RepeatedValues`).
        let (rest, repeated) =
            arguments.first == "plan"
            ? RepeatedValues.extract(arguments) : (arguments, RepeatedValues())
        do { command = try parseAsRoot(rest) } catch { throw Failure(error: error) }
        if var plan = command as? Plan {
            repeated.apply(to: &plan.audit)
            command = plan
        }
        do {
            try command.run()
        } catch let error as ExitStatus {
            throw error
        } catch let error as ExitCode {
            throw error
        } catch let error as StageError {
            throw error
        } catch let error as OutputError {
            throw error
        } catch {
            throw Failure(error: error)
        }
    }

    /// The plan at `path`, and the audit its options ask for.
    static func load(_ path: String) throws -> (JobPlan, AuditConfiguration) {
        let plan = try JobPlan.load(path)
        let options: AuditOptions
        let (rest, repeated) = RepeatedValues.extract(plan.options)
        do {
            var parsed = try AuditOptions.parse(rest)
            repeated.apply(to: &parsed)
            options = parsed
        } catch {
            throw StageError("\(path): the plan's options do not parse: \(AuditOptions.message(for: error))")
        }
        return (plan, options.configuration)
    }

    static func warn(_ message: String) {
        Diagnostics.audit.say(TerminalText.escape(message))
    }
}

extension StageCommand {
    struct Plan: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Resolve the inputs as one process does and write the job plan to standard output.",
            discussion: "The plan holds the job's fingerprint key: keep it private (umask 077).")

        @Argument(help: ArgumentHelp("Log files or directories (read recursively).", valueName: "file|dir"))
        var inputs: [String] = []

        @OptionGroup var audit: AuditOptions

        @Option(
            name: .customLong("uri"),
            help: ArgumentHelp(
                "A log file the engine reads (hdfs://, s3a://, gs://, file://...), named by its URI (repeatable).",
                valueName: "uri"))
        var uris: [String] = []

        func validate() throws {
            if inputs.isEmpty && uris.isEmpty { throw ValidationError("name at least one log file or directory") }
        }

        func run() throws {
            try PlanRun(inputs: inputs, uris: uris, configuration: audit.configuration, options: audit.arguments).run(warn: StageCommand.warn)
        }
    }

    struct Read: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The map: read the inputs named by the plan's file lines on standard input; write event and facts lines.")

        @Option(help: ArgumentHelp("The job plan.", valueName: "FILE"))
        var plan: String

        @Option(
            name: .customLong("stdin-name"),
            help: ArgumentHelp(
                "Read standard input as the plan's input of this name (a URI the engine fetched), not file lines.",
                valueName: "NAME"))
        var stdinName: String?

        func run() throws {
            let (plan, configuration) = try StageCommand.load(plan)
            if let stdinName {
                try ReadStage.runStandardInput(
                    named: stdinName, plan: plan, configuration: configuration, output: StageOutput(), warn: StageCommand.warn)
                return
            }
            try ReadStage.run(plan: plan, configuration: configuration, input: LineSource(), output: StageOutput(), warn: StageCommand.warn)
        }
    }

    struct Sessions: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A reduce: event lines, grouped by key and sorted as bytes → session, finding, tracker and code lines.")

        @Option(help: ArgumentHelp("The job plan.", valueName: "FILE"))
        var plan: String

        @Option(help: ArgumentHelp("Every input's facts line (the read stage's lines that start with facts).", valueName: "FILE"))
        var facts: String

        func run() throws {
            let (plan, configuration) = try StageCommand.load(plan)
            let facts = try SessionStage.facts(LineSource(path: facts), plan: plan)
            try SessionStage.run(plan: plan, configuration: configuration, facts: facts, input: LineSource(), output: StageOutput())
        }
    }

    struct Codes: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A reduce: code lines, grouped by key and sorted as bytes → code-reuse findings (reuse lines).")

        @Option(help: ArgumentHelp("The job plan.", valueName: "FILE"))
        var plan: String

        func run() throws {
            let (plan, configuration) = try StageCommand.load(plan)
            try CodeStage.run(plan: plan, configuration: configuration, input: LineSource(), output: StageOutput())
        }
    }

    struct Merge: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Merge facts, session, finding, tracker and reuse lines into the reports; exit as one process would.")

        @Option(help: ArgumentHelp("The job plan.", valueName: "FILE"))
        var plan: String

        @OptionGroup var output: OutputOptions

        @Argument(help: ArgumentHelp("Files of stage lines, in any order (- or none: standard input).", valueName: "file|-"))
        var files: [String] = []

        func run() throws {
            let (plan, configuration) = try StageCommand.load(self.plan)
            let run = MergeRun(planPath: self.plan, plan: plan, configuration: configuration, files: files, delivery: output.delivery)
            let status = try run.run(warn: StageCommand.warn)
            if status != .clean { throw status }
        }
    }
}
