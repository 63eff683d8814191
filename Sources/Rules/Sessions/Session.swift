import Reading

/// One App Flip session while it is open: everything seen with its `state`.
/// A value in `SessionTable`'s slots, not an object: opening, touching and
/// closing a session retain and release nothing but its texts.
package struct Session {
    /// The exact `state` value; empty for a request that had none. Made
    /// once, when the session opens.
    package let state: String
    /// The state's `Fingerprint`: what the tracker's tables know it by.
    let stateHash: UInt64
    /// The slot of the next open session whose state has the same hash
    /// (`SessionTable`); -1 for none.
    var sameHash: Int32 = -1
    /// Distinguishes sessions that share a state (after `state-reuse`).
    package let serial: Int
    package let firstSeen: Int64
    package var lastSeen: Int64
    package let firstSource: SourceRef
    /// Line of the session's last record in the file of its first request
    /// (what `unobservable` is judged by).
    var lastLineInFirstFile: Int64
    /// Whether its first request was a JSON line: `unobservable` looks at
    /// the Location fields of that format only.
    var json = false
    let clientID: String?
    /// The first request's `redirect_uri` and the verdicts on it.
    let redirect: RedirectFacts?
    var redirectURI: String? { redirect?.uri }
    /// `redirectURI` as it may be shown: codes redacted; empty when absent.
    var redirectShown: String { redirect?.shown ?? "" }
    var target: RedirectTarget { redirect?.target ?? .unknown }
    var redirectAllowlisted: Bool { redirect?.allowlisted ?? false }
    /// `client_id` present and not a configured Google client ID.
    let clientMismatch: Bool
    package let clientIP: String
    package var requestCount = 1
    package var returnCount = 0
    /// The first return: outcome, error and timing come from it.
    package var firstReturn: FirstReturn?
    /// A struct, not a tuple: Swift copies and destroys an optional tuple
    /// that holds Strings through its runtime's generic value witnesses
    /// (about 400 instructions each way), a struct in a few.
    package struct FirstReturn: Sendable {
        package var time: Int64
        package var source: SourceRef
        var hasCode: Bool
        package var error: String?
        package var errorDescription: String?

        /// The same return, at `source`.
        func from(_ source: SourceRef) -> Self {
            var moved = self
            moved.source = source
            return moved
        }
    }
    /// The first 4xx/5xx answer to a request of this session.
    var failure: Failure?
    typealias Failure = (status: Int, time: Int64, source: SourceRef)
    package var findings = FindingKindSet()
    /// Keys of the codes this session was the first to receive: nearly
    /// always one, kept inline.
    var codeKey: UInt64?
    var moreCodeKeys: [UInt64] = []

    /// Whether a state has these bytes. Static, and given the state
    /// alone: a method would copy the whole session out of its slot.
    static func equal(_ state: String, _ bytes: UnsafeRawBufferPointer) -> Bool {
        if let same = state.utf8.withContiguousStorageIfAvailable({ Bytes.equal(UnsafeRawBufferPointer($0), bytes) }) { return same }
        var text = state
        return text.withUTF8 { Bytes.equal(UnsafeRawBufferPointer($0), bytes) }
    }

    mutating func receive(_ key: UInt64) { if codeKey == nil { codeKey = key } else { moreCodeKeys.append(key) } }
    /// For a session carried in from a checkpoint: whether its request's
    /// file had logged a Location by its last record in that file.
    var observable: Bool?
    /// When the session times out, on the tracker's clock (which a record
    /// out of time order does not turn back).
    var expiresAt: Int64 = 0

    init(serial: Int, event: FlipEvent, request: FlipRequest) {
        state = request.state ?? ""
        stateHash = request.stateHash
        self.serial = serial
        firstSeen = event.time
        lastSeen = event.time
        firstSource = event.source
        lastLineInFirstFile = event.source.line
        json = request.json
        clientID = request.clientID
        redirect = request.redirect
        clientMismatch = request.clientMismatch
        clientIP = event.clientIP
    }

    // MARK: Carried between runs (`CarriedSession`: these two go together)

    /// The session as a checkpoint carries it: its sources' files as `map`
    /// numbers them, `observable` judged by the tracker.
    func carried(map: (SourceRef) -> SourceRef, observable: Bool) -> CarriedSession {
        CarriedSession(
            state: state, serial: serial, firstSeen: firstSeen, lastSeen: lastSeen,
            firstSource: map(firstSource), lastLineInFirstFile: lastLineInFirstFile,
            clientID: clientID, redirectURI: redirectURI, clientMismatch: clientMismatch, clientIP: clientIP,
            requestCount: requestCount, returnCount: returnCount,
            firstReturn: firstReturn.map { $0.from(map($0.source)) },
            failure: failure.map { ($0.status, $0.time, map($0.source)) },
            findings: findings.kinds, codeKeys: (codeKey.map { [$0] } ?? []) + moreCodeKeys,
            expiresAt: expiresAt, observable: observable)
    }

    /// A session carried in from a checkpoint; its sources' files ranked
    /// from `fileOffset`. The redirect URI is judged under this run's
    /// allowlist.
    init(carried c: CarriedSession, fileOffset: Int32, fingerprint: Fingerprint, redirect: RedirectFacts?) {
        func map(_ s: SourceRef) -> SourceRef { SourceRef(file: s.file + fileOffset, line: s.line) }
        state = c.state
        stateHash = fingerprint.of(c.state)
        serial = c.serial
        firstSeen = c.firstSeen
        lastSeen = c.lastSeen
        firstSource = map(c.firstSource)
        lastLineInFirstFile = c.lastLineInFirstFile
        clientID = c.clientID
        self.redirect = redirect
        clientMismatch = c.clientMismatch
        clientIP = c.clientIP
        requestCount = c.requestCount
        returnCount = c.returnCount
        firstReturn = c.firstReturn.map { $0.from(map($0.source)) }
        failure = c.failure.map { ($0.status, $0.time, map($0.source)) }
        for kind in c.findings { findings.insert(kind) }
        codeKey = c.codeKeys.first
        moreCodeKeys = Array(c.codeKeys.dropFirst())
        expiresAt = c.expiresAt
        observable = c.observable
    }
}
