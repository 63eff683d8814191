import Rules

/// An input's first flip records that could have a twin (a state and a
/// twin key), as few as tell whether two inputs are tiers of one another
/// (`Tiers.detect`): what both drivers decide from — one process from its
/// read steps, a distributed reducer from the facts lines every reducer
/// gets — so both read the same pairs of inputs as tiers.
package struct TwinSample: Sendable, Equatable {
    /// How many records an input's sample keeps.
    static let size = 256

    struct Entry: Sendable, Equatable {
        var time: Int64
        var state: UInt64
        var twin: Twin
        /// The line's fingerprint: the same bytes are a duplicate, not a twin.
        var line: UInt64
    }

    private(set) var entries: [Entry] = []

    package init() {}

    /// Takes `event` while the sample has room (events in line order).
    package mutating func see(_ event: FlipEvent) {
        guard entries.count < Self.size, let twin = event.twin, let state = event.stateKey else { return }
        entries.append(Entry(time: event.time, state: state, twin: twin, line: event.lineKey))
    }

    package var isFull: Bool { entries.count >= Self.size }
}

/// In a facts line: one string, `TIME:STATE:KEY:LOCATION:LINE` (hex, `-`
/// for no Location) per entry, joined by `,`.
extension TwinSample: Codable {
    package init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard !text.isEmpty else { return }
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let f = part.split(separator: ":", omittingEmptySubsequences: false)
            guard f.count == 5, let time = Int64(f[0]), let state = UInt64(f[1], radix: 16), let key = UInt64(f[2], radix: 16),
                f[3] == "-" || UInt64(f[3], radix: 16) != nil, let line = UInt64(f[4], radix: 16), entries.count < Self.size
            else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "bad twin sample"))
            }
            entries.append(
                Entry(time: time, state: state, twin: Twin(key: key, location: f[3] == "-" ? nil : UInt64(f[3], radix: 16)), line: line))
        }
    }

    package func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(
            entries.map { e in
                "\(e.time):\(String(e.state, radix: 16)):\(String(e.twin.key, radix: 16)):\(e.twin.location.map { String($0, radix: 16) } ?? "-"):\(String(e.line, radix: 16))"
            }.joined(separator: ","))
    }
}
