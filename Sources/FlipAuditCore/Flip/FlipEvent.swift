/// What a flip-relevant record contributes to the audit: a request, a
/// return, or both (the 302 on the request's own record). A class: events
/// travel through queues and heaps, and a reference moves cheaper than
/// every String inside. Immutable once built, so shared freely.
@_spi(Fuzzing) public final class FlipEvent: Sendable {
    public let time: Int64
    public let source: SourceRef
    public let clientIP: String
    public let status: Int
    public let request: FlipRequest?
    public let returned: FlipReturn?
    /// The fingerprint of the record's line bytes: a record whose line
    /// equals one of another input, or one the previous run audited, is a
    /// duplicate (`DuplicateFilter`).
    public let lineKey: UInt64

    public init(
        time: Int64, source: SourceRef, clientIP: String, status: Int, request: FlipRequest?, returned: FlipReturn?,
        lineKey: UInt64
    ) {
        self.time = time
        self.source = source
        self.clientIP = clientIP
        self.status = status
        self.request = request
        self.returned = returned
        self.lineKey = lineKey
    }

    /// `event` at line `line` of its input: for `ScanAssembler`, when a
    /// piece was scanned before the lines ahead of it were counted.
    convenience init(_ event: FlipEvent, line: Int64) {
        self.init(
            time: event.time, source: SourceRef(file: event.source.file, line: line), clientIP: event.clientIP,
            status: event.status, request: event.request, returned: event.returned, lineKey: event.lineKey)
    }
}
