/// Why the outputs cannot be used as given: a usage error (exit 2), found
/// before any input is read. Prints as one line.
public struct OutputPlanError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public var description: String { message }

    public init(_ message: String) { self.message = message }
}
