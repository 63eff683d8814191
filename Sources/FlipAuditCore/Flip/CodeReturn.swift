/// A code returned to a session, as the distributed session stage hands it
/// on: `code-reuse` compares codes across every session of the night, so
/// it is decided by the code stage, which sees each code's returns
/// together. The code itself is never here: only its keyed fingerprint and
/// its `sha256:` digest.
@_spi(Fuzzing) public struct CodeReturn: Sendable, Equatable {
    /// The code's fingerprint under the job's key (`Fingerprint.keyed`).
    public var key: UInt64
    /// `sha256:` and the first 12 hex digits of the code's SHA-256.
    public var digest: String
    /// The return's record.
    public var time: Int64
    public var source: SourceRef
    /// The session it was returned to, by its first record (unique per
    /// session), and what a finding on that session shows.
    public var session: SourceRef
    public var state: String
    public var clientID: String
    public var redirectURI: String
}
