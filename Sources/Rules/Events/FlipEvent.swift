import Parsing
import Reading

/// What a flip-relevant record contributes to the audit: a request, a
/// return, or both (the 302 on the request's own record). A class: events
/// travel through queues and heaps, and a reference moves cheaper than
/// every String inside. Immutable once built, so shared freely.
package final class FlipEvent: Sendable {
    package let time: Int64
    package let source: SourceRef
    package let clientIP: String
    package let status: Int
    package let request: FlipRequest?
    package let returned: FlipReturn?
    /// The fingerprint of the record's line bytes: a record whose line
    /// equals one of another input, or one the previous run audited, is a
    /// duplicate (`DuplicateFilter`).
    package let lineKey: UInt64

    package init(
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
    package convenience init(_ event: FlipEvent, line: Int64) {
        self.init(
            time: event.time, source: SourceRef(file: event.source.file, line: line), clientIP: event.clientIP,
            status: event.status, request: event.request, returned: event.returned, lineKey: event.lineKey)
    }
}
