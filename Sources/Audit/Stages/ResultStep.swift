import Reading
import Rules

/// The last stage of both drivers: what each input's read gave and the
/// statistics of the rows → the `AuditResult` the reports are written
/// from. `Analyzer` runs it at the end of a pass, `MergeStage` once the
/// steps of a cluster add up.
struct ResultStep {
    /// Gathers statistics and examples from the rows in their final order
    /// (one of the `RowOrder`'s sinks).
    let collector: ResultCollector
    private var totals: ReadTotals
    private let warn: (String) -> Void

    init(inputs: Int, configuration: AuditConfiguration, warn: @escaping (String) -> Void) {
        collector = ResultCollector(bucket: configuration.bucket, clientIDs: configuration.clientIDs)
        totals = ReadTotals(inputs: inputs)
        self.warn = warn
    }

    /// An input that could not be read at all: `NAME: message`.
    mutating func unreadable(_ message: String) {
        totals.unreadable(message)
    }

    /// Input `index` read to its end; its messages go to `warn` when given
    /// (a second pass does not repeat them).
    mutating func add(_ index: Int, _ scan: FileScan, warn: ((String) -> Void)?) {
        totals.add(
            index, accounting: scan.accounting, summary: scan.summary, warnings: scan.warnings, error: scan.error, warn: warn)
    }

    /// The count of malformed lines not shown one by one, once.
    var moreMalformed: String? { totals.moreMalformed }

    /// The result, once every input and row is in.
    func result(
        configuration: AuditConfiguration, inputs: [InputFile], duplicates: Int, evictedSessions: Int,
        unpinnedProjectIDs: [String], unobservableFiles: [Int32], carriedFiles: [String] = []
    ) -> AuditResult {
        // A carried session's or waiting record's file comes after the inputs.
        let names = inputs.map(\.displayName) + carriedFiles
        var (accounting, files, inputErrors) = totals.finished(names: inputs.map(\.displayName))
        accounting.duplicateRecords = duplicates
        return AuditResult(
            configuration: configuration, inputs: inputs, accounting: accounting, files: files,
            inputErrors: inputErrors, findingExamples: collector.examples, statistics: collector.statistics,
            evictedSessions: evictedSessions, unpinnedProjectIDs: unpinnedProjectIDs.sorted(),
            unobservableFiles: unobservableFiles.sorted().map { names.indices.contains(Int($0)) ? names[Int($0)] : "?" })
    }
}
