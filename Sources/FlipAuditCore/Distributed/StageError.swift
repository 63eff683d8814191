/// Why a distributed stage stopped: input it cannot trust (a line that does
/// not decode, input out of order, a plan or facts that do not match), named
/// by file and line. The command exits 2; an output it could not write is
/// an `OutputError` (exit 4).
public struct StageError: Error, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }

    /// `NAME:LINE: reason`.
    init(_ source: LineSource, _ reason: Any) {
        description = "\(source.name):\(source.lineNumber): \(reason)"
    }
}
