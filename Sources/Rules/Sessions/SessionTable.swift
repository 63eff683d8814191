import DequeModule
import Parsing

/// The open sessions and when each one times out: by state, those without
/// a state, the expiry queue and the order they opened in. It decides
/// nothing about the protocol — `SessionTracker` does, and tells it which
/// sessions open, move on and close.
/// Not `Sendable`: the audit thread only.
final class SessionTable {
    /// Open sessions by their state's hash, each the head of a chain of
    /// those whose states share it (`Session.sameHash`: nearly always
    /// none), so a return's state is looked up from its bytes, without a
    /// String. Sessions without a state are never joined.
    private var byHash: [FingerprintKey: Session] = [:]
    private var withState = 0
    /// Open sessions with an empty state, kept only until they expire.
    private var stateless: [Int: Session] = [:]
    /// (expiry, session) in non-decreasing expiry order: events come in time
    /// order, so appending on every touch keeps it sorted. Stale entries
    /// (the session was touched again, or closed) are skipped.
    private var expiries = Deque<(expiry: Int64, session: Session)>()
    /// Open sessions in the order they opened (closed ones are dropped
    /// from the front): the oldest open `firstSeen` bounds every row still
    /// to come.
    private var openOrder = Deque<Session>()

    /// Sessions open now.
    var count: Int { withState + stateless.count }

    /// The open session whose state has `hash` and the bytes `state`, if any.
    func session(hash: UInt64, state: UnsafeRawBufferPointer) -> Session? {
        var next = byHash[FingerprintKey(hash)]
        while let s = next {
            if s.hasState(state) { return s }
            next = s.sameHash
        }
        return nil
    }

    /// Adds a session that has just opened (its expiry is set by `touched`).
    func open(_ session: Session) {
        if session.state.isEmpty {
            stateless[session.serial] = session
            openOrder.append(session)
            return
        }
        // An open session of the same state is no longer found by it (a
        // checkpoint's sessions can share one): the newer one is.
        var text = session.state
        if let older = text.withUTF8({ self.session(hash: session.stateHash, state: UnsafeRawBufferPointer($0)) }) { unlink(older) }
        session.sameHash = byHash.updateValue(session, forKey: FingerprintKey(session.stateHash))
        withState += 1
        openOrder.append(session)
    }

    /// Takes in sessions carried from a checkpoint, with their expiries.
    func restore(_ sessions: [Session]) {
        for s in sessions.sorted(by: { ($0.firstSeen, $0.serial) < ($1.firstSeen, $1.serial) }) { open(s) }
        for s in sessions.sorted(by: { ($0.expiresAt, $0.serial) < ($1.expiresAt, $1.serial) }) {
            expiries.append((s.expiresAt, s))
        }
    }

    /// Notes the session's new `expiresAt`.
    func touched(_ session: Session) {
        expiries.append((session.expiresAt, session))
    }

    /// Takes a session that is closing out of the table.
    func remove(_ session: Session) {
        if session.state.isEmpty {
            stateless[session.serial] = nil
        } else {
            unlink(session)
        }
    }

    /// Takes `session` out of its hash's chain, if it is in it.
    private func unlink(_ session: Session) {
        let hash = FingerprintKey(session.stateHash)
        guard let head = byHash[hash] else { return }
        if head === session {
            if let next = session.sameHash { byHash[hash] = next } else { byHash[hash] = nil }
        } else {
            var previous = head
            while let s = previous.sameHash, s !== session { previous = s }
            guard previous.sameHash === session else { return }
            previous.sameHash = session.sameHash
        }
        session.sameHash = nil
        withState -= 1
    }

    /// The next open session whose timeout ran out before `time`.
    func nextExpired(before time: Int64) -> Session? {
        while let first = expiries.first, first.expiry < time {
            expiries.removeFirst()
            let s = first.session
            if s.expiresAt == first.expiry && !s.isClosed { return s }
        }
        return nil
    }

    /// The open session that has been idle longest (the next to expire).
    func leastRecentlyActive() -> Session? {
        while let first = expiries.popFirst() {
            let s = first.session
            if s.expiresAt == first.expiry && !s.isClosed { return s }
        }
        return nil
    }

    /// The first request time of the oldest open session.
    var oldestFirstSeen: Int64? {
        while let first = openOrder.first, first.isClosed { openOrder.removeFirst() }
        return openOrder.first?.firstSeen
    }

    /// Every open session, in the order they opened.
    var stillOpen: [Session] { openOrder.filter { !$0.isClosed } }

    func removeAll() {
        byHash.removeAll()
        withState = 0
        stateless.removeAll()
        expiries.removeAll()
        openOrder.removeAll()
    }
}
