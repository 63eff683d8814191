import Parsing
import Reading
import Rules

/// One session's story, or several, for a security review
/// (`flipaudit explain`, docs/contract.md §11).
package struct Explanation: Sendable {
    /// The target as given on the command line.
    package var given: String
    /// What it was taken for, once the inputs were known.
    package var target: ExplainTarget
    /// Every session tied to the target, in the order they were opened.
    package var sessions: [SessionStory]
    /// Records tied to the target that belong to no session (a return
    /// with an unknown state, say), with the findings raised on them.
    package var outside: [StoryEntry]
    /// The audit the stories come from (accounting, input errors, names).
    package var result: AuditResult
    /// The log line of each record shown, read again (`recordLines`).
    package var lines: [SourceRef: RecordLine] = [:]

    /// Whether anything matched (exit 0, else 1).
    package var found: Bool { !sessions.isEmpty || !outside.isEmpty }
}

extension Analyzer {
    /// Audits `arguments` exactly as `run` does, with `carried` taken in
    /// when given (and sessions open at the end carried, not closed), and
    /// tells the story of every session tied to `target`: a state, a code
    /// digest or `FILE:LINE` (`ExplainTarget.parse`). Nothing is written.
    package func explain(_ target: String, arguments: [String], carried: Checkpoint? = nil) throws(ConfigurationError) -> Explanation {
        let explainer = Explainer(target)
        let result = try run(
            arguments, rows: [], carry: carried != nil, carried: carried, skipping: OwnOutputs(), explainer: explainer)
        let (sessions, outside) = explainer.finish()
        var explanation = Explanation(given: target, target: explainer.target, sessions: sessions, outside: outside, result: result)
        explanation.lines = explanation.recordLines(configuration: result.configuration)
        return explanation
    }
}
