import Parsing
import Reading

/// Receives what the session tracker decides, as it decides it.
package protocol AuditSink: AnyObject {
    func finding(_ finding: consuming Finding)
    func sessionClosed(_ session: consuming SessionRecord)
}

/// Rebuilds App Flip sessions from flip events in time order and raises the
/// findings of docs/contract.md §4. This is where every finding is decided; `Session`
/// only holds state. A session is named by its slot in `table`.
package final class SessionTracker {
    /// Whether an error value is one of App Flip's.
    static func isStandardError(_ error: UnsafeRawBufferPointer) -> Bool {
        Bytes.equals(error, "cancelled") || Bytes.equals(error, "unrecoverable") || Bytes.equals(error, "invalid_request")
            || Bytes.equals(error, "access_denied")
    }

    private let timeoutMs: Int64
    private let maxSessions: Int
    /// Per input file (by rank), the first line that logged a Location
    /// field, once the reading has got that far.
    /// Per input, where it first logged a Location field, by format.
    private var locationLines: [LocationLines]
    private unowned let sink: AuditSink
    /// Latest event time processed: the tracker's clock.
    private var clock = Int64.min

    /// The open sessions and their expiries.
    private let table = SessionTable()
    /// States whose session returned or expired, for `--reuse-window` of
    /// log time: a new request with one of them is `state-reuse`.
    private var endedStates: ReuseMemory
    /// Returned codes (by `CodeHash.key`), remembered as long as ended
    /// states; which session received a code is known by the session
    /// (`Session.received`).
    private var returnedCodes: ReuseMemory
    private var nextSerial = 0
    /// Sessions closed early because `maxSessions` were open.
    package private(set) var evictedSessions = 0
    /// Project IDs accepted only because none is pinned.
    package private(set) var unpinnedProjectIDs = Set<String>()
    /// Files with sessions that could not be judged (no Location logged).
    package private(set) var unobservableFiles = Set<Int32>()

    /// Where codes returned to sessions go when `code-reuse` is decided
    /// elsewhere (the distributed code stage); nil decides it here.
    private let codeReturns: ((CodeReturn) -> Void)?

    /// Told every decision as it is taken (`flipaudit explain`,
    /// docs/contract.md §11); nil in an audit, where it costs one check.
    private let trace: ((TraceStep) -> Void)?

    /// `files` inputs are read; `carried`, the previous run's checkpoint,
    /// adds its open sessions, memories and clock, its sessions' files
    /// ranked after the inputs. With `codeReturns`, every code returned to
    /// a session is handed to it instead of being judged for `code-reuse`.
    package convenience init(
        configuration: AuditConfiguration, files: Int, sink: AuditSink, carried: Checkpoint? = nil,
        codeReturns: ((CodeReturn) -> Void)? = nil
    ) {
        self.init(configuration: configuration, files: files, sink: sink, carried: carried, codeReturns: codeReturns, trace: nil)
    }

    /// The tracker, telling `trace` every decision (`flipaudit explain`).
    package init(
        configuration: AuditConfiguration, files: Int, sink: AuditSink, carried: Checkpoint?,
        codeReturns: ((CodeReturn) -> Void)?, trace: ((TraceStep) -> Void)?
    ) {
        self.codeReturns = codeReturns
        self.trace = trace
        timeoutMs = Int64(configuration.sessionTimeoutSeconds) * 1000
        maxSessions = max(1, configuration.maxSessions)
        let retention = Int64(configuration.reuseWindowSeconds) * 1000
        endedStates = ReuseMemory(retention: retention)
        returnedCodes = ReuseMemory(retention: retention)
        locationLines = Array(repeating: LocationLines(), count: files + (carried?.files.count ?? 0))
        self.sink = sink
        if let carried { restore(carried, after: files, configuration: configuration) }
    }

    /// Takes in what a checkpoint carries. The clock starts at the
    /// watermark less the reorder window, where the earliest record this
    /// run audits can lie, so a record that arrives that late still joins
    /// the sessions carried for it. Carried sessions count against
    /// `--max-sessions` as any others.
    private func restore(_ checkpoint: Checkpoint, after files: Int, configuration: AuditConfiguration) {
        clock = checkpoint.watermark - AuditConfiguration.reorderWindow
        nextSerial = checkpoint.serial
        for r in checkpoint.endedStates where clock - r.time <= endedStates.retention { endedStates.remember(r.key, at: r.time) }
        for r in checkpoint.returnedCodes where clock - r.time <= returnedCodes.retention { returnedCodes.remember(r.key, at: r.time) }
        let allowlist = configuration.allowlist
        // Judged once per redirect URI, not once per session: a checkpoint
        // of many sessions holds few URIs.
        var redirects: [String: RedirectFacts] = [:]
        let sessions = checkpoint.sessions.map { c in
            let redirect = c.redirectURI.map { uri in
                if let known = redirects[uri] { return known }
                let facts = RedirectFacts(uri, allowlist: allowlist)
                redirects[uri] = facts
                return facts
            }
            return Session(carried: c, fileOffset: Int32(files), fingerprint: configuration.fingerprint, redirect: redirect)
        }
        table.restore(sessions)
        if let trace { for s in table.stillOpen { trace(.carriedIn(table[s])) } }
        while table.count > maxSessions { evictOldest() }
    }

    /// Notes where input `file` logged a Location field first, by format:
    /// its sessions of that format whose records reach that line can be
    /// judged.
    package func markLogsLocation(file: Int32, lines: LocationLines) {
        let i = Int(file)
        guard i >= 0 else { return }
        // A follower opens files as they come: ranks grow with it.
        if i >= locationLines.count { locationLines += Array(repeating: LocationLines(), count: i + 1 - locationLines.count) }
        locationLines[i].take(lines)
    }

    /// Moves the clock on to `time` with no record (`flipaudit follow`,
    /// while the logs are quiet): sessions whose timeout ran out before it
    /// close. A clock already past it stays.
    package func advance(to time: Int64) {
        guard time > clock else { return }
        clock = time
        expire(before: time)
    }

    /// The tracker's clock: the newest event time, or where `advance` took it.
    package var now: Int64 { clock }

    /// No row still to come — session or finding — is keyed before this
    /// time: every later finding is raised at a later event or at the
    /// first request of a session still open.
    package var settledBefore: Int64 {
        min(clock, table.oldestFirstSeen ?? .max)
    }

    /// How far a record moves the clock at most: a follower's wall clock
    /// (`flipaudit follow`), so that one record dated ahead of it (a
    /// server's clock set wrong) neither closes the sessions open now nor
    /// sets the timeouts of those that open after it that far out. A
    /// nightly run has none.
    package var clockLimit = Int64.max

    /// Feeds one event; events should come ordered by (time, file, line).
    /// One that runs back in time is audited all the same; the clock that
    /// expires sessions does not run back with it.
    package func process(_ event: FlipEvent) {
        if event.time > clock { clock = max(clock, min(event.time, clockLimit)) }
        expire(before: clock)
        trace?(.record(event))
        var session: Int?
        if let request = event.request {
            session = handleRequest(request, event: event)
        }
        if let ret = event.returned {
            handleReturn(ret, event: event, requestSession: session)
        } else if let session, event.status >= 400, table[session].failure == nil {
            table[session].failure = (event.status, event.time, event.source)
            trace?(.failed(table[session], status: event.status))
        }
    }

    /// Closes every session at the end of the input; `endTime` is the latest
    /// record time seen in all the input.
    package func finish(endTime: Int64) {
        expire(before: endTime)
        for s in table.stillOpen { close(s, endTime: max(endTime, clock), why: .endOfInput) }
        clear()
    }

    /// Forgets the clock and the remembered states and codes, after
    /// `finish`: the distributed session stage audits one state's events at
    /// a time, each from its own clock, exactly as one process sees them.
    package func forget() {
        clock = .min
        endedStates = ReuseMemory(retention: endedStates.retention)
        returnedCodes = ReuseMemory(retention: returnedCodes.retention)
    }

    /// Ends the input for a run that hands on to the next: closes the
    /// sessions that expired before the watermark less the reorder window,
    /// and carries the others, with the memories, instead of closing them
    /// as `pending` (docs/contract.md §9): a record of the next run can
    /// still join them. `names` names every file rank the sessions'
    /// sources use. The checkpoint's key, records and files are left for
    /// the caller.
    package func carry(watermark: Int64, names: [String], waiting: [FlipEvent] = []) -> Checkpoint {
        expire(before: watermark - AuditConfiguration.reorderWindow)
        let checkpoint = snapshot(watermark: watermark, names: names, waiting: waiting).checkpoint
        clear()
        return checkpoint
    }

    /// Sessions open now.
    package var openSessions: Int { table.count }

    /// States and codes remembered since the last call (a follower's
    /// journal commits them): recorded from the first call on.
    package func takeRememberedChanges() -> (states: [Checkpoint.Remembered], codes: [Checkpoint.Remembered]) {
        (endedStates.takeChanges(), returnedCodes.takeChanges())
    }

    /// What `carry` hands on, leaving every session open and the clock as
    /// it is: a follower commits it and goes on.
    /// `ranks` gives, by the checkpoint's file index, the rank it stands for.
    /// `remembered`: false leaves out the states and codes remembered (a
    /// follower's journal commit, which takes only the new ones).
    package func snapshot(watermark: Int64, names: [String], waiting: [FlipEvent] = [], remembered: Bool = true) -> (
        checkpoint: Checkpoint, ranks: [Int32]
    ) {
        let now = max(clock, watermark)
        var numbering = FileNumbering(names: names)
        func map(_ source: SourceRef) -> SourceRef { numbering.map(source) }
        var sessions: [CarriedSession] = []
        for s in table.stillOpen {
            trace?(.carriedOut(table[s]))
            sessions.append(table[s].carried(map: map, observable: logsLocation(table[s])))
        }
        // Records past the watermark wait, with where their files first
        // logged a Location (their sessions' `unobservable`).
        var lines: [[UInt8]] = []
        var locations: [Int: LocationLines] = [:]
        for event in waiting {
            let source = map(event.source)
            if locationLines.indices.contains(Int(event.source.file)) {
                locations[Int(source.file)] = locationLines[Int(event.source.file)]
            }
            var line: [UInt8] = []
            EventCodec.encode(FlipEvent(event, source: source), into: &line)
            line.removeLast()
            lines.append(line)
        }
        let checkpoint = Checkpoint(
            watermark: watermark, key: [], serial: nextSerial, files: numbering.files, sessions: sessions,
            endedStates: remembered ? endedStates.live(now: now) : [], returnedCodes: remembered ? returnedCodes.live(now: now) : [],
            waiting: lines, locations: locations.filter { $0.value.any })
        return (checkpoint, numbering.old)
    }

    /// A follower's commit (docs/follow.md, "Commits"): its sources' files
    /// numbered by rank (`names`, one per rank), and either every open
    /// session with every state and code remembered (`whole`: a snapshot)
    /// or the sessions written since the commit before and the serials of
    /// those closed since (a journal commit; the states and codes come
    /// apart, `takeRememberedChanges`). `track`: sessions are journaled by
    /// change from this whole checkpoint on (a commit's; a test's look at
    /// the whole checkpoint leaves the journal as it is).
    package func followCommit(watermark: Int64, names: [String], whole: Bool, track: Bool) -> Checkpoint {
        let now = max(clock, watermark)
        var sessions: [CarriedSession] = []
        var closed: [Int] = []
        if whole {
            for s in table.stillOpen { sessions.append(table[s].carried(map: { $0 }, observable: logsLocation(table[s]))) }
            if track { table.startTracking() }
        } else {
            let (slots, gone) = table.takeChanges()
            for s in slots { sessions.append(table[s].carried(map: { $0 }, observable: logsLocation(table[s]))) }
            closed = gone
        }
        var checkpoint = Checkpoint(
            watermark: watermark, key: [], serial: nextSerial, files: names, sessions: sessions,
            endedStates: whole ? endedStates.live(now: now) : [], returnedCodes: whole ? returnedCodes.live(now: now) : [],
            waiting: [], locations: [:])
        checkpoint.closed = closed
        return checkpoint
    }

    private func clear() {
        table.removeAll()
    }

    // MARK: Requests

    private func handleRequest(_ request: FlipRequest, event: FlipEvent) -> Int {
        let hasState = request.hasFilledState
        var reused = false
        if hasState, let existing = request.withState({ table.find(hash: request.stateHash, state: $0) }) {
            if table[existing].returnCount == 0 {
                table[existing].requestCount += 1
                touch(existing, event.time, source: event.source)
                trace?(.joined(table[existing]))
                requestFindings(request, session: existing, event: event)
                return existing
            }
            close(existing, endTime: nil, why: .stateUsedAgain)
            reused = true
        } else if hasState && endedStates.contains(request.stateHash, now: clock) {
            reused = true
        }
        if table.count >= maxSessions { evictOldest() }
        let session = table.open(Session(serial: nextSerial, event: event, request: request))
        nextSerial += 1
        touch(session, event.time, source: event.source)
        trace?(.opened(table[session], reused: reused))
        if reused {
            raise(
                .stateReuse, session: session, event: event,
                detail: "state \(Quote.text(table[session].state)) was already used by a session that returned or expired")
        }
        requestFindings(request, session: session, event: event)
        return session
    }

    private func requestFindings(_ request: FlipRequest, session: Int, event: FlipEvent) {
        if request.clientID == nil || !request.hasState || request.redirect == nil {
            let missing = [(FlipParam.clientID, request.clientID != nil), (.state, request.hasState), (.redirectURI, request.redirect != nil)]
                .filter { !$0.1 }.map { $0.0.name }
            raise(.missingParam, session: session, event: event, detail: "request lacks \(missing.joined(separator: ", "))")
        }
        if let facts = request.redirect {
            if let id = facts.unpinnedProjectID { unpinnedProjectIDs.insert(id) }
            if !facts.allowlisted {
                let trick = facts.lookAlike.map { "look-alike (\($0)): " } ?? ""
                raise(.redirectNotAllowlisted, session: session, event: event, detail: "\(trick)redirect_uri \(Quote.url(facts.uri)) is not allowlisted")
            }
        }
        if request.clientMismatch, let id = request.clientID {
            raise(.clientIDMismatch, session: session, event: event, detail: "client_id \(Quote.text(id)) is not a configured Google client ID")
        }
        if !request.duplicateParams.isEmpty {
            raise(.duplicateParam, session: session, event: event, detail: "request repeats \(request.duplicateParams.names)")
        }
        if !request.badEncodingParams.isEmpty {
            raise(
                .badEncoding, session: session, event: event,
                detail: "request has malformed encoding in \(request.badEncodingParams.names)")
        }
    }

    // MARK: Returns

    private func handleReturn(_ ret: FlipReturn, event: FlipEvent, requestSession: Int?) {
        var recordFindings = FindingKindSet()
        let session: Int?
        if let requestSession {
            session = requestSession
            // By their bytes (docs/contract.md §7): a state that is only
            // canonically equivalent to the request's is another state.
            if ret.hasState, !ret.withState({ table.hasState(requestSession, $0) }), let returned = ret.state {
                raise(
                    .stateMismatch, session: requestSession, event: event,
                    detail: "request state \(Quote.text(table[requestSession].state)) came back as \(Quote.text(returned))")
            }
        } else if ret.hasState, let s = ret.withState({ table.find(hash: ret.stateHash, state: $0) }) {
            session = s
        } else {
            guard ret.toGoogleHost else { return }  // not a return
            session = nil
            if let state = ret.state {
                emit(
                    .unknownState, session: nil, recordSet: &recordFindings, event: event, state: state, ret: ret,
                    detail: "return with state \(Quote.text(state)) matches no open session")
            }
        }
        if let session {
            table[session].returnCount += 1
            touch(session, event.time, source: event.source)
            trace?(.returned(table[session]))
            if table[session].returnCount == 1 {
                table[session].firstReturn = Session.FirstReturn(
                    time: event.time, source: event.source, hasCode: ret.hasCode, error: ret.error, errorDescription: ret.errorDescription)
                if !table[session].state.isEmpty { endedStates.remember(table[session].stateHash, at: clock) }
            } else {
                raise(.duplicateReturn, session: session, event: event, detail: "return number \(table[session].returnCount) for this session")
            }
        }
        func check(_ kind: FindingKind, _ detail: @autoclosure () -> String) {
            if let session {
                raise(kind, session: session, event: event, detail: detail())
            } else {
                emit(kind, session: nil, recordSet: &recordFindings, event: event, state: ret.state ?? "", ret: ret, detail: detail())
            }
        }
        var to: String { Quote.url(ret.base) }
        // A URI that equals an allowlisted one only after normalization is
        // the same destination, sent there by a server that does not match
        // exactly (docs/contract.md §3 "Exact match").
        let unlisted = !ret.allowlisted && ret.exactVariantOf == nil
        if ret.hasCode && unlisted { check(.codeToUnlistedRedirect, "code \(ret.codeDigest!) sent to \(to)") }
        if ret.hasError && !ret.hasCode && unlisted { check(.errorToUnlistedRedirect, "error \(Quote.text(ret.error!)) sent to \(to)") }
        if let match = ret.exactVariantOf, ret.hasCode || ret.hasError {
            let what = ret.codeDigest.map { "code \($0)" } ?? "error \(Quote.text(ret.error!))"
            check(.redirectNotExact, "\(what) sent to \(to), which equals \(Quote.url(match)) only after normalization")
        }
        if ret.hasCode && ret.hasError { check(.codeAndError, "return carries code \(ret.codeDigest!) and error \(Quote.text(ret.error!))") }
        if !ret.hasCode && !ret.hasError { check(.emptyReturn, "return to \(to) has neither code nor error") }
        if ret.hasCode && !ret.hasState { check(.codeWithoutState, "code \(ret.codeDigest!) returned to \(to) without state") }
        if ret.hasError && !ret.hasState { check(.errorWithoutState, "error \(Quote.text(ret.error!)) returned without state") }
        if ret.hasError, !ret.withError(Self.isStandardError) {
            check(.nonstandardError, "error \(Quote.text(ret.error!)) is not an App Flip error value")
        }
        if !ret.duplicateParams.isEmpty {
            check(.duplicateParam, "return repeats \(ret.duplicateParams.names)")
        }
        if !ret.badEncodingParams.isEmpty {
            check(.badEncoding, "return has malformed encoding in \(ret.badEncodingParams.names)")
        }
        guard let session else { return }
        // Compared in normal form: a variant of the requested URI is the
        // same destination (docs/contract.md §3 "Exact match").
        if let uri = table[session].redirect?.uri, !Bytes.equal(uri, ret.base), let requested = URLParts(uri), URLParts(ret.base) != nil,
            !Bytes.equal(Allowlist.normalized(requested.base), Allowlist.normalized(ret.base))
        {
            raise(
                .redirectChanged, session: session, event: event,
                detail: "request asked for \(Quote.url(requested.base)), return went to \(to)")
        }
        if table[session].clientMismatch {
            if let digest = ret.codeDigest {
                raise(
                    .codeDespiteClientMismatch, session: session, event: event,
                    detail: "code \(digest) issued for client_id \(Quote.text(table[session].clientID ?? ""))")
            }
            if let error = ret.error, error != "invalid_request" {
                raise(
                    .wrongErrorForClientMismatch, session: session, event: event,
                    detail: "client_id mismatch answered with \(Quote.text(error)), expected invalid_request")
            }
        }
        if ret.hasCode, let codeReturns, let digest = ret.codeDigest {
            codeReturns(
                CodeReturn(
                    key: digest.key, digest: digest.description, time: event.time, source: event.source,
                    session: table[session].firstSource, state: table[session].state, clientID: table[session].clientID ?? "",
                    redirectURI: table[session].redirectShown))
        } else if let key = ret.codeKey {
            switch CodeReuse.judge(key, at: clock, alreadyReceived: table.received(session, key), memory: &returnedCodes) {
            case .received: table[session].receive(key)
            case .reused(let first):
                raise(.codeReuse, session: session, event: event, detail: CodeReuse.detail(ret.codeDigest!.description, first: first))
            case .repeated: break
            }
        }
    }

    // MARK: Expiry and closing

    private func touch(_ id: Int, _ time: Int64, source: SourceRef) {
        let lastSeen = max(table[id].lastSeen, time)
        table[id].lastSeen = lastSeen
        if source.file == table[id].firstSource.file && source.line > table[id].lastLineInFirstFile {
            table[id].lastLineInFirstFile = source.line
        }
        // On the clock, so the expiry queue stays in order even when a
        // record runs back in time; one dated past `clockLimit` (ahead of a
        // follower's wall clock) times out from the clock it moved.
        let from = max(lastSeen, clock)
        table[id].expiresAt = (from > clockLimit ? clock : from) + timeoutMs
        table.touched(id)
    }

    /// Closes the sessions whose timeout ran out before `time`.
    private func expire(before time: Int64) {
        while let s = table.nextExpired(before: time) { close(s, endTime: nil, why: .expired) }
    }

    /// Closes the least recently active open session to make room
    /// (`--max-sessions`). Its state is not remembered as ended: it did not
    /// end, so a later request with it is not `state-reuse`.
    private func evictOldest() {
        guard let s = table.leastRecentlyActive() else { return }
        evictedSessions += 1
        close(s, endTime: nil, why: .evicted)
    }

    /// Whether the file of the session's first request had logged a
    /// Location field, on a record of that request's format (JSON or not),
    /// by the session's last record in it (docs/contract.md §3): a server
    /// whose log format gains the field mid-file is judged from then on.
    private func logsLocation(_ s: borrowing Session) -> Bool {
        if let carried = s.observable { return carried }
        let i = Int(s.firstSource.file)
        guard locationLines.indices.contains(i), let first = locationLines[i].first(json: s.json) else { return false }
        return first <= s.lastLineInFirstFile
    }

    /// Decides the outcome, raises the closing findings and hands the row
    /// on. `endTime` is set when the input ended with the session open.
    private func close(_ id: Int, endTime: Int64?, why: TraceStep.Closing) {
        let evicted = why == .evicted
        trace?(.closing(table[id], why: why, at: why == .expired ? table[id].expiresAt : max(clock, endTime ?? clock)))
        // Remembered from the session's last activity, not from the event
        // that happened to close it.
        if !table[id].state.isEmpty && !evicted { endedStates.remember(table[id].stateHash, at: table[id].lastSeen) }
        let outcome: Outcome
        var error = ""
        var description = ""
        var latency: Int64?
        var across = false
        if let r = table[id].firstReturn {
            outcome = r.error != nil ? .error : (r.hasCode ? .code : .empty)
            error = r.error ?? ""
            description = r.errorDescription ?? ""
            latency = r.time - table[id].firstSeen
            across = r.source != table[id].firstSource
        } else if let f = table[id].failure {
            // Refused without a redirect: correct when there is nowhere
            // safe to send the error — a `redirect_uri` that is not
            // allowlisted (a variant that matches only after
            // normalization included) or none at all (docs/contract.md §3).
            if !table[id].redirectAllowlisted {
                outcome = .rejected
            } else {
                outcome = .failed
                raise(
                    .missingErrorReturn, session: id, time: f.time, source: f.source,
                    detail: "answered \(f.status) without returning an error to \(Quote.text(self.table[id].redirectShown))")
            }
        } else if !logsLocation(table[id]) {
            outcome = .unobservable
            unobservableFiles.insert(table[id].firstSource.file)
        } else if evicted {
            outcome = .closedEarly
        } else if let endTime, table[id].expiresAt >= endTime {
            outcome = .pending
        } else {
            outcome = .noReturn
            raise(
                .noReturn, session: id, time: table[id].firstSeen, source: table[id].firstSource,
                detail: "no return within \(timeoutMs / 1000) s of the last request")
        }
        let s = table.remove(id)
        let record = SessionRecord(
            state: s.state, firstSeen: s.firstSeen, lastSeen: s.lastSeen, target: s.target,
            clientID: s.clientID ?? "", redirectURI: s.redirectShown,
            outcome: outcome, error: error, errorDescription: description,
            latencyMs: latency, latencyAcrossRecords: across, findings: s.findings.kinds,
            clientIP: s.clientIP, source: s.firstSource)
        trace?(.closed(s, record))
        sink.sessionClosed(consume record)
    }

    // MARK: Raising

    private func raise(_ kind: FindingKind, session: Int, event: FlipEvent, detail: @autoclosure () -> String) {
        raise(kind, session: session, time: event.time, source: event.source, detail: detail())
    }

    /// Raises `kind` on the session in slot `id`, at most once per session.
    /// `detail` may read the table: it is asked for once no access to it
    /// is under way.
    private func raise(_ kind: FindingKind, session id: Int, time: Int64, source: SourceRef, detail: @autoclosure () -> String) {
        guard table[id].findings.insert(kind) else { return }
        let text = detail()
        let finding = Finding(
            kind: kind, time: time, state: table[id].state, clientID: table[id].clientID ?? "",
            redirectURI: table[id].redirectShown, detail: text, source: source)
        trace?(.finding(finding, table[id]))
        sink.finding(consume finding)
    }

    /// Raises `kind` for a return outside any session, once per record.
    private func emit(
        _ kind: FindingKind, session: Int?, recordSet: inout FindingKindSet, event: FlipEvent, state: String,
        ret: FlipReturn, detail: String
    ) {
        guard recordSet.insert(kind) else { return }
        let finding = Finding(
            kind: kind, time: event.time, state: state, clientID: "", redirectURI: ret.base,
            detail: detail, source: event.source)
        trace?(.finding(finding, nil))
        sink.finding(consume finding)
    }
}

/// One decision of `SessionTracker`, as `flipaudit explain` retells it
/// (docs/contract.md §11). The tracker hands it on as it decides, so the
/// story is the audit's own, never a second reading of the rules.
package enum TraceStep {
    /// Why a session was closed.
    package enum Closing: String {
        /// Its timeout ran out.
        case expired
        /// A new request came with its state after it had returned.
        case stateUsedAgain = "state used again"
        /// `--max-sessions` were open (closed early).
        case evicted = "closed early (--max-sessions)"
        /// The input ended with it open (no checkpoint).
        case endOfInput = "end of input"
    }
    /// A record reaches the rules (after duplicates and late records are
    /// left out); the steps until the next record are taken on it, but for
    /// those between `closing` and `closed`.
    case record(FlipEvent)
    case opened(Session, reused: Bool)
    /// A further request with the state of an open session that has not
    /// returned.
    case joined(Session)
    /// A return counted for the session (`returnCount` says which).
    case returned(Session)
    /// A 4xx/5xx answer to one of the session's requests, the first.
    case failed(Session, status: Int)
    /// A finding raised, on a session or (nil) on a record outside any.
    case finding(Finding, Session?)
    case closing(Session, why: Closing, at: Int64)
    case closed(Session, SessionRecord)
    case carriedIn(Session)
    case carriedOut(Session)
}
