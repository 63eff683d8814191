import Writing

/// Writes one-line messages to standard error.
package struct StandardError: Sendable {
    package init() {}

    package func write(_ line: String) {
        StandardStreams.writeError(line)
    }
}
