import Rules

/// The rules stage, as both drivers run it: events in time order → tiers
/// (a proxy's and its backend's records of one request, audited once) →
/// causal order across inputs within a logged second → the duplicate
/// filter → the session tracker, which tells its sink every finding and
/// closed session.
/// One process runs one over every event (`Analyzer`); a distributed
/// reducer runs one over each state's events in turn (`SessionStage`,
/// `endKey` between states).
struct RuleStep {
    let tracker: SessionTracker
    private(set) var duplicates: DuplicateFilter
    private(set) var tiers: Tiers
    private var causal = CausalOrder()
    /// Whether events come from more than one file: with one, nothing
    /// is reordered and no event need be held for it.
    private let ordered: Bool

    /// `sources`: how many files the events come from (the inputs, and
    /// the previous run's files of carried records).
    init(tracker: SessionTracker, duplicates: DuplicateFilter, tiers: Tiers, sources: Int) {
        self.tracker = tracker
        self.duplicates = duplicates
        self.tiers = tiers
        ordered = sources > 1
    }

    /// Of the records past the watermark, those to carry: not a twin of
    /// one just audited.
    mutating func carry(_ held: [FlipEvent]) -> [FlipEvent] { tiers.carry(held) }

    /// Learns pairs of inputs that are tiers, before the first event.
    mutating func learn(_ pairs: Set<Tiers.Pair>) { tiers.learn(pairs) }

    /// Takes `event`; the events whose twins and second are settled are
    /// audited, unless one repeats a record already audited.
    mutating func take(_ event: consuming FlipEvent) {
        if !tiers.passes {
            tiers.add(event)
            audit()
        } else if ordered {
            causal.add(event)
            audit()
        } else {
            rule(event)
        }
    }

    /// Audits what is still held: the input ended.
    mutating func flush() {
        tiers.flush()
        while let event = tiers.next() { causal.add(event) }
        causal.flush()
        audit()
    }

    private mutating func audit() {
        while let event = tiers.next() { causal.add(event) }
        while let event = causal.next() { rule(event) }
    }

    /// The duplicate filter, then the session tracker.
    private mutating func rule(_ event: borrowing FlipEvent) {
        guard duplicates.admits(event) else { return }
        tracker.process(event)
    }

    /// Closes the sessions of one key (a state, or a line without one)
    /// at `end` and forgets them before the next key.
    mutating func endKey(at end: Int64) {
        flush()
        tracker.finish(endTime: end)
        tracker.forget()
        duplicates.forget()
    }
}
