import Rules

/// The rules stage, as both drivers run it: events in time order → the
/// duplicate filter → the session tracker, which tells its sink every
/// finding and closed session. One process runs one over every event
/// (`Analyzer`); a distributed reducer runs one over each state's events
/// in turn (`SessionStage`, `endKey` between states).
struct RuleStep {
    let tracker: SessionTracker
    private(set) var duplicates: DuplicateFilter

    /// Audits `event` unless it repeats a record already audited.
    mutating func take(_ event: FlipEvent) {
        guard duplicates.admits(event) else { return }
        tracker.process(event)
    }

    /// Closes the sessions of one key (a state, or a line without one)
    /// at `end` and forgets them before the next key.
    mutating func endKey(at end: Int64) {
        tracker.finish(endTime: end)
        tracker.forget()
        duplicates.forget()
    }
}
