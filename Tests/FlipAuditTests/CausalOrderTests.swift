import Foundation
import Testing

@testable import Audit
@testable import Rules

/// Causal order across inputs (docs/contract.md §3): records of two fronts
/// that cannot be told apart at the coarser precision are in causal order.
@Suite("Causal order across inputs")
struct CausalOrderTests {
    /// A JSON line of a front that logs milliseconds.
    static func json(_ time: String, _ target: String, _ status: Int, location: String = "") -> String {
        "{\"time\":\"\(time)\",\"remote_addr\":\"198.51.100.7\",\"request\":\"GET \(target) HTTP/1.1\",\"status\":\(status),\"location\":\"\(location)\"}"
    }

    @Test("out through one front, back through another in the same logged second: one session, no state-reuse")
    func stateReuseAcrossFronts() {
        // Front b ranks first (an earlier first record), so at 10:00:05 its
        // record would come first: the login redirect of front a is the
        // request that opened the flow.
        let files = [
            "a.log": [combined(5, authorize(state: "x"), 302, location: "https://partner.example/login")],
            "b.log": [combined(0, "/healthz", 200), combined(5, authorize(state: "x"), 302, location: opa + "?code=k1&state=x")],
        ]
        for sorted in [false, true] {
            let run = audit(files) { $0.alwaysSort = sorted }
            #expect(run.sessions.map(\.outcome) == [.code], "sorted \(sorted)")
            #expect(!run.kinds().contains(.stateReuse), "sorted \(sorted)")
            // The session opened at front a's request.
            #expect(run.sessions.first.map { run.result.describe($0.source) }?.hasSuffix("a.log:1") == true)
        }
    }

    @Test("a return logged in whole seconds by one front, its request in ms by another: one session, no unknown-state")
    func returnBeforeRequest() {
        let files = [
            // Whole seconds: its 10:00:05 may be any instant of that second.
            "a.log": [combined(0, "/healthz", 200), combined(5, "/consent", 302, location: opa + "?code=k2&state=y")],
            "b.json": [
                Self.json(
                    "2026-11-22T10:00:05.400Z", "/oauth/authorize?client_id=G123&redirect_uri=\(enc(opa))&state=y&response_type=code", 200)
            ],
        ]
        let run = audit(files)
        #expect(run.sessions.map(\.outcome) == [.code])
        #expect(!run.kinds().contains(.unknownState) && !run.kinds().contains(.noReturn))
    }

    @Test("within one input, line order stays: a request again after its return is state-reuse")
    func oneInputKeepsLineOrder() {
        let run = audit([
            combined(5, authorize(state: "z"), 302, location: opa + "?code=k3&state=z"), combined(5, authorize(state: "z"), 200),
        ])
        #expect(run.kinds().contains(.stateReuse))
    }

    @Test("milliseconds apart on both fronts: the clock decides")
    func millisecondsDecide() {
        let files = [
            "a.json": [Self.json("2026-11-22T10:00:05.700Z", "/oauth/authorize?client_id=G123&redirect_uri=\(enc(opa))&state=w", 200)],
            "b.json": [
                Self.json("2026-11-22T10:00:00.000Z", "/healthz", 200),
                Self.json("2026-11-22T10:00:05.400Z", "/consent", 302, location: opa + "?code=k4&state=w"),
            ],
        ]
        let run = audit(files)
        // The return came 300 ms before any request of its state.
        #expect(run.kinds().contains(.unknownState))
    }

    @Test("seconds handed on in order, whether or not the last one was taken out")
    func secondsInOrder() {
        // Events of two inputs over three seconds; the rules take them out
        // after every event, or only at the end (a flush while some wait).
        let places: [(time: Int64, file: Int32)] = [(1_000, 0), (1_000, 1), (1_500, 0), (2_000, 1), (2_300, 0), (3_100, 0)]
        let events = places.enumerated().map { i, p in
            FlipEvent(
                time: p.time, source: SourceRef(file: p.file, line: Int64(i + 1)), clientIP: "", status: 200, request: nil,
                returned: nil, lineKey: 0)
        }
        for drainEach in [true, false] {
            var order = CausalOrder()
            var out: [Int64] = []
            for event in events {
                order.add(event)
                if drainEach { while let e = order.next() { out.append(e.source.line) } }
            }
            order.flush()
            while let e = order.next() { out.append(e.source.line) }
            #expect(out == [1, 2, 3, 4, 5, 6], "taken out after each: \(drainEach)")
        }
    }
}
