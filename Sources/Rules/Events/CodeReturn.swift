/// A code returned to a session, as the distributed session stage hands it
/// on: `code-reuse` compares codes across every session of the night, so
/// it is decided by the code stage, which sees each code's returns
/// together. The code itself is never here: only its keyed fingerprint and
/// its `sha256:` digest.
package struct CodeReturn: Sendable, Equatable {
    /// The code's fingerprint under the job's key (`Fingerprint.keyed`).
    package var key: UInt64
    /// `sha256:` and the first 12 hex digits of the code's SHA-256.
    package var digest: String
    /// The return's record.
    package var time: Int64
    package var source: SourceRef
    /// The session it was returned to, by its first record (unique per
    /// session), and what a finding on that session shows.
    package var session: SourceRef
    package var state: String
    package var clientID: String
    package var redirectURI: String

    package init(key: UInt64, digest: String, time: Int64, source: SourceRef, session: SourceRef, state: String, clientID: String, redirectURI: String) {
        self.key = key
        self.digest = digest
        self.time = time
        self.source = source
        self.session = session
        self.state = state
        self.clientID = clientID
        self.redirectURI = redirectURI
    }
}
