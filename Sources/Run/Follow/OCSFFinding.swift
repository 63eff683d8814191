import Rules

/// A finding as an OCSF Detection Finding (class 2004, schema 1.3.0), for
/// `flipaudit follow --findings-format ocsf`: what a SIEM that speaks OCSF
/// ingests as it is. docs/follow.md has the mapping; what OCSF has no
/// attribute for (state, client ID, redirect URI, source, outcome) is in
/// `unmapped`.
struct OCSFFinding: Encodable {
    struct Product: Encodable {
        var name = "flipaudit"
        var vendor_name = "flipaudit"
        var version = FlipAuditVersion.current
    }
    struct Metadata: Encodable {
        var product = Product()
        var version = "1.3.0"
    }
    struct Analytic: Encodable {
        var name: String
        var type = "Rule"
        var type_id = 1
        var uid: String
    }
    struct Info: Encodable {
        var analytic: Analytic
        var desc: String
        var first_seen_time: Int64
        var title: String
        var types: [String]
        var uid: String
    }
    struct Unmapped: Encodable {
        var client_id, redirect_uri, source, state: String
        var outcome: String?
    }

    var activity_id = 1
    var activity_name = "Create"
    var category_name = "Findings"
    var category_uid = 2
    var class_name = "Detection Finding"
    var class_uid = 2004
    var finding_info: Info
    var message: String
    var metadata = Metadata()
    var severity: String
    var severity_id: Int
    var status = "New"
    var status_id = 1
    var time: Int64
    var type_name = "Detection Finding: Create"
    var type_uid = 200_401
    var unmapped: Unmapped

    /// `fields`: the finding's NDJSON fields (its columns, `id`, `outcome`).
    init(_ f: Finding, fields: [String: String]) {
        let kind = f.kind.rawValue
        finding_info = Info(
            analytic: Analytic(name: kind, uid: kind), desc: f.detail, first_seen_time: f.time, title: kind, types: [kind], uid: fields["id"] ?? "")
        message = "\(kind): \(f.detail)"
        (severity, severity_id) =
            switch f.severity {
            case .info: ("Informational", 1)
            case .low: ("Low", 2)
            case .medium: ("Medium", 3)
            case .high: ("High", 4)
            case .critical: ("Critical", 5)
            }
        time = f.time
        // What OCSF has no attribute for, under the names NDJSON gives them.
        let text = { (c: FindingColumn) in fields[c.rawValue] ?? "" }
        unmapped = Unmapped(
            client_id: text(.clientID), redirect_uri: text(.redirectURI), source: text(.source), state: text(.state), outcome: fields["outcome"])
    }
}
