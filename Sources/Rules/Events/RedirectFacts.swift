/// What the audit needs to know of a request's `redirect_uri`, decided
/// where the URI is decoded: the same few URIs come back in nearly every
/// request, so one judgement serves them all (`RedirectValue`).
package final class RedirectFacts: Sendable {
    /// The decoded URI.
    let uri: String
    /// Flow, app and environment of the URI's normal form
    /// (docs/contract.md §3 "Exact match").
    let target: RedirectTarget
    /// Allowlisted as it is: exact string comparison.
    let allowlisted: Bool
    /// The URI as it may be shown: codes redacted.
    package let shown: String
    /// The project ID of an `/r/ID` accepted only because none is pinned.
    let unpinnedProjectID: String?
    /// For a URI that is not allowlisted: the trick, when it imitates one.
    let lookAlike: String?

    init(_ uri: String, allowlist: Allowlist) {
        self.uri = uri
        target = RedirectTarget.classify(Allowlist.normalized(uri))
        allowlisted = allowlist.contains(uri)
        shown = CodeDigest.redact(uri)
        unpinnedProjectID = allowlist.unpinnedProjectID(uri)
        lookAlike = allowlisted ? nil : allowlist.lookAlike(uri)
    }
}
