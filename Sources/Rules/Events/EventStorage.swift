import Reading

/// The one allocation of a `FlipEvent`: what its request and return
/// carry (`header`), and after it, tail-allocated, the decoded texts that
/// `TextSpan`s point into. Written once, when the event is built, and
/// never after: an event copied to another thread is read there only, so
/// the views that share one (`FlipEvent`, `FlipRequest`, `FlipReturn`) are
/// `@unchecked Sendable`. `ManagedBuffer` itself cannot be.
final class EventStorage: ManagedBuffer<EventStorage.Header, UInt8> {
    struct Header {
        /// The client field as kept (`FlipEventExtractor.keepsAddress`).
        var clientIP: TextSpan
        var status: Int
        var lineKey: UInt64
        /// What makes two tiers' records of one request twins (`Twin`).
        var twin: Twin?
        /// The state whose session the event belongs to (its request's,
        /// else its return's; 0 and `hasState` false without one), and
        /// whether it has a return: read on every event by the stages
        /// that order and pair, so kept apart from the facts.
        var stateKey: UInt64 = 0
        var hasState = false
        var hasReturn = false
        var request: RequestFacts?
        var returned: ReturnFacts?
        /// What the request and the return refer to outside the texts,
        /// kept apart from their facts: the facts are plain bytes, which
        /// the stages copy without a retain or a release.
        var requestShared = RequestShared()
        var returnShared = ReturnShared()
    }

    /// What a request carries beside its texts.
    struct RequestFacts {
        /// Whether the record was a JSON line (`unobservable` is judged per
        /// format: docs/contract.md §3).
        var json: Bool
        var stateSpan: TextSpan
        var stateHash: UInt64
        var clientMismatch: Bool
        var duplicateParams: FlipParamSet
        var badEncodingParams: FlipParamSet
    }

    /// A request's values shared with every request that repeats them.
    struct RequestShared {
        var clientID: String?
        var redirect: RedirectFacts?
    }

    /// What a return carries beside its texts.
    struct ReturnFacts {
        var toGoogleHost: Bool
        var allowlisted: Bool
        var stateSpan: TextSpan
        var stateHash: UInt64
        var codeKey: UInt64?
        var codeSpan: TextSpan
        var codeIsDigest: Bool
        var errorSpan: TextSpan
        var descriptionSpan: TextSpan
        var duplicateParams: FlipParamSet
        var badEncodingParams: FlipParamSet
    }

    /// A return's values shared with every return to its URL.
    struct ReturnShared {
        var base = ""
        var exactVariantOf: String?
    }

    /// A storage holding `header` and a copy of `text`.
    static func make(_ header: Header, text: UnsafeRawBufferPointer) -> EventStorage {
        let made = create(minimumCapacity: text.count) { _ in header }
        made.withUnsafeMutablePointerToElements { elements in
            if let base = text.baseAddress { elements.initialize(from: base.assumingMemoryBound(to: UInt8.self), count: text.count) }
        }
        // `create` hands back the class it was called on.
        return unsafeDowncast(made, to: EventStorage.self)
    }

    /// `body` over the text at `span` (empty when absent).
    @inline(__always)
    func bytes<R>(_ span: TextSpan, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        withUnsafeMutablePointerToElements { elements in
            span.isAbsent
                ? body(UnsafeRawBufferPointer(start: elements, count: 0))
                : body(UnsafeRawBufferPointer(start: elements + Int(span.start), count: Int(span.count)))
        }
    }

    /// The text at `span`, or nil when it is absent.
    func text(_ span: TextSpan) -> String? {
        span.isAbsent ? nil : bytes(span, Bytes.string)
    }
}
