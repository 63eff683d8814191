/// Why the outputs cannot be used as given: a usage error (exit 2), found
/// before any input is read. Prints as one line.
struct OutputPlanError: Error, CustomStringConvertible, Sendable {
    var message: String
    var description: String { message }

    init(_ message: String) { self.message = message }
}
