import Parsing
import Reading

/// A Location URL shaped like a return to Google: it carries `code` and/or
/// `error`, or goes to an allowlisted URI with neither. Whether it *is* a
/// return is decided by `SessionTracker` (docs/contract.md §3).
package final class FlipReturn: Sendable {
    /// `scheme://host/path` of the URL, as logged.
    package let base: String
    /// Whether the URL's host is one of Google's two redirect hosts.
    let toGoogleHost: Bool
    package let state: String?
    /// The state with its hash (as `FlipRequest.stateKey`).
    let stateKey: StateKey?
    /// The code, sealed: it shows only as its digest (`CodeHash`).
    package let codeDigest: CodeHash?
    package let error: String?
    package let errorDescription: String?
    package let allowlisted: Bool
    /// The allowlisted URI that `base` equals only after normalization
    /// (docs/contract.md §3 "Exact match"); nil when `base` is allowlisted
    /// as it is or not at all.
    let exactVariantOf: String?
    let duplicateParams: [FlipParam]
    let badEncodingParams: [FlipParam]

    var hasCode: Bool { codeDigest != nil }
    var hasError: Bool { error != nil }

    /// `stateKey`, when given, is `state`'s (the request's on the same record).
    init(
        base: String, toGoogleHost: Bool, state: String?, stateKey: StateKey?, codeDigest: CodeHash?, error: String?,
        errorDescription: String?, allowlisted: Bool, exactVariantOf: String? = nil, duplicateParams: [FlipParam], badEncodingParams: [FlipParam],
        fingerprint: Fingerprint = .process
    ) {
        self.base = base
        self.toGoogleHost = toGoogleHost
        self.state = state
        self.stateKey = stateKey ?? state.map { StateKey($0, fingerprint: fingerprint) }
        self.codeDigest = codeDigest
        self.error = error
        self.errorDescription = errorDescription
        self.allowlisted = allowlisted
        self.exactVariantOf = exactVariantOf
        self.duplicateParams = duplicateParams
        self.badEncodingParams = badEncodingParams
    }
}
