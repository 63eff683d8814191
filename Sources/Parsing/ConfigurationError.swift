/// A command-line setting that cannot work. Prints as one sentence.
package enum ConfigurationError: Error, CustomStringConvertible, Equatable, Sendable {
    case logFormat(String)
    /// The checkpoint cannot be used with this input.
    case checkpoint(String)

    package var description: String {
        switch self {
        case .logFormat(let why): return "--log-format: \(why)"
        case .checkpoint(let why): return "--checkpoint: \(why)"
        }
    }
}
