import Rules

/// Flip events in audit order, one at a time: the time-ordered merge of
/// the inputs, or their sort. A class, so that the audit's loop hands it
/// to `Waiting.next` without a closure that retains it on every event.
protocol EventStream: AnyObject {
    /// The next event, or nil when there are no more.
    func next() -> FlipEvent?
}

extension TimeOrderedMerge: EventStream {}
extension EventSort: EventStream {}
