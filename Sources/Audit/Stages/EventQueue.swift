import Rules

/// Flip events first in, first out, moved and never copied: a copy of an
/// event is a retain and a release, two atomic operations a record on the
/// audit thread (`Deque.append` makes one). Two arrays: events come in at
/// the end of one; when the other is empty, the first is reversed in place
/// and the two are swapped, and events leave from the end.
struct EventQueue {
    private var incoming: [FlipEvent] = []
    /// Last first.
    private var outgoing: [FlipEvent] = []

    var isEmpty: Bool { incoming.isEmpty && outgoing.isEmpty }

    mutating func append(_ event: consuming FlipEvent) { incoming.append(event) }

    /// Appends every event of `events`, in order, and leaves it empty.
    mutating func append(moving events: inout [FlipEvent]) {
        if incoming.isEmpty {
            swap(&incoming, &events)
        } else {
            events.withUnsafeMutableBufferPointer { $0.reverse() }
            while let event = events.popLast() { incoming.append(event) }
        }
    }

    mutating func popFirst() -> FlipEvent? {
        if outgoing.isEmpty {
            // Not on an empty array: it would be made unique, a new buffer.
            guard !incoming.isEmpty else { return nil }
            // In place: `Array.reverse` copies each event it moves.
            incoming.withUnsafeMutableBufferPointer { $0.reverse() }
            swap(&incoming, &outgoing)
        }
        return outgoing.popLast()
    }
}
