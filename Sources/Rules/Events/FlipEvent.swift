/// What a flip-relevant record contributes to the audit: a request, a
/// return, or both (the 302 on the request's own record). A value: its
/// time and place, which order it, inline; everything else in one
/// immutable buffer (`EventStorage`) with the decoded texts, the event's
/// only allocation. Copying an event copies 32 bytes and one reference;
/// a text becomes a String only where it is kept (a session's state) or
/// shown (a finding).
package struct FlipEvent: @unchecked Sendable {  // its storage is never written once built
    package let time: Int64
    package let source: SourceRef
    let storage: EventStorage

    package var clientIP: String { storage.text(storage.header.clientIP) ?? "" }
    package var status: Int { storage.header.status }
    /// The fingerprint of the record's line bytes: a record whose line
    /// equals one of another input, or one the previous run audited, is a
    /// duplicate (`DuplicateFilter`).
    package var lineKey: UInt64 { storage.header.lineKey }
    /// What a proxy's and its backend's records of one request share
    /// (docs/contract.md §9, tiers); nil where duplicates are not looked
    /// for (one input and no checkpoint).
    package var twin: Twin? { storage.header.twin }
    package var request: FlipRequest? { storage.header.request == nil ? nil : FlipRequest(storage: storage) }
    package var returned: FlipReturn? { storage.header.returned == nil ? nil : FlipReturn(storage: storage) }
    /// The fingerprint of the state whose session the event belongs to
    /// (its request's, else its return's); nil when it carries none.
    package var stateKey: UInt64? { storage.header.hasState ? storage.header.stateKey : nil }
    /// Whether the record carries a return (cheaper than `returned`).
    package var hasReturn: Bool { storage.header.hasReturn }

    /// An event from its facts, with the texts their spans point into.
    init(
        time: Int64, source: SourceRef, clientIP: TextSpan, status: Int, request: EventStorage.RequestFacts?,
        requestShared: EventStorage.RequestShared, returned: EventStorage.ReturnFacts?, returnShared: EventStorage.ReturnShared,
        lineKey: UInt64, twin: Twin?, text: UnsafeRawBufferPointer
    ) {
        self.time = time
        self.source = source
        let hasState = request?.stateSpan.isFilled ?? returned?.stateSpan.isFilled ?? false
        let stateKey = hasState ? (request?.stateHash ?? returned?.stateHash ?? 0) : 0
        storage = .make(
            .init(
                clientIP: clientIP, status: status, lineKey: lineKey, twin: twin, stateKey: stateKey, hasState: hasState,
                hasReturn: returned != nil, request: request, returned: returned, requestShared: requestShared,
                returnShared: returnShared),
            text: text)
    }

    /// An event from its texts (read back from an event line, or a test's).
    package init(
        time: Int64, source: SourceRef, clientIP: String, status: Int, request: FlipRequest.Texts?, returned: FlipReturn.Texts?,
        lineKey: UInt64, twin: Twin? = nil
    ) {
        var text = EventText()
        let clientSpan = text.span(appending: clientIP)
        let requestFacts = request.map { $0.facts(appendingTo: &text) }
        let returnFacts = returned.map { $0.facts(appendingTo: &text) }
        let requestShared = EventStorage.RequestShared(clientID: request?.clientID, redirect: request?.redirect)
        let returnShared = EventStorage.ReturnShared(base: returned?.base ?? "", exactVariantOf: returned?.exactVariantOf)
        self = text.withUnsafeBytes {
            FlipEvent(
                time: time, source: source, clientIP: clientSpan, status: status, request: requestFacts,
                requestShared: requestShared, returned: returnFacts, returnShared: returnShared, lineKey: lineKey, twin: twin,
                text: $0)
        }
    }

    /// `event` at `source`: a waiting record's place in another run's files.
    package init(_ event: FlipEvent, source: SourceRef) {
        time = event.time
        self.source = source
        storage = event.storage
    }

    /// `event` at line `line` of its input: for `ScanAssembler`, when a
    /// piece was scanned before the lines ahead of it were counted.
    package init(_ event: FlipEvent, line: Int64) {
        time = event.time
        source = SourceRef(file: event.source.file, line: line)
        storage = event.storage
    }
}
