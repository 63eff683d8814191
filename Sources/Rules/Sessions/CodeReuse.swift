import Parsing

/// Where `code-reuse` is decided, for one process (`SessionTracker`) and
/// the distributed code stage alike: a code returned to a session while
/// the reuse window remembers it returned to another one first is reused;
/// each session is judged once per code (its own second return of the
/// code is no reuse).
package enum CodeReuse {
    /// What one return of a code to a session is.
    package enum Verdict: Equatable {
        /// The code was new, or still being returned to its first
        /// sessions: this session is one of its receivers now.
        case received
        /// Returned to another session first, at `first`: a finding.
        case reused(first: Int64)
        /// This session has the code already: nothing to say.
        case repeated
    }

    /// Judges a return of the code `key` at `time` to a session that has
    /// (`alreadyReceived`) or has not had it; `memory` remembers the code
    /// from its first return on, whatever the verdict.
    package static func judge(_ key: UInt64, at time: Int64, alreadyReceived: Bool, memory: inout ReuseMemory) -> Verdict {
        let first = memory.time(of: key, orRememberAt: time)
        if alreadyReceived { return .repeated }
        return first.map { .reused(first: $0) } ?? .received
    }

    /// The detail of a `code-reuse` finding: the code's digest and when it
    /// was first returned.
    package static func detail(_ digest: String, first: Int64) -> String {
        "code \(digest) was already returned to another session at \(Timestamp.iso8601(first))"
    }
}
