import Audit
import Foundation
import Parsing
import Rules

/// `--csv DIR` with `{date}` (the UTC day of the night audited: the run's
/// watermark) and `{run}` (the chain's run number, with `--checkpoint`),
/// so that nightly jobs keep every night (`--csv /srv/dash/flip/{date}`).
/// The folder is known only once the audit is done: the files are written
/// beside its fixed part (the folder before the first placeholder), then
/// moved into it when the run commits its outputs.
enum CSVFolder {
    static let placeholders = ["{date}", "{run}"]

    /// Whether `path` names the folder by placeholders.
    static func isTemplate(_ path: String) -> Bool { placeholders.contains { path.contains($0) } }

    /// The existing part of a template: the folder before its first
    /// placeholder (`/srv/dash/flip` of `/srv/dash/flip/{date}`; `.` of
    /// `night-{date}`).
    static func prefix(_ template: String) -> String {
        let first = placeholders.compactMap { template.range(of: $0)?.lowerBound }.min()!
        let head = template[..<first]
        guard let slash = head.lastIndex(of: "/") else { return "." }
        return slash == head.startIndex ? "/" : String(head[..<slash])
    }

    /// The folder a template names for `result`: `{date}` is the day of
    /// the night that ends at its watermark (the millisecond before it, so
    /// a cut at midnight, `--cut-at 00:00`, names the night before; the
    /// run's start when no record was audited), `{run}` its checkpoint's
    /// run number.
    static func resolve(_ template: String, result: AuditResult) -> String {
        let day = String(Timestamp.iso8601(result.watermark.map { $0 - 1 } ?? result.configuration.now).prefix(10))
        var folder = template.replacingOccurrences(of: "{date}", with: day)
        if let run = result.checkpoint?.run { folder = folder.replacingOccurrences(of: "{run}", with: String(run)) }
        return folder
    }
}
