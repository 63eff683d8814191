import DequeModule

/// The open sessions and when each one times out: the sessions themselves,
/// by state, the expiry queue and the order they opened in. It decides
/// nothing about the protocol — `SessionTracker` does, and tells it which
/// sessions open, move on and close.
///
/// Sessions are values in slots, named by their slot's index, and read
/// and written where they lie (an array of them would copy a whole session
/// in and out for every field written); a closed session's slot is
/// reused. The queues name a session by slot and the slot's generation,
/// which changes when its session closes:
/// ```
///  slots        [ s0 | free | s2 | s3 ]   byHash: hash → slot, then sameHash
///  generations  [  4 |   7  |  1 |  2 ]   expiries: (expiry, slot, generation)
///  free         [ 1 ]                     openOrder: (slot, generation)
/// ```
/// An entry whose generation is not its slot's any more is stale, and
/// skipped, as is an expiry entry whose session was touched again since.
/// Not `Sendable`: the audit thread only.
final class SessionTable {
    /// The sessions: slot `i` is initialized when `live[i]`.
    private var slots = UnsafeMutablePointer<Session>.allocate(capacity: 0)
    private var capacity = 0
    private var live: [Bool] = []
    /// Per slot, how many sessions it has held and let go.
    private var generations: [UInt32] = []
    /// Free slots, the last freed first.
    private var free: [Int32] = []
    /// The slot of the open session with each state hash, the head of a
    /// chain of those whose states share it (`Session.sameHash`: nearly
    /// always none), so a return's state is looked up from its bytes,
    /// without a String. Sessions without a state are never joined.
    private var byHash = StateIndex()
    private var withState = 0
    /// Open sessions with an empty state, kept only until they expire.
    private var stateless = 0
    /// (expiry, slot, generation) in non-decreasing expiry order: events
    /// come in time order, so appending on every touch keeps it sorted.
    private var expiries = Deque<Expiry>()
    /// The same for the sessions carried in from a checkpoint, sorted once:
    /// their expiries were set on the previous run's clock, which may have
    /// run past the watermark this run's clock starts from, so they can
    /// fall after expiries this run appends. They wait apart, and the
    /// sooner of the two queues' heads goes first. Touched again, a
    /// carried session moves to `expiries`.
    private var carriedExpiries = Deque<Expiry>()
    typealias Expiry = (expiry: Int64, slot: Int32, generation: UInt32)
    /// Open sessions in the order they opened (closed ones are dropped
    /// from the front): the oldest open `firstSeen` bounds every row still
    /// to come.
    private var openOrder = Deque<(slot: Int32, generation: UInt32)>()

    /// Sessions open now.
    var count: Int { withState + stateless }

    deinit {
        removeAll()
        slots.deallocate()
    }

    /// The open session in slot `id`.
    subscript(id: Int) -> Session {
        unsafeAddress {
            assert(live[id], "a closed session's slot read")
            return UnsafePointer(slots + id)
        }
        unsafeMutableAddress {
            assert(live[id], "a closed session's slot written")
            if tracking && !written[id] { wrote(id) }
            return slots + id
        }
    }

    /// The slot of the open session whose state has `hash` and the bytes
    /// `state`, if any.
    func find(hash: UInt64, state: UnsafeRawBufferPointer) -> Int? {
        guard var next = byHash[hash] else { return nil }
        while next >= 0 {
            let s = Int(next)
            if Session.equal(self[s].state, state) { return s }
            next = self[s].sameHash
        }
        return nil
    }

    /// Whether the state of the session in slot `id` has the bytes `state`.
    func hasState(_ id: Int, _ state: UnsafeRawBufferPointer) -> Bool { Session.equal(self[id].state, state) }

    /// Whether the session in slot `id` was the first to receive the code
    /// `key`. Here, not a method of `Session`: called on a session read
    /// in place, a method copies it whole.
    func received(_ id: Int, _ key: UInt64) -> Bool { self[id].codeKey == key || self[id].moreCodeKeys.contains(key) }

    /// Adds a session that has just opened (its expiry is set by
    /// `touched`); its slot.
    func open(_ session: consuming Session) -> Int {
        let id: Int
        if let slot = free.popLast() {
            id = Int(slot)
        } else {
            id = live.count
            if id == capacity { grow() }
            live.append(false)
            generations.append(0)
        }
        (slots + id).initialize(to: consume session)
        live[id] = true
        openOrder.append((Int32(id), generations[id]))
        if tracking {
            if written.count <= id {
                written.append(false)
                committed.append(false)
            }
            committed[id] = false
            if !written[id] { wrote(id) }
        }
        if self[id].state.isEmpty {
            stateless += 1
            return id
        }
        // An open session of the same state is no longer found by it (a
        // checkpoint's sessions can share one): the newer one is.
        let hash = self[id].stateHash
        var text = self[id].state
        if let older = text.withUTF8({ find(hash: hash, state: UnsafeRawBufferPointer($0)) }) { unlink(older) }
        self[id].sameHash = byHash.update(Int32(id), for: hash) ?? -1
        withState += 1
        return id
    }

    /// Takes in sessions carried from a checkpoint, with their expiries.
    func restore(_ sessions: [Session]) {
        var ids: [(session: Session, id: Int)] = []
        for s in sessions.sorted(by: { ($0.firstSeen, $0.serial) < ($1.firstSeen, $1.serial) }) { ids.append((s, open(s))) }
        for (_, id) in ids.sorted(by: { ($0.session.expiresAt, $0.session.serial) < ($1.session.expiresAt, $1.session.serial) }) {
            carriedExpiries.append((self[id].expiresAt, Int32(id), generations[id]))
        }
    }

    /// Notes the session's new `expiresAt`.
    func touched(_ id: Int) {
        expiries.append((self[id].expiresAt, Int32(id), generations[id]))
    }

    /// Takes a session that is closing out of the table, and frees its slot.
    func remove(_ id: Int) -> Session {
        if self[id].state.isEmpty {
            stateless -= 1
        } else {
            unlink(id)
        }
        // After `unlink`, which writes the chain beside it.
        if tracking {
            if committed[id] { closedSerials.append(self[id].serial) }
            committed[id] = false
            written[id] = false
        }
        generations[id] &+= 1
        free.append(Int32(id))
        live[id] = false
        return (slots + id).move()
    }

    /// Twice the room, the open sessions moved into it.
    private func grow() {
        let room = max(64, 2 * capacity)
        let moved = UnsafeMutablePointer<Session>.allocate(capacity: room)
        for i in live.indices where live[i] { (moved + i).moveInitialize(from: slots + i, count: 1) }
        slots.deallocate()
        slots = moved
        capacity = room
    }

    /// Takes the session in slot `id` out of its hash's chain, if it is in it.
    private func unlink(_ id: Int) {
        let hash = self[id].stateHash
        guard let head = byHash[hash] else { return }
        if Int(head) == id {
            let next = self[id].sameHash
            if next >= 0 { _ = byHash.update(next, for: hash) } else { byHash.remove(hash) }
        } else {
            var previous = Int(head)
            while self[previous].sameHash >= 0, Int(self[previous].sameHash) != id { previous = Int(self[previous].sameHash) }
            guard Int(self[previous].sameHash) == id else { return }
            self[previous].sameHash = self[id].sameHash
        }
        self[id].sameHash = -1
        withState -= 1
    }

    /// Whether a queue entry names the session in its slot now.
    private func current(_ slot: Int32, _ generation: UInt32) -> Bool { generations[Int(slot)] == generation }

    /// The next open session whose timeout ran out before `time`.
    func nextExpired(before time: Int64) -> Int? {
        while let first = popSoonest(before: time) {
            if current(first.slot, first.generation) && self[Int(first.slot)].expiresAt == first.expiry { return Int(first.slot) }
        }
        return nil
    }

    /// The open session that has been idle longest (the next to expire).
    func leastRecentlyActive() -> Int? { nextExpired(before: .max) }

    /// The sooner head of the two expiry queues, taken off its queue, when
    /// it falls before `time`; on a tie, the carried one.
    private func popSoonest(before time: Int64) -> Expiry? {
        let carried = carriedExpiries.first.map { $0.expiry } ?? .max
        let touched = expiries.first.map { $0.expiry } ?? .max
        guard min(carried, touched) < time else { return nil }
        return carried <= touched ? carriedExpiries.popFirst() : expiries.popFirst()
    }

    /// The first request time of the oldest open session.
    var oldestFirstSeen: Int64? {
        while let first = openOrder.first, !current(first.slot, first.generation) { openOrder.removeFirst() }
        return openOrder.first.map { self[Int($0.slot)].firstSeen }
    }

    /// The slots of every open session, in the order they opened.
    var stillOpen: [Int] { openOrder.filter { current($0.slot, $0.generation) }.map { Int($0.slot) } }

    func removeAll() {
        tracking = false
        written.removeAll()
        committed.removeAll()
        writtenSlots.removeAll()
        closedSerials.removeAll()
        for i in live.indices where live[i] { (slots + i).deinitialize(count: 1) }
        live.removeAll()
        generations.removeAll()
        free.removeAll()
        byHash.removeAll()
        withState = 0
        stateless = 0
        expiries.removeAll()
        carriedExpiries.removeAll()
        openOrder.removeAll()
    }

    // MARK: Changes (a follower's journal)

    /// Whether writes are tracked: a follower's commits journal only the
    /// sessions written since the commit before (`takeChanges`), and the
    /// serials of those closed. Off in a nightly run: one flag looked at
    /// per write.
    private var tracking = false
    /// Per slot: written since the last take; its session is in a commit.
    private var written: [Bool] = []
    private var committed: [Bool] = []
    /// The slots written since the last take (a slot again after its
    /// session closed and another opened in it).
    private var writtenSlots: [Int32] = []
    /// The serials of committed sessions closed since the last take.
    private var closedSerials: [Int] = []

    private func wrote(_ id: Int) {
        written[id] = true
        writtenSlots.append(Int32(id))
    }

    /// Tracks writes from now on, every open session counted as committed
    /// (a whole checkpoint holds them all).
    func startTracking() {
        tracking = true
        written = Array(repeating: false, count: live.count)
        committed = live
        writtenSlots.removeAll()
        closedSerials.removeAll()
    }

    /// The slots of the open sessions written since the last take (each
    /// once, now counted as committed), and the serials of the committed
    /// sessions closed since.
    func takeChanges() -> (slots: [Int], closed: [Int]) {
        var slots: [Int] = []
        for s in writtenSlots where written[Int(s)] {
            written[Int(s)] = false
            committed[Int(s)] = true
            slots.append(Int(s))
        }
        writtenSlots.removeAll(keepingCapacity: true)
        defer { closedSerials.removeAll(keepingCapacity: true) }
        return (slots, closedSerials)
    }
}
