/// Why the outputs cannot be used as given: a usage error (exit 2), found
/// before any input is read. Prints as one line.
package struct OutputPlanError: Error, CustomStringConvertible, Sendable {
    package var message: String
    package var description: String { message }

    package init(_ message: String) { self.message = message }
}
