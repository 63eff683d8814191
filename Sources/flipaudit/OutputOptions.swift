import ArgumentParser

/// Where an audit's results go and when it fails: shared by the command
/// and `flipaudit stage merge`.
struct OutputOptions: ParsableArguments {
    enum FailOn: String, ExpressibleByArgument, CaseIterable {
        case critical, high, medium, low, info, never
    }

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

    @Flag(name: [.short, .long], help: "Print no summary and no progress (errors still go to standard error).")
    var quiet = false

    @Flag(name: .customLong("no-progress"), help: "Do not show progress on standard error.")
    var noProgress = false

    @Flag(name: .customLong("no-color"), help: "Do not color the summary (also: NO_COLOR).")
    var noColor = false
}
