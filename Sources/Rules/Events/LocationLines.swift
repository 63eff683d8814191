/// Where an input first logged a Location field: among its lines that are
/// not JSON, and among its JSON lines. A session is `unobservable` when
/// its input had logged no Location field in the format of its first
/// request by the session's last record (docs/contract.md §3): in one
/// stream of mixed servers, a JSON server that logs it says nothing of a
/// combined one that does not.
package struct LocationLines: Sendable, Equatable, Codable {
    /// The first line that is not JSON to log a Location field.
    package var text: Int64?
    /// The first JSON line to log one.
    package var json: Int64?

    package init(text: Int64? = nil, json: Int64? = nil) {
        self.text = text
        self.json = json
    }

    /// Whether any line logged a Location field.
    package var any: Bool { text != nil || json != nil }

    /// The first line of JSON lines (`json`) or of the others.
    package func first(json: Bool) -> Int64? { json ? self.json : text }

    /// Takes in what another part of the input found: the earlier line of
    /// each format.
    package mutating func take(_ other: LocationLines) {
        text = Self.earlier(text, other.text)
        json = Self.earlier(json, other.json)
    }

    private static func earlier(_ a: Int64?, _ b: Int64?) -> Int64? {
        guard let a, let b else { return a ?? b }
        return min(a, b)
    }
}
