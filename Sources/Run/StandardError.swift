import Writing

/// Writes one-line messages to standard error.
struct StandardError: Sendable {
    func write(_ line: String) {
        StandardStreams.writeError(line)
    }
}
