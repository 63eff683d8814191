/// What a flip-relevant record contributes to the audit: a request, a
/// return, or both (the 302 on the request's own record). A class: events
/// travel through queues and heaps, and a reference moves cheaper than
/// every String inside.
///
/// `@unchecked Sendable` for its one `var`: a chunk scanned ahead of its
/// turn numbers its lines from the chunk's start, and `ScanAssembler` adds
/// the lines before it — once, on the thread that then shares the event.
public final class FlipEvent: @unchecked Sendable {
    public let time: Int64
    public internal(set) var source: SourceRef
    public let clientIP: String
    public let status: Int
    public let request: FlipRequest?
    public let returned: FlipReturn?

    public init(time: Int64, source: SourceRef, clientIP: String, status: Int, request: FlipRequest?, returned: FlipReturn?) {
        self.time = time
        self.source = source
        self.clientIP = clientIP
        self.status = status
        self.request = request
        self.returned = returned
    }
}
