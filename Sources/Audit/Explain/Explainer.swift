import Rules

/// What `flipaudit explain` looks for (docs/contract.md §11): a state, a
/// code by its digest, the `FILE:LINE` of a finding's source, or a client
/// address (`ip:ADDR`).
package enum ExplainTarget: Sendable, Equatable {
    case state(String)
    /// Every session a record from this client address took part in.
    case address(String)
    /// `sha256:` and 12 hex digits, as findings show a code.
    case digest(String)
    /// A record by its input's name (as the reports give it) and line.
    case source(file: String, line: Int64)

    /// What `text` names among inputs called `names`: a digest when it has
    /// a digest's form (in either case); `FILE:LINE` when FILE is one of
    /// `names` (or ends one after a `/`); a state otherwise.
    package static func parse(_ text: String, names: [String]) -> ExplainTarget {
        if CodeHash.isDigest(text.lowercased()) { return .digest(text.lowercased()) }
        // `ip:` and an IPv4 or IPv6 address (a state may begin `ip:` too).
        let address = text.dropFirst(3)
        if text.hasPrefix("ip:"), !address.isEmpty, address.contains(where: { $0 == "." || $0 == ":" }),
            address.allSatisfy({ $0.isHexDigit || $0 == "." || $0 == ":" })
        {
            return .address(String(address))
        }
        if let colon = text.lastIndex(of: ":") {
            let file = String(text[..<colon])
            let digits = text[text.index(after: colon)...]
            if !file.isEmpty, !digits.isEmpty, digits.allSatisfy(\.isASCII), let line = Int64(digits), line > 0,
                let name = names.first(where: { $0 == file }) ?? names.first(where: { $0.hasSuffix("/" + file) })
            {
                return .source(file: name, line: line)
            }
        }
        return .state(text)
    }

    /// The states `text` may stand for, as an output printed them: itself;
    /// without the `'` a CSV cell puts before `=`, `+`, `-`, `@`, tab or
    /// CR; and with the terminal's escapes of control characters (`\x1b`,
    /// `\u{202E}`) read back. (A state's own `\xFF` and `\\`, which keep
    /// its bytes, are its text already.)
    static func stateForms(_ text: String) -> [String] {
        var forms = [text]
        if text.utf8.first == UInt8(ascii: "'"), let next = text.utf8.dropFirst().first, CSVGuard.starts(next) {
            forms.append(String(text.dropFirst()))
        }
        for form in forms where form.contains("\\") {
            let plain = unescapeControls(form)
            if plain != form { forms.append(plain) }
        }
        return forms
    }

    /// `\xhh` of a control character and `\u{H…}` of any scalar, read back
    /// (`TerminalText.escape`'s forms); a doubled backslash stays doubled.
    static func unescapeControls(_ text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        var out = String.UnicodeScalarView()
        func hex(_ from: Int, _ to: Int) -> Unicode.Scalar? {
            guard from < to, to <= scalars.count, to - from <= 6,
                let v = UInt32(String(String.UnicodeScalarView(scalars[from..<to])), radix: 16)
            else { return nil }
            return Unicode.Scalar(v)
        }
        var i = 0
        while i < scalars.count {
            if scalars[i] == "\\", i + 1 < scalars.count {
                let next = scalars[i + 1]
                if next == "\\" {
                    out.append(contentsOf: scalars[i...(i + 1)])
                    i += 2
                    continue
                }
                if next == "x", let c = hex(i + 2, i + 4), c.value < 0x20 || (0x7F..<0xA0).contains(c.value) {
                    out.append(c)
                    i += 4
                    continue
                }
                if next == "u", i + 2 < scalars.count, scalars[i + 2] == "{",
                    let close = scalars[(i + 3)...].firstIndex(of: "}"), let c = hex(i + 3, close)
                {
                    out.append(c)
                    i = close + 1
                    continue
                }
            }
            out.append(scalars[i])
            i += 1
        }
        return String(out)
    }
}

/// The first bytes a CSV cell is guarded against with a `'`
/// (docs/contract.md §7): `=`, `+`, `-`, `@`, tab, carriage return.
enum CSVGuard {
    static func starts(_ b: UInt8) -> Bool {
        b == UInt8(ascii: "=") || b == UInt8(ascii: "+") || b == UInt8(ascii: "-") || b == UInt8(ascii: "@") || b == 9 || b == 13
    }
}

/// One decision the audit took on a session or record, as the tracker
/// took it (`TraceStep`).
package enum ExplainDecision: Sendable {
    /// The session was opened by this request; `reused` when its state
    /// was already used by a session that returned or expired.
    case opened(reused: Bool)
    /// A further request with the state joined the session (its `requests`-th).
    case joined(requests: Int)
    /// A return counted for the session (its `number`-th).
    case returned(number: Int)
    /// The first 4xx/5xx answer to one of its requests.
    case failed(status: Int)
    case finding(Finding)
    /// The session was closed, and why.
    case closed(outcome: Outcome, why: String)
    /// Taken in open from the checkpoint.
    case carriedIn(requests: Int, returns: Int, findings: [FindingKind])
    /// Handed open to the next run (`--checkpoint`).
    case carriedOut
    /// The code this session received came back in another session.
    case codeSeenAgain(digest: String, state: String, source: SourceRef)
    /// The code of this return was first returned in another session.
    case codeFirstReturned(digest: String, state: String, source: SourceRef)
}

/// A record, or a moment without one (an expiry), and what was decided there.
package struct StoryEntry: Sendable {
    package var time: Int64
    /// The record; nil for a decision taken at a time with no record of
    /// this session (expiry, end of input, carried).
    package var source: SourceRef?
    let event: FlipEvent?
    package var decisions: [ExplainDecision]

    /// What was read from the record.
    package var record: RecordView? { event.map(RecordView.init) }
}

/// The flip event read from one record: codes as digests, URLs with codes
/// redacted.
package struct RecordView: Sendable {
    package var status: Int
    package var clientIP: String
    package var requestState: String?
    package var clientID: String?
    package var redirectURI: String?
    package var returnTo: String?
    package var returnState: String?
    package var code: String?
    package var error: String?
    package var errorDescription: String?

    init(_ e: FlipEvent) {
        status = e.status
        clientIP = e.clientIP
        requestState = e.request?.state
        clientID = e.request?.clientID
        redirectURI = e.request?.redirect?.shown
        returnTo = e.returned.map { CodeDigest.redact($0.base) }
        returnState = e.returned?.state
        code = e.returned?.codeDigest?.description
        error = e.returned?.error
        errorDescription = e.returned?.errorDescription
    }
}

/// One session's story.
package struct SessionStory: Sendable {
    package var state: String
    package var serial: Int
    /// The session's first request (a `sessions.csv` row's `source`).
    package var source: SourceRef
    /// nil while it is open (carried out).
    package var outcome: Outcome?
    package var findings: [Finding]
    package var entries: [StoryEntry]
}

/// Collects the stories of the sessions tied to a target from the
/// tracker's decisions (`TraceStep`). Every open session's story is kept
/// until it closes, then dropped unless one of its records matched; so
/// memory follows the open sessions, as the audit's does.
final class Explainer {
    let given: String
    private(set) var target: ExplainTarget = .state("")
    /// The forms a state target may have been given in (`stateForms`).
    private var stateForms: [String] = []
    private func isTarget(state: String?) -> Bool {
        guard let state else { return false }
        return stateForms.contains { $0.utf8.elementsEqual(state.utf8) }
    }
    private var sourceTarget: SourceRef?

    private final class Story {
        var story: SessionStory
        var matched = false
        init(_ s: Session) { story = SessionStory(state: s.state, serial: s.serial, source: s.firstSource, findings: [], entries: []) }
    }
    private var open: [Int: Story] = [:]
    private(set) var done: [SessionStory] = []
    private(set) var outside: [StoryEntry] = []
    /// Matched stories by session, closed or not, for later code notes.
    private var matchedStories: [Int: Story] = [:]

    /// The record being decided on, the sessions it touched, and the
    /// decisions on it outside any session.
    private var current: FlipEvent?
    private var touched: [Int] = []
    /// The stories of `touched`, closed or not.
    private var touchedStories: [Int: Story] = [:]
    private var currentOutside: [ExplainDecision] = []
    /// The session being closed and the entry of its closing.
    private var closing: (id: Int, entry: StoryEntry)?
    /// Where each code (by key) was first returned to a session, for the
    /// reuse window (as the tracker remembers returned codes).
    private var codeFirst: [UInt64: (id: Int, state: String, source: SourceRef, time: Int64)] = [:]
    private var retention: Int64 = .max
    private var recordsSincePrune = 0

    init(_ given: String) { self.given = given }

    /// A pass begins: everything before is forgotten.
    func start(names: [String], retention: Int64) {
        self.retention = retention
        recordsSincePrune = 0
        target = ExplainTarget.parse(given, names: names)
        if case .state(let t) = target { stateForms = ExplainTarget.stateForms(t) }
        if case .source(let file, let line) = target, let i = names.firstIndex(of: file) {
            sourceTarget = SourceRef(file: Int32(i), line: line)
        }
        open = [:]
        done = []
        outside = []
        matchedStories = [:]
        current = nil
        touched = []
        touchedStories = [:]
        currentOutside = []
        closing = nil
        codeFirst = [:]
    }

    func step(_ step: TraceStep) {
        switch step {
        case .record(let event):
            finishRecord()
            current = event
            recordsSincePrune += 1
            if recordsSincePrune >= 1 << 16 {
                recordsSincePrune = 0
                codeFirst = codeFirst.filter { event.time - $0.value.time <= retention }
            }
        case .opened(let s, let reused):
            let story = Story(s)
            open[s.serial] = story
            if case .state = target, isTarget(state: s.state) { story.matched = true }
            add(s, .opened(reused: reused))
        case .joined(let s): add(s, .joined(requests: s.requestCount))
        case .returned(let s): add(s, .returned(number: s.returnCount))
        case .failed(let s, let status): add(s, .failed(status: status))
        case .finding(let f, let s):
            if let s {
                story(s).story.findings.append(f)
                add(s, .finding(f))
            } else {
                currentOutside.append(.finding(f))
            }
        case .closing(let s, let why, let at):
            closing = (s.serial, StoryEntry(time: at, source: nil, event: nil, decisions: [.closed(outcome: .pending, why: why.rawValue)]))
        case .closed(let s, let record):
            let id = s.serial
            let st = story(s)
            if var entry = closing?.entry, closing?.id == id {
                if case .closed(_, let why) = entry.decisions[0] { entry.decisions[0] = .closed(outcome: record.outcome, why: why) }
                st.story.entries.append(entry)
            }
            closing = nil
            st.story.outcome = record.outcome
            open[id] = nil
            if st.matched { settle(id, st) }
        case .carriedIn(let s):
            let st = story(s)
            st.story.entries.append(
                StoryEntry(
                    time: s.firstSeen, source: s.firstSource, event: nil,
                    decisions: [.carriedIn(requests: s.requestCount, returns: s.returnCount, findings: s.findings.kinds)]))
            if case .state = target, isTarget(state: s.state) { st.matched = true }
            if case .address(let a) = target, s.clientIP.utf8.elementsEqual(a.utf8) { st.matched = true }
            if let sourceTarget, s.firstSource == sourceTarget || s.firstReturn?.source == sourceTarget { st.matched = true }
        case .carriedOut(let s):
            let st = story(s)
            st.story.entries.append(StoryEntry(time: s.lastSeen, source: nil, event: nil, decisions: [.carriedOut]))
        }
    }

    /// The run ended: stories of matched sessions still open (carried out)
    /// join the others.
    func finish() -> (sessions: [SessionStory], outside: [StoryEntry]) {
        finishRecord()
        for (id, st) in open where st.matched { settle(id, st) }
        open = [:]
        return (done.sorted { $0.serial < $1.serial }, outside)
    }

    private func settle(_ id: Int, _ st: Story) {
        if matchedStories[id] == nil { matchedStories[id] = st }
        done.removeAll { $0.serial == st.story.serial }
        done.append(st.story)
    }

    private func story(_ s: Session) -> Story {
        if let st = open[s.serial] { return st }
        let st = Story(s)
        open[s.serial] = st
        return st
    }

    private func add(_ s: Session, _ decision: ExplainDecision) {
        let id = s.serial
        if closing?.id == id {
            closing!.entry.decisions.append(decision)
            return
        }
        let st = story(s)
        if let current, let last = st.story.entries.last, last.event?.source == current.source {
            st.story.entries[st.story.entries.count - 1].decisions.append(decision)
        } else {
            st.story.entries.append(
                StoryEntry(time: current?.time ?? 0, source: current?.source, event: current, decisions: [decision]))
        }
        if !touched.contains(id) {
            touched.append(id)
            touchedStories[id] = st
        }
    }

    private func matches(_ e: FlipEvent) -> Bool {
        switch target {
        case .state: return isTarget(state: e.request?.state) || isTarget(state: e.returned?.state)
        case .digest(let d): return e.returned?.codeDigest?.description == d
        case .source: return e.source == sourceTarget
        case .address(let a): return e.clientIP.utf8.elementsEqual(a.utf8)
        }
    }

    /// The record's decisions are all taken: ties it to the target, and
    /// notes codes seen in more than one session.
    private func finishRecord() {
        guard let event = current else { return }
        defer {
            current = nil
            touched = []
            touchedStories = [:]
            currentOutside = []
        }
        if let code = event.returned?.codeDigest {
            for id in touched {
                guard let st = touchedStories[id] else { continue }
                if let first = codeFirst[code.key] {
                    guard first.id != id else { continue }
                    note(st, .codeFirstReturned(digest: code.description, state: first.state, source: first.source), event: event)
                    if let firstStory = matchedStories[first.id] ?? open[first.id] {
                        let seen = ExplainDecision.codeSeenAgain(digest: code.description, state: st.story.state, source: event.source)
                        firstStory.story.entries.append(StoryEntry(time: event.time, source: event.source, event: event, decisions: [seen]))
                        if firstStory.matched, let i = done.firstIndex(where: { $0.serial == firstStory.story.serial }) {
                            done[i] = firstStory.story
                        }
                    }
                } else {
                    codeFirst[code.key] = (id, st.story.state, event.source, event.time)
                }
            }
        }
        if matches(event) {
            for id in touched {
                guard let st = touchedStories[id], !st.matched else { continue }
                st.matched = true
                // Closed already (at the end of the input): settled now.
                if open[id] == nil { settle(id, st) }
            }
            if touched.isEmpty {
                outside.append(StoryEntry(time: event.time, source: event.source, event: event, decisions: currentOutside))
            }
        }
    }

    private func note(_ st: Story, _ decision: ExplainDecision, event: FlipEvent) {
        if let last = st.story.entries.last, last.event?.source == event.source {
            st.story.entries[st.story.entries.count - 1].decisions.append(decision)
        } else {
            st.story.entries.append(StoryEntry(time: event.time, source: event.source, event: event, decisions: [decision]))
        }
    }
}
