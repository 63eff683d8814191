import Parsing

/// An in-scope App Flip request, as kept: decoded parameter values. A
/// class, like `FlipEvent`: handed around by reference, not copied String
/// by String.
package final class FlipRequest: Sendable {
    package let state: String?
    package let clientID: String?
    /// `client_id` present and not one of the configured Google client IDs
    /// (never when none is configured).
    let clientMismatch: Bool
    /// The decoded `redirect_uri` and the verdicts on it.
    package let redirect: RedirectFacts?
    package var redirectURI: String? { redirect?.uri }
    /// Flip parameters that occur more than once (those of `duplicate-param`).
    let duplicateParams: [FlipParam]
    /// Flip parameters whose percent-encoding is malformed.
    let badEncodingParams: [FlipParam]

    /// The state (empty when absent) with its hash, worked out where the
    /// record is scanned, while its bytes are in that thread's cache.
    let stateKey: StateKey

    package init(
        state: String?, clientID: String?, clientMismatch: Bool, redirect: RedirectFacts?,
        duplicateParams: [FlipParam], badEncodingParams: [FlipParam], fingerprint: Fingerprint = .process
    ) {
        self.state = state
        stateKey = StateKey(state ?? "", fingerprint: fingerprint)
        self.clientID = clientID
        self.clientMismatch = clientMismatch
        self.redirect = redirect
        self.duplicateParams = duplicateParams
        self.badEncodingParams = badEncodingParams
    }
}
