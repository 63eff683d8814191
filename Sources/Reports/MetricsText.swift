/// The Prometheus text exposition format, written once for both its
/// writers: a nightly run's `--metrics` file (`MetricsReport`, gauges) and
/// a follower's `/metrics` (`FollowMetrics`, counters and gauges). A
/// family is its `# HELP` and `# TYPE` lines, then one line a sample;
/// label values are escaped as the format asks (`\\`, `\"`, `\n`).
package struct MetricsText {
    package private(set) var text = ""

    package init() {}

    /// One family: `samples` are each a sample's labels and value.
    package mutating func family(_ name: String, _ type: String, _ help: String, _ samples: [([(String, String)], String)]) {
        text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
        for (labels, value) in samples {
            text += name
            if !labels.isEmpty { text += "{" + labels.map { "\($0.0)=\"\(Self.escapeLabel($0.1))\"" }.joined(separator: ",") + "}" }
            text += " " + value + "\n"
        }
    }

    /// A family of one sample without labels.
    package mutating func single(_ name: String, _ type: String, _ help: String, _ value: String) {
        family(name, type, help, [([], value)])
    }

    /// A label value as the text format asks: backslash, double quote and
    /// line feed escaped. Invalid UTF-8 cannot occur (Swift Strings).
    package static func escapeLabel(_ value: String) -> String {
        var out = ""
        for c in value.unicodeScalars {
            switch c {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }
}
