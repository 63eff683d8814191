/// Everything flipaudit knows of one format apart from its parser's code:
/// a row of `FormatTable`.
package struct FormatRow: Sendable {
    /// The parser that reads its lines.
    package enum Reader: Sendable {
        case combined, json, pasted, haproxy, envoy, alb, w3c
    }

    package let format: RecordFormat
    /// Its name in messages, reports and `--format`.
    package let name: String
    package let reader: Reader
    /// The servers that write it (docs/formats.md).
    package let servers: String
    /// How `--format auto` knows one of its lines (docs/formats.md).
    package let detection: String
    /// Where its records carry the response Location (docs/formats.md).
    package let location: String
    /// Where its times' zone comes from (docs/formats.md).
    package let zone: String
    /// The server whose times carry no zone, named in the warning that
    /// they were read in `--tz` (or UTC); nil when they carry one.
    package let zoneless: String?
    /// The JSON key paths that mark it, in each role's order: a key of a
    /// row above wins over one of a row below.
    package let keys: [(path: String, role: JSONLineParser.Role)]
    /// What its server needs to log the Location: a sentence, and the
    /// configuration line to add when there is one.
    package let advice: String
    package let example: String?

    init(
        _ format: RecordFormat, _ name: String, reader: Reader, servers: String, detection: String, location: String, zone: String,
        zoneless: String? = nil, keys: [(path: String, role: JSONLineParser.Role)] = [], advice: String, example: String? = nil
    ) {
        self.format = format
        self.name = name
        self.reader = reader
        self.servers = servers
        self.detection = detection
        self.location = location
        self.zone = zone
        self.zoneless = zoneless
        self.keys = keys
        self.advice = advice
        self.example = example
    }

    /// Its line of docs/formats.md's "Every format" table.
    package var documentation: String {
        "| `\(name)` | \(servers) | \(detection) | \(location) | \(zone) |"
    }
}
