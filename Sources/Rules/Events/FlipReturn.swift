/// A Location URL shaped like a return to Google: it carries `code` and/or
/// `error`, or goes to an allowlisted URI with neither. Whether it *is* a
/// return is decided by `SessionTracker` (docs/contract.md §3). A view of
/// its event's storage: its state, code, error and description lie in the
/// event's texts; its base and verdicts are shared by every return to
/// that URL.
package struct FlipReturn: @unchecked Sendable {  // its storage is never written once built
    let storage: EventStorage

    private var facts: EventStorage.ReturnFacts { storage.header.returned.unsafelyUnwrapped }

    /// `scheme://host/path` of the URL, as logged.
    package var base: String { storage.header.returnShared.base }
    /// Whether the URL's host is one of Google's two redirect hosts.
    var toGoogleHost: Bool { storage.header.returned.unsafelyUnwrapped.toGoogleHost }
    package var allowlisted: Bool { storage.header.returned.unsafelyUnwrapped.allowlisted }
    /// The allowlisted URI that `base` equals only after normalization
    /// (docs/contract.md §3 "Exact match"); nil when `base` is allowlisted
    /// as it is or not at all.
    var exactVariantOf: String? { storage.header.returnShared.exactVariantOf }
    var stateSpan: TextSpan { storage.header.returned.unsafelyUnwrapped.stateSpan }
    /// The state's `Fingerprint` (as `FlipRequest.stateHash`); meaningless
    /// when the state is absent.
    var stateHash: UInt64 { storage.header.returned.unsafelyUnwrapped.stateHash }
    /// The code's key (`CodeHash.key`), when there is a code.
    var codeKey: UInt64? { storage.header.returned.unsafelyUnwrapped.codeKey }
    var duplicateParams: FlipParamSet { storage.header.returned.unsafelyUnwrapped.duplicateParams }
    var badEncodingParams: FlipParamSet { storage.header.returned.unsafelyUnwrapped.badEncodingParams }

    var hasCode: Bool { codeKey != nil }
    var hasError: Bool { !storage.header.returned.unsafelyUnwrapped.errorSpan.isAbsent }
    var hasState: Bool { !stateSpan.isAbsent }
    package var state: String? { storage.text(stateSpan) }
    package var error: String? { storage.text(storage.header.returned.unsafelyUnwrapped.errorSpan) }
    package var errorDescription: String? { storage.text(storage.header.returned.unsafelyUnwrapped.descriptionSpan) }
    /// `body` over the state's bytes (empty when absent).
    func withState<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R { storage.bytes(stateSpan, body) }
    /// `body` over the error's bytes (empty when absent).
    func withError<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        storage.bytes(storage.header.returned.unsafelyUnwrapped.errorSpan, body)
    }

    /// The code, sealed: it shows only as its digest. The storage holds the
    /// code's bytes — or, read back from an event line, which holds none,
    /// its digest.
    package var codeDigest: CodeHash? {
        let f = facts
        guard let key = f.codeKey else { return nil }
        if f.codeIsDigest { return CodeHash(key: key, digest: storage.text(f.codeSpan) ?? "") }
        return storage.bytes(f.codeSpan) { CodeHash(key: key, code: Array($0)) }
    }

    /// A return by its texts, to build an event from (`FlipEvent`); its
    /// code known only by its key and digest.
    package struct Texts {
        var base: String
        var toGoogleHost: Bool
        var state: String?
        var codeDigest: CodeHash?
        var error: String?
        var errorDescription: String?
        var allowlisted: Bool
        var exactVariantOf: String?
        var duplicateParams: FlipParamSet
        var badEncodingParams: FlipParamSet
        var fingerprint: Fingerprint

        func facts(appendingTo text: inout EventText) -> EventStorage.ReturnFacts {
            .init(
                toGoogleHost: toGoogleHost, allowlisted: allowlisted, stateSpan: text.span(appending: state), stateHash: fingerprint.of(state ?? ""),
                codeKey: codeDigest?.key,
                codeSpan: text.span(appending: codeDigest?.description), codeIsDigest: true,
                errorSpan: text.span(appending: error), descriptionSpan: text.span(appending: errorDescription),
                duplicateParams: duplicateParams, badEncodingParams: badEncodingParams)
        }
    }

    /// A return's texts (read back from an event line, or a test's).
    static func texts(
        base: String, toGoogleHost: Bool, state: String?, codeDigest: CodeHash?, error: String?,
        errorDescription: String?, allowlisted: Bool, exactVariantOf: String? = nil, duplicateParams: FlipParamSet,
        badEncodingParams: FlipParamSet, fingerprint: Fingerprint = .process
    ) -> Texts {
        Texts(
            base: base, toGoogleHost: toGoogleHost, state: state, codeDigest: codeDigest, error: error,
            errorDescription: errorDescription, allowlisted: allowlisted, exactVariantOf: exactVariantOf,
            duplicateParams: duplicateParams, badEncodingParams: badEncodingParams, fingerprint: fingerprint)
    }
}
