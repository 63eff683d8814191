/// Why a distributed stage stopped: input it cannot trust (a line that does
/// not decode, input out of order, a plan or facts that do not match), named
/// by file and line. The command exits with `status`: `usage` (2) for a
/// stage's own bad input; `inputIncomplete` (3) when the merge finds that
/// the steps' lines do not add up (a line missing, repeated or of another
/// job). An output it could not write is an `OutputError` (exit 4).
package struct StageError: Error, CustomStringConvertible {
    package var description: String
    package var status: ExitStatus = .usage

    package init(_ description: String, status: ExitStatus = .usage) {
        self.description = description
        self.status = status
    }

    /// `NAME:LINE: reason`.
    init(_ source: LineSource, _ reason: Any, status: ExitStatus = .usage) {
        description = "\(source.name):\(source.lineNumber): \(reason)"
        self.status = status
    }
}
