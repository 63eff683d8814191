/// An in-scope App Flip request, as kept: a view of its event's storage.
/// The state lies in the event's texts and becomes a String only where a
/// session keeps it; the client ID and the redirect verdicts are shared by
/// every request that repeats them.
package struct FlipRequest: @unchecked Sendable {  // its storage is never written once built
    let storage: EventStorage

    /// The state's `Fingerprint` (of the empty text when absent), worked
    /// out where the record is scanned, while its bytes are in that
    /// thread's cache.
    var stateHash: UInt64 { storage.header.request.unsafelyUnwrapped.stateHash }
    var stateSpan: TextSpan { storage.header.request.unsafelyUnwrapped.stateSpan }
    package var clientID: String? { storage.header.requestShared.clientID }
    /// `client_id` present and not one of the configured Google client IDs
    /// (never when none is configured).
    var clientMismatch: Bool { storage.header.request.unsafelyUnwrapped.clientMismatch }
    /// Whether the request's record was a JSON line.
    var json: Bool { storage.header.request.unsafelyUnwrapped.json }
    /// The decoded `redirect_uri` and the verdicts on it.
    package var redirect: RedirectFacts? { storage.header.requestShared.redirect }
    package var redirectURI: String? { redirect?.uri }
    /// Flip parameters that occur more than once (those of `duplicate-param`).
    var duplicateParams: FlipParamSet { storage.header.request.unsafelyUnwrapped.duplicateParams }
    /// Flip parameters whose percent-encoding is malformed.
    var badEncodingParams: FlipParamSet { storage.header.request.unsafelyUnwrapped.badEncodingParams }

    /// The state, made into a String (nil when absent).
    package var state: String? { storage.text(stateSpan) }
    var hasState: Bool { !stateSpan.isAbsent }
    /// Whether the state is present and not empty.
    var hasFilledState: Bool { stateSpan.isFilled }
    /// `body` over the state's bytes (empty when absent).
    func withState<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R { storage.bytes(stateSpan, body) }

    /// A request by its texts, to build an event from (`FlipEvent`).
    package struct Texts {
        var json: Bool
        var state: String?
        var clientID: String?
        var clientMismatch: Bool
        var redirect: RedirectFacts?
        var duplicateParams: FlipParamSet
        var badEncodingParams: FlipParamSet
        var fingerprint: Fingerprint

        func facts(appendingTo text: inout EventText) -> EventStorage.RequestFacts {
            .init(
                json: json, stateSpan: text.span(appending: state), stateHash: fingerprint.of(state ?? ""),
                clientMismatch: clientMismatch, duplicateParams: duplicateParams,
                badEncodingParams: badEncodingParams)
        }
    }

    /// A request's texts (read back from an event line, or a test's).
    package static func texts(
        json: Bool = false, state: String?, clientID: String?, clientMismatch: Bool, redirect: RedirectFacts?,
        duplicateParams: FlipParamSet, badEncodingParams: FlipParamSet, fingerprint: Fingerprint = .process
    ) -> Texts {
        Texts(
            json: json, state: state, clientID: clientID, clientMismatch: clientMismatch, redirect: redirect, duplicateParams: duplicateParams,
            badEncodingParams: badEncodingParams, fingerprint: fingerprint)
    }
}
