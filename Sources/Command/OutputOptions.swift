import ArgumentParser
import Foundation
import Rules
import Run

/// Where an audit's results go and when it fails: shared by the command
/// and `flipaudit stage merge`.
struct OutputOptions: ParsableArguments {
    enum FailOn: String, ExpressibleByArgument, CaseIterable {
        case critical, high, medium, low, info, never
    }

    enum ColorMode: String, ExpressibleByArgument, CaseIterable {
        case auto, always, never
    }

    @Option(
        help: ArgumentHelp("Write sessions.csv, findings.csv and error_distribution.csv into DIR (made when missing).", valueName: "DIR"),
        completion: .directory)
    var csv: String?

    @Option(
        help: ArgumentHelp("Write the summary report as JSON to FILE (its folder made when missing), or - for standard output.", valueName: "FILE|-"),
        completion: .file())
    var json: String?

    @Option(
        help: ArgumentHelp("Write the report as one self-contained HTML page to FILE (its folder made when missing).", valueName: "FILE"),
        completion: .file())
    var html: String?

    @Option(
        help: ArgumentHelp(
            "Write Prometheus metrics of this run to FILE (node_exporter's textfile collector; its folder made when missing).", valueName: "FILE"),
        completion: .file())
    var metrics: String?

    @Option(name: .customLong("fail-on"), help: "Exit 1 when a finding at or above this severity exists (never: always 0 for findings).")
    var failOn: FailOn = .never

    // `--no-quiet` undoes a config file's `quiet = true`: the file's
    // options come first, so the last of the two wins.
    @Flag(
        name: [.short, .customLong("quiet")], inversion: .prefixedNo, exclusivity: .chooseLast,
        help: "Print no summary and no progress (errors still go to standard error); --no-quiet undoes a config file's quiet.")
    var quiet = false

    @Flag(name: .customLong("no-progress"), help: "Do not show progress on standard error.")
    var noProgress = false

    @Option(
        help: ArgumentHelp(
            "Color the summary: auto (when standard output is a terminal and NO_COLOR is unset), always (also through a pipe, as into less -R), never."
        ))
    var color: ColorMode?

    @Flag(name: .customLong("no-color"), help: "Same as --color never (also: NO_COLOR); --color on the command line wins.")
    var noColor = false

    /// Whether the summary is colored: `--color`, else `--no-color`, else
    /// a terminal without NO_COLOR.
    var useColor: Bool {
        switch color ?? (noColor ? .never : .auto) {
        case .always: return true
        case .never: return false
        case .auto:
            return ProcessInfo.processInfo.environment["NO_COLOR"].map(\.isEmpty) ?? true && isatty(STDOUT_FILENO) == 1
        }
    }

    /// The options frozen for the run.
    var delivery: Delivery {
        Delivery(
            csv: csv, json: json, html: html, metrics: metrics, failOn: Severity(rawValue: failOn.rawValue), quiet: quiet,
            noProgress: noProgress, color: useColor)
    }
}
