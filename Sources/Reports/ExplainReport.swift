import Audit
import Foundation
import Parsing
import Rules

/// `flipaudit explain`'s output: the stories as text for a terminal (every
/// text from logs escaped) or as JSON (`--json`). Codes appear only as
/// digests.
package enum ExplainReport {
    /// What the target was taken for, in words.
    static func targetText(_ e: Explanation) -> String {
        switch e.target {
        case .state(let s): return "state \(Quote.text(s))"
        case .digest(let d): return "code \(d)"
        case .source(let file, let line): return "record \(file):\(line)"
        case .address(let a): return "client address \(a)"
        }
    }

    /// One decision in words.
    static func text(_ d: ExplainDecision, _ result: AuditResult) -> String {
        switch d {
        case .opened(let reused):
            return reused ? "opened a new session: the state was already used by a session that returned or expired" : "opened the session"
        case .joined(let n): return "joined the session (request \(n) of the session; it had not returned)"
        case .returned(let n): return n == 1 ? "return 1 of the session: its outcome comes from this return" : "return \(n) of the session"
        case .failed(let status): return "answered \(status) to a request of the session (its first failure)"
        case .finding(let f):
            return "finding \(f.kind.rawValue) (\(f.severity.rawValue)) at \(result.describe(f.source)): rule: \(f.kind.meaning); fired by: \(f.detail)"
        case .closed(let outcome, let why): return "closed (\(why)): outcome \(outcome.rawValue)"
        case .carriedIn(let requests, let returns, let findings):
            let kinds = findings.isEmpty ? "none" : findings.map(\.rawValue).joined(separator: ", ")
            return
                "carried in open from the checkpoint (opened at this source by an earlier run): \(requests) request(s), \(returns) return(s), findings so far: \(kinds)"
        case .carriedOut: return "carried out open to the next run (the checkpoint)"
        case .codeSeenAgain(let digest, let state, let source):
            return "code \(digest), returned to this session, came back at \(result.describe(source)) in session with state \(Quote.text(state))"
        case .codeFirstReturned(let digest, let state, let source):
            return "code \(digest) was first returned at \(result.describe(source)) to the session with state \(Quote.text(state))"
        }
    }

    /// What was read from a record, in words.
    static func text(_ r: RecordView) -> String {
        var parts: [String] = []
        if r.requestState != nil || r.clientID != nil || r.redirectURI != nil {
            var p = "request"
            p += r.requestState.map { " state \(Quote.text($0))" } ?? " without state"
            if let c = r.clientID { p += " client_id \(Quote.text(c))" }
            if let u = r.redirectURI { p += " redirect_uri \(Quote.text(u))" }
            parts.append(p)
        }
        if let to = r.returnTo {
            var p = "Location \(Quote.text(to))"
            if let s = r.returnState { p += " state \(Quote.text(s))" }
            if let c = r.code { p += " code \(c)" }
            if let e = r.error { p += " error \(Quote.text(e))" }
            if let d = r.errorDescription { p += " error_description \(Quote.text(d))" }
            parts.append(p)
        }
        parts.append("status \(r.status) from \(r.clientIP.isEmpty ? "?" : r.clientIP)")
        return parts.joined(separator: "; ")
    }

    private static func entryLines(_ entry: StoryEntry, _ e: Explanation, into out: inout String) {
        let result = e.result
        let place = entry.source.map { result.describe($0) } ?? "(no record)"
        out += "  \(Timestamp.iso8601(entry.time))  \(TerminalText.escape(place))\n"
        if let source = entry.source, let line = e.lines[source] {
            if !line.method.isEmpty || line.status != 0 {
                out += "      request: \(TerminalText.escape(line.method)) \(TerminalText.escape(line.path)) -> \(line.status)\n"
            }
            out += "      line: \(TerminalText.escape(line.text))\n"
        }
        if let r = entry.record { out += "      read: \(TerminalText.escape(text(r)))\n" }
        for d in entry.decisions { out += "      -> \(TerminalText.escape(text(d, result)))\n" }
    }

    /// The stories as text.
    package static func text(_ e: Explanation) -> String {
        let result = e.result
        var out = ""
        guard e.found else {
            return "flipaudit explain: \(TerminalText.escape(targetText(e))) matches no session and no record\n"
        }
        out += "flipaudit explain: \(TerminalText.escape(targetText(e))): \(e.sessions.count) session(s)"
        if !e.outside.isEmpty { out += ", \(e.outside.count) record(s) outside any session" }
        out += "\n"
        for (i, s) in e.sessions.enumerated() {
            let outcome = s.outcome?.rawValue ?? "open (carried out)"
            let kinds = s.findings.isEmpty ? "none" : s.findings.map { "\($0.kind.rawValue) (\($0.severity.rawValue))" }.joined(separator: ", ")
            out +=
                "\nsession \(i + 1) of \(e.sessions.count): state \(TerminalText.escape(Quote.text(s.state))), first request \(TerminalText.escape(result.describe(s.source))), outcome \(outcome), findings: \(kinds)\n"
            for entry in s.entries { entryLines(entry, e, into: &out) }
        }
        if !e.outside.isEmpty {
            out += "\nrecords outside any session:\n"
            for entry in e.outside {
                entryLines(entry, e, into: &out)
                if entry.decisions.isEmpty { out += "      -> not a return to Google and no session: nothing decided\n" }
            }
        }
        if result.hadInputErrors {
            out += "\nsome input could not be read completely: the story may lack records\n"
        }
        return out
    }

    // MARK: JSON

    struct Document: Encodable {
        var tool = "flipaudit explain"
        var target: String
        var taken_as: String
        var sessions: [Story]
        var outside_sessions: [Entry]
        var input_errors: [String]
    }
    struct Story: Encodable {
        var state: String
        var source: String
        var outcome: String?
        var findings: [FindingView]
        var records: [Entry]
    }
    struct FindingView: Encodable {
        var kind: String, severity: String, rule: String, detail: String, source: String, time: String
    }
    struct Entry: Encodable {
        var time: String
        var source: String?
        /// The log line as written (codes as digests), and its request.
        var line: Line?
        var record: Record?
        var decisions: [Decision]
    }
    struct Line: Encodable {
        var text: String
        var method: String
        var path: String
        var status: Int
    }
    struct Record: Encodable {
        var status: Int
        var client_ip: String
        var request_state: String?
        var client_id: String?
        var redirect_uri: String?
        var location: String?
        var return_state: String?
        var code: String?
        var error: String?
        var error_description: String?
    }
    struct Decision: Encodable {
        var decision: String
        var text: String
        var finding: FindingView?
    }

    static func decisionName(_ d: ExplainDecision) -> String {
        switch d {
        case .opened(let reused): return reused ? "opened-reused" : "opened"
        case .joined: return "joined"
        case .returned: return "returned"
        case .failed: return "failed"
        case .finding: return "finding"
        case .closed: return "closed"
        case .carriedIn: return "carried-in"
        case .carriedOut: return "carried-out"
        case .codeSeenAgain: return "code-seen-again"
        case .codeFirstReturned: return "code-first-returned"
        }
    }

    /// The stories as JSON: the same facts as the text.
    package static func json(_ e: Explanation) throws -> String {
        let result = e.result
        func finding(_ f: Finding) -> FindingView {
            FindingView(
                kind: f.kind.rawValue, severity: f.severity.rawValue, rule: f.kind.meaning, detail: f.detail,
                source: result.describe(f.source), time: Timestamp.iso8601(f.time))
        }
        func entry(_ x: StoryEntry) -> Entry {
            Entry(
                time: Timestamp.iso8601(x.time), source: x.source.map(result.describe),
                line: x.source.flatMap { e.lines[$0] }.map { Line(text: $0.text, method: $0.method, path: $0.path, status: $0.status) },
                record: x.record.map { r in
                    Record(
                        status: r.status, client_ip: r.clientIP, request_state: r.requestState, client_id: r.clientID,
                        redirect_uri: r.redirectURI, location: r.returnTo, return_state: r.returnState, code: r.code, error: r.error,
                        error_description: r.errorDescription)
                },
                decisions: x.decisions.map { d in
                    var f: FindingView?
                    if case .finding(let found) = d { f = finding(found) }
                    return Decision(decision: decisionName(d), text: text(d, result), finding: f)
                })
        }
        let taken: String
        switch e.target {
        case .state: taken = "state"
        case .digest: taken = "code"
        case .source: taken = "record"
        case .address: taken = "address"
        }
        let doc = Document(
            target: e.given, taken_as: taken,
            sessions: e.sessions.map { s in
                Story(
                    state: s.state, source: result.describe(s.source), outcome: s.outcome?.rawValue, findings: s.findings.map(finding),
                    records: s.entries.map(entry))
            },
            outside_sessions: e.outside.map(entry), input_errors: result.inputErrors)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(doc), as: UTF8.self) + "\n"
    }
}
