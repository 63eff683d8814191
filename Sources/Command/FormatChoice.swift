import ArgumentParser
import Parsing

/// `--format`: `auto`, or the name of a format in `FormatTable`.
struct FormatChoice: ExpressibleByArgument, Equatable {
    /// The fixed format; nil for `auto`.
    let format: RecordFormat?

    static let auto = FormatChoice(format: nil)

    private init(format: RecordFormat?) { self.format = format }

    init?(argument: String) {
        if argument == "auto" {
            format = nil
        } else if let row = FormatTable.row(named: argument) {
            format = row.format
        } else {
            return nil
        }
    }

    static var allValueStrings: [String] { ["auto"] + FormatTable.rows.map(\.name) }
    static var defaultCompletionKind: CompletionKind { .list(allValueStrings) }
    /// What `--format` is given to choose it.
    var name: String { format?.name ?? "auto" }
    var defaultValueDescription: String { name }
}
