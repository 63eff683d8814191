/// The one way flipaudit speaks on standard error: each message one line,
/// after the program's name and the driver it comes from (`flipaudit: `,
/// `flipaudit: follow: `, `flipaudit: explain: `, `flipaudit: stage: `).
/// Text from logs is escaped by whoever puts it in a message
/// (`TerminalText.escape`). Only the exit status is left to the
/// program's entry (`FlipAuditCommand.status(running:)`).
package struct Diagnostics: Sendable {
    /// What every line of this driver starts with.
    package let prefix: String

    package static let audit = Diagnostics(prefix: "flipaudit: ")
    package static let follow = Diagnostics(prefix: "flipaudit: follow: ")
    package static let explain = Diagnostics(prefix: "flipaudit: explain: ")
    package static let stage = Diagnostics(prefix: "flipaudit: stage: ")

    /// Says `text` (without the prefix) on standard error.
    package func say(_ text: String) { StandardStreams.writeError(prefix + text) }
}
