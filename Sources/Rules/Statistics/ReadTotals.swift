/// What the inputs add up to as each one ends — the input accounting, each
/// file's summary, the read errors — and the messages one process prints
/// about them: every read error, the first `malformedMessageLimit`
/// malformed lines, then how many more were only counted. The audit and the
/// distributed merge both add up through it, so their reports agree.
package struct ReadTotals {
    private var accounting = InputAccounting()
    private var files: [FileSummary?]
    /// Per input, its first malformed lines (`FILE:LINE: reason`).
    private var examples: [[String]]
    /// Per input, its first late records.
    private var lateExamples: [[String]]
    private var inputErrors: [String] = []
    private var malformedWarnings = 0

    package init(inputs: Int) {
        files = Array(repeating: nil, count: inputs)
        examples = Array(repeating: [], count: inputs)
        lateExamples = Array(repeating: [], count: inputs)
    }

    /// An argument that named no readable input (`NAME: message`).
    package mutating func unreadable(_ message: String) {
        inputErrors.append(message)
        accounting.filesWithErrors += 1
    }

    /// Adds input `index`, read to its end; its messages go to `warn` (nil:
    /// already printed, by an earlier pass).
    package mutating func add(
        _ index: Int, accounting counts: InputAccounting, summary: FileSummary, warnings: [String], error: String?,
        warn: ((String) -> Void)?
    ) {
        var counts = counts
        examples[index] = counts.malformedExamples
        counts.malformedExamples = []
        lateExamples[index] = counts.lateExamples
        counts.lateExamples = []
        accounting.add(counts)
        files[index] = summary
        guard let warn else { return }
        for message in warnings {
            // The read error and the wrong-format hint are always printed.
            let hint = summary.hint.map { message.hasSuffix(": " + $0) } ?? false
            if message != error && !hint {
                malformedWarnings += 1
                if malformedWarnings > AuditConfiguration.malformedMessageLimit { continue }
            }
            warn(message)
        }
    }

    /// The line that counts the malformed lines not printed, if any were not.
    package var moreMalformed: String? {
        let printed = min(malformedWarnings, AuditConfiguration.malformedMessageLimit)
        let listed = accounting.malformedLines + accounting.lateRecords
        guard listed > printed else { return nil }
        return "… \(listed - printed) more malformed or late lines (counted in the report)"
    }

    /// The totals once every input has ended: malformed examples in (file,
    /// line) order whichever input ended first; the unresolved arguments,
    /// then the read errors by input.
    package func finished(names: [String]) -> (accounting: InputAccounting, files: [FileSummary], inputErrors: [String]) {
        var accounting = accounting
        accounting.malformedExamples = Array(examples.joined().prefix(InputAccounting.exampleLimit))
        accounting.lateExamples = Array(lateExamples.joined().prefix(InputAccounting.exampleLimit))
        let files = files.map { $0! }
        let errors = inputErrors + files.indices.compactMap { i in files[i].error.map { "\(names[i]): \($0)" } }
        return (accounting, files, errors)
    }
}

/// Flip records of one input that come more than the reorder window behind
/// the newest before them (counted, and put in order by the sorting pass).
package struct OutOfOrderCount {
    private var newest = Int64.min
    package var count = 0

    package mutating func see(_ time: Int64) {
        if newest != .min && time < newest - AuditConfiguration.reorderWindow { count += 1 }
        if time > newest { newest = time }
    }

    package init() {}
}
