import Parsing

/// One finding: docs/contract.md §4's kind, severity, session state, a one-line detail
/// and the record that shows it.
package struct Finding: Sendable {
    package var kind: FindingKind
    package var time: Int64
    package var state: String
    package var clientID: String
    package var redirectURI: String
    package var detail: String
    package var source: SourceRef
    package var severity: Severity { kind.severity }

    package init(kind: FindingKind, time: Int64, state: String, clientID: String, redirectURI: String, detail: String, source: SourceRef) {
        self.kind = kind
        self.time = time
        self.state = state
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.detail = detail
        self.source = source
    }
}

extension Finding {
    /// A column's text, `source` its `FILE:LINE`: the one serialisation of a
    /// finding. `findings.csv` writes these columns in this order as bytes
    /// (`CSVReport`, escaped as cells); a follower's NDJSON lines and OCSF's
    /// `unmapped` take their keys and values from here (`FindingStream`).
    package func text(_ column: FindingColumn, source: String) -> String {
        switch column {
        case .time: return Timestamp.iso8601(time)
        case .severity: return severity.rawValue
        case .kind: return kind.rawValue
        case .state: return state
        case .clientID: return clientID
        case .redirectURI: return redirectURI
        case .detail: return detail
        case .source: return source
        }
    }
}
