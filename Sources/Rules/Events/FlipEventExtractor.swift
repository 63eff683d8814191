import Parsing
import Reading

/// Turns a parsed record into a `FlipEvent` when it matters to the audit.
/// Most records are decided on bytes alone: no `?` in the target and no
/// Location value means "not App Flip" after a `memchr` or two. Strings are
/// made only for what is kept.
package struct FlipEventExtractor {
    /// What a record was, for the input accounting.
    package enum Classification {
        case unrelated
        /// A flip-shaped request of another OAuth client (docs/contract.md §3).
        case otherOAuth
        /// An in-scope App Flip request.
        case inScope
        /// Not a request, but its Location is shaped like a return.
        case returnOnly
    }

    /// The configured client IDs' bytes: an ID matches byte for byte.
    private let clientIDs: Set<[UInt8]>
    private let endpoints: [[UInt8]]
    private let allowlist: Allowlist
    /// Whether any allowlisted URI is off Google's hosts (`--allow-redirect`).
    private let hasCustomAllowlist: Bool
    private let fingerprint: Fingerprint
    /// Whether a flip record's line is fingerprinted (duplicates can
    /// exist: several inputs, or a checkpoint); 0 stands for every line
    /// otherwise.
    private let keysLines: Bool
    private let twinsPerPiece: Int
    /// Twins this piece may still compute.
    private var twinsLeft: Int
    private var requestQuery = FlipQuery()
    private var locationQuery = FlipQuery()
    /// The texts of the event being built; copied out, at its size, into
    /// the event.
    private var text = EventText()
    /// Recent raw `redirect_uri` values, decoded and judged.
    private var redirectURIs = RecentValues<RedirectValue>()
    /// Recent raw `client_id` values: decoded text, malformed, configured.
    private var clientIDValues = RecentValues<(text: String, malformed: Bool, configured: Bool)>()
    /// Recent return URL bases (`scheme://host/path`): the text, whether it
    /// is allowlisted, the allowlisted URI it equals only after
    /// normalization, whether its host is one of Google's (in any case).
    private var returnBases = RecentValues<(text: String, allowlisted: Bool, variantOf: String?, toGoogleHost: Bool)>()

    package init(configuration: AuditConfiguration) {
        clientIDs = Set(configuration.clientIDs.map { Array($0.utf8) })
        endpoints = configuration.endpoints.map { Array($0.utf8) }
        allowlist = configuration.allowlist
        hasCustomAllowlist = !configuration.allowRedirects.isEmpty
        fingerprint = configuration.fingerprint
        keysLines = configuration.keysLines
        twinsPerPiece = configuration.twinsPerPiece ?? .max
        twinsLeft = twinsPerPiece
    }

    /// What `sift` found of a record's target: where its `?` is, and
    /// whether its query may name two flip parameters (`mayNameTwo`).
    package struct Sifted {
        let question: Int?
        let named: Bool
    }

    /// The first test of `extract`, on two fields of a record: nil when
    /// the record is unrelated (no endpoint configured, a query that
    /// cannot name two flip parameters, no Location value), as most are.
    /// Inlined where the line is read, before the record is handed over
    /// (a copy) to the call and the large frame of `extract`.
    @inline(__always)
    package func sift(target: UnsafeRawBufferPointer, location: LogRecord.Location) -> Sifted? {
        let q = Bytes.find(.question, in: target)
        let named = q.map { Self.mayNameTwo(Bytes.slice(target, $0 &+ 1, target.count)) } ?? false
        if endpoints.isEmpty, !named {
            guard case .value = location else { return nil }
        }
        return Sifted(question: q, named: named)
    }

    /// Classifies `record` and builds its event when it is a flip request or
    /// carries a return-shaped Location. `json`: the record was a JSON line.
    @inline(__always)
    package mutating func extract(_ record: LogRecord, source: SourceRef, line: UnsafeRawBufferPointer, json: Bool = false)
        -> (Classification, FlipEvent?)
    {
        guard let sifted = sift(target: record.target, location: record.location) else { return (.unrelated, nil) }
        return extract(record, sifted: sifted, source: source, line: line, json: json)
    }

    /// `extract` of a record that `sift` let through.
    @inline(never)
    package mutating func extract(
        _ record: LogRecord, sifted: Sifted, source: SourceRef, line: UnsafeRawBufferPointer, json: Bool
    ) -> (Classification, FlipEvent?) {
        let q = sifted.question
        let named = sifted.named
        let target = record.target
        let path = Bytes.slice(target, 0, q ?? target.count)
        let isEndpoint = !endpoints.isEmpty && endpoints.contains { e in e.withUnsafeBytes { Bytes.equal($0, path) } }
        var isFlipRequest = isEndpoint
        if let q, isEndpoint || named {
            var query = Bytes.slice(target, q + 1, target.count)
            if let hash = Bytes.find(.hash, in: query) { query = Bytes.slice(query, 0, hash) }
            requestQuery.scan(query)
            isFlipRequest = isFlipRequest || requestQuery.requestParamCount >= 2
        } else {
            requestQuery.reset()
        }
        var locationURL: UnsafeRawBufferPointer?
        // A return is an absolute URL (docs/contract.md §3): a relative
        // Location (a login redirect, logged as is in JSON) never is.
        if case .value(let url) = record.location, URLParts.isAbsoluteURL(url) { locationURL = url }
        guard isFlipRequest || locationURL != nil else { return (.unrelated, nil) }

        var classification = Classification.unrelated
        var request: EventStorage.RequestFacts?
        var requestShared = EventStorage.RequestShared()
        text.removeAll()
        if isFlipRequest {
            var duplicates = FlipParamSet()
            var bad = FlipParamSet()
            let query = requestQuery
            let redirect = query[.redirectURI].map { raw in
                redirectURIs.value(for: raw) {
                    let (text, malformed) = PercentDecoding.decode(raw)
                    return RedirectValue(text: text, malformed: malformed, google: Self.looksGoogle(text))
                }
            }
            let client = query[.clientID].map { raw in
                clientIDValues.value(for: raw) {
                    let (text, malformed) = PercentDecoding.decode(raw)
                    return (text, malformed, clientIDs.contains(Array(text.utf8)))
                }
            }
            if isEndpoint || (client?.configured ?? false) || (redirect?.google ?? false) {
                func note(_ p: FlipParam, malformed: Bool) {
                    if query.counts[p.rawValue] > 1 && p.duplicateMatters { duplicates.insert(p) }
                    if malformed { bad.insert(p) }
                }
                if let client { note(.clientID, malformed: client.malformed) }
                let stateSpan = decoded(.state, of: query, duplicates: &duplicates, bad: &bad)
                if let redirect { note(.redirectURI, malformed: redirect.malformed) }
                if let raw = query[.scope] { note(.scope, malformed: PercentDecoding.isMalformed(raw)) }
                // A request target can carry the return's parameters too
                // (code injection, parameter pollution): checked alike, on
                // bytes, so a code never becomes text here.
                for p in [FlipParam.code, .error, .errorDescription] {
                    if let raw = query[p] { note(p, malformed: PercentDecoding.isMalformed(raw)) }
                }
                classification = .inScope
                request = EventStorage.RequestFacts(
                    json: json, stateSpan: stateSpan, stateHash: text.bytes(stateSpan) { fingerprint.of($0) },
                    clientMismatch: !clientIDs.isEmpty && client != nil && !client!.configured, duplicateParams: duplicates,
                    badEncodingParams: bad)
                requestShared = EventStorage.RequestShared(clientID: client?.text, redirect: redirect?.facts(allowlist: allowlist))
            } else {
                classification = .otherOAuth
            }
        }

        var returned: EventStorage.ReturnFacts?
        var returnShared = EventStorage.ReturnShared()
        if let url = locationURL {
            returned = returnShape(url, request: request, shared: &returnShared)
            if returned != nil && classification == .unrelated { classification = .returnOnly }
        }
        guard request != nil || returned != nil else { return (classification, nil) }
        // A client field of `-` (an X-Forwarded-For the request did not
        // carry) is empty, never the text `-` (docs/contract.md §2).
        let dash = record.clientIP.count == 1 && record.clientIP[0] == UInt8(ascii: "-")
        let clientIP =
            dash
            ? text.span(appending: "") : Self.keepsAddress(record.clientIP) ? text.span(appending: record.clientIP) : text.span(appending: "?")
        let lineKey = keysLines ? fingerprint.of(line) : 0
        // Twins (a proxy's and its backend's records) exist only where
        // duplicates can: several inputs, or a checkpoint.
        var twin: Twin?
        if keysLines && twinsLeft > 0 {
            twin = Twin(record)
            if twinsPerPiece != .max && (request?.stateSpan.isFilled ?? returned?.stateSpan.isFilled ?? false) { twinsLeft -= 1 }
        }
        let event = text.withUnsafeBytes { text in
            FlipEvent(
                time: record.time, source: source, clientIP: clientIP, status: record.status, request: request,
                requestShared: requestShared, returned: returned, returnShared: returnShared, lineKey: lineKey, twin: twin,
                text: text)
        }
        return (classification, event)
    }

    /// A new piece begins: its first flip records get twins again.
    package mutating func newPiece() { twinsLeft = twinsPerPiece }

    /// Whether `query` can name two of `client_id`, `state` and
    /// `redirect_uri` (a flip request, docs/contract.md §3). Two different
    /// names include `client_id` or `redirect_uri`, whose `_` shows as it
    /// is or inside a percent escape: a query with neither `_` nor `%`
    /// (most queries of other traffic) names at most `state`, and is not
    /// split. One pass, sixteen bytes at a time (`Bytes.containsAny`).
    @inline(__always)
    static func mayNameTwo(_ query: UnsafeRawBufferPointer) -> Bool {
        Bytes.containsAny(.underscore, .percent, .underscore, .percent, in: query)
    }

    /// The decoded value of `p` in `query`, appended to the event's text
    /// (`PercentDecoding.exact` for a state, which keeps every byte); notes
    /// a repeat that matters in `duplicates`, a malformed encoding in `bad`.
    private mutating func decoded(_ p: FlipParam, of query: FlipQuery, duplicates: inout FlipParamSet, bad: inout FlipParamSet)
        -> TextSpan
    {
        guard let raw = query[p] else { return .absent }
        if query.counts[p.rawValue] > 1 && p.duplicateMatters { duplicates.insert(p) }
        let (span, malformed) = text.span(decoding: raw, exact: p == .state)
        if malformed { bad.insert(p) }
        // An error value is cut wherever it is kept or printed (a made-up
        // value of megabytes would grow the checkpoint's trends and the
        // metrics' labels run after run).
        return p == .error ? text.cut(span, to: Self.errorLimit) : span
    }

    /// The bytes of an `error` value kept (docs/contract.md §5).
    static let errorLimit = 200

    /// Whether the client field is kept: an address or host name
    /// (letters, digits, `.:-_[]%`, at most 255 bytes). Anything else — a
    /// misaligned line can put a quoted URL, code and all, where the
    /// address should be — is kept as `?`, never copied into the outputs.
    /// Sixteen bytes at a time, the last step overlapping the one before.
    static func keepsAddress(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let count = bytes.count
        guard count <= 255, let base = bytes.baseAddress else { return count <= 255 }
        guard count >= 16 else { return Bytes.allLanes(addressLanes(Bytes.padded(bytes, with: UInt8(ascii: "a")))) }
        var i = 0
        while i < count {
            let at = min(i, count - 16)
            guard Bytes.allLanes(addressLanes(base.loadUnaligned(fromByteOffset: at, as: SIMD16<UInt8>.self))) else { return false }
            i += 16
        }
        return true
    }

    /// The lanes of `v` that may be part of a kept client address: a
    /// letter (bit 5 set folds case), a digit or `:` (`0x30`–`0x3A`), `-`
    /// or `.` (`0x2D`–`0x2E`), `[`, `]`, `_` or `%`. A range is one
    /// subtraction and one unsigned compare.
    @inline(__always)
    static func addressLanes(_ v: SIMD16<UInt8>) -> SIMDMask<SIMD16<Int8>> {
        let letter = within(v | SIMD16(repeating: 0x20), UInt8(ascii: "a"), UInt8(ascii: "z"))
        let digitOrColon = within(v, .zero, .colon)
        let dashOrDot = within(v, .minus, .dot)
        let open = SIMD16<UInt8>(repeating: .openBracket), close = SIMD16<UInt8>(repeating: .closeBracket)
        let underscore = SIMD16<UInt8>(repeating: .underscore), percent = SIMD16<UInt8>(repeating: .percent)
        let marks = (v .== open) .| (v .== close) .| (v .== underscore) .| (v .== percent)
        return letter .| digitOrColon .| dashOrDot .| marks
    }

    /// The lanes of `v` from `low` to `high`.
    @inline(__always)
    private static func within(_ v: SIMD16<UInt8>, _ low: UInt8, _ high: UInt8) -> SIMDMask<SIMD16<Int8>> {
        let base = SIMD16<UInt8>(repeating: low), width = SIMD16<UInt8>(repeating: high &- low)
        return (v &- base) .<= width
    }

    /// The host of an absolute URL's bytes (after `://`, before the path,
    /// port and any userinfo).
    static func host(of url: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        guard let colon = Bytes.find(.colon, in: url), colon + 3 <= url.count else { return Bytes.slice(url, 0, 0) }
        var start = colon + 3
        var end = Bytes.find(.slash, in: url, from: start) ?? url.count
        var authority = Bytes.slice(url, start, end)
        while let at = Bytes.find(.at, in: authority) {
            start += at + 1
            authority = Bytes.slice(url, start, end)
        }
        if let c = Bytes.find(.colon, in: authority), Bytes.find(.closeBracket, in: authority) == nil { end = start + c }
        return Bytes.slice(url, start, end)
    }

    /// Whether a decoded `redirect_uri` names Google's redirect service
    /// (docs/contract.md §3's in-scope rule: case-insensitive).
    static func looksGoogle(_ uri: String) -> Bool {
        var copy = uri
        return copy.withUTF8 { raw in
            let b = UnsafeRawBufferPointer(raw)
            return Bytes.containsCaseInsensitive(b, "googleusercontent.com") || Bytes.containsCaseInsensitive(b, "oauth-redirect")
        }
    }

    /// The Location as a return, when it has `code` or `error`, or goes to
    /// an allowlisted URI (an empty return); nil otherwise.
    /// `request` is the record's own request, if any: a return whose state
    /// has the same bytes as the request's shares its text and hash.
    /// Its base and allowlisted variant go to `shared`.
    private mutating func returnShape(
        _ url: UnsafeRawBufferPointer, request: EventStorage.RequestFacts?, shared: inout EventStorage.ReturnShared
    ) -> EventStorage.ReturnFacts? {
        let q = Bytes.find(.question, in: url)
        var baseEnd = q ?? url.count
        if let hash = Bytes.find(.hash, in: Bytes.slice(url, 0, baseEnd)) { baseEnd = hash }
        if let q {
            var query = Bytes.slice(url, q + 1, url.count)
            if let hash = Bytes.find(.hash, in: query) { query = Bytes.slice(query, 0, hash) }
            locationQuery.scan(query)
        } else {
            locationQuery.reset()
        }
        let shaped = locationQuery.has(.code) || locationQuery.has(.error)
        if !shaped {
            // An empty return must go to an allowlisted URI; skip the String
            // for the usual redirect to a login page.
            guard hasCustomAllowlist || Bytes.containsCaseInsensitive(Bytes.slice(url, 0, baseEnd), "oauth-redirect") else { return nil }
        }
        let baseBytes = Bytes.slice(url, 0, baseEnd)
        let allowlist = self.allowlist
        let (base, allowlisted, variantOf, toGoogleHost) = returnBases.value(for: baseBytes) {
            let text = Bytes.string(baseBytes)
            let host = Self.host(of: baseBytes)
            let exact = allowlist.contains(text)
            // Host names are compared without letter case (RFC 3986 §3.2.2).
            let google =
                (host.count == GoogleHosts.production.utf8.count && Bytes.containsCaseInsensitive(host, "oauth-redirect.googleusercontent.com"))
                || (host.count == GoogleHosts.sandbox.utf8.count
                    && Bytes.containsCaseInsensitive(host, "oauth-redirect-sandbox.googleusercontent.com"))
            return (text, exact, exact ? nil : allowlist.exactVariant(of: text), google)
        }
        // An empty return goes to an allowlisted URI, or to one that
        // equals it after normalization (the same destination).
        guard shaped || allowlisted || variantOf != nil else { return nil }
        var duplicates = FlipParamSet()
        var bad = FlipParamSet()
        let query = locationQuery
        // The code is keyed at once; it shows only as its digest.
        let code = query.code(into: &text, duplicates: &duplicates, bad: &bad, fingerprint: fingerprint)
        let stateSpan: TextSpan
        let stateHash: UInt64
        if let request, !request.stateSpan.isAbsent, let raw = query[.state], let requestRaw = requestQuery[.state], Bytes.equal(raw, requestRaw) {
            // The usual 302 that answers the request on its own record: the
            // same bytes decode to the same text, well- or ill-encoded alike.
            if query.counts[FlipParam.state.rawValue] > 1 && FlipParam.state.duplicateMatters { duplicates.insert(.state) }
            if request.badEncodingParams.contains(.state) { bad.insert(.state) }
            stateSpan = request.stateSpan
            stateHash = request.stateHash
        } else {
            stateSpan = decoded(.state, of: query, duplicates: &duplicates, bad: &bad)
            stateHash = stateSpan.isAbsent ? 0 : text.bytes(stateSpan) { fingerprint.of($0) }
        }
        let errorSpan = decoded(.error, of: query, duplicates: &duplicates, bad: &bad)
        let descriptionSpan = decoded(.errorDescription, of: query, duplicates: &duplicates, bad: &bad)
        shared = EventStorage.ReturnShared(base: base, exactVariantOf: variantOf)
        return EventStorage.ReturnFacts(
            toGoogleHost: toGoogleHost, allowlisted: allowlisted, stateSpan: stateSpan,
            stateHash: stateHash, codeKey: code?.key, codeSpan: code?.span ?? .absent, codeIsDigest: false, errorSpan: errorSpan,
            descriptionSpan: descriptionSpan, duplicateParams: duplicates, badEncodingParams: bad)
    }
}

/// A recent raw `redirect_uri`: its decoded text, whether its encoding is
/// malformed, whether it names Google — and, once a request in scope has
/// carried it, the verdicts the audit needs (`RedirectFacts`), made once
/// for all the requests that repeat it. Kept by one extractor only.
final class RedirectValue {
    let text: String
    let malformed: Bool
    let google: Bool
    private var judged: RedirectFacts?

    init(text: String, malformed: Bool, google: Bool) {
        self.text = text
        self.malformed = malformed
        self.google = google
    }

    func facts(allowlist: Allowlist) -> RedirectFacts {
        if let judged { return judged }
        let facts = RedirectFacts(text, allowlist: allowlist)
        judged = facts
        return facts
    }
}
