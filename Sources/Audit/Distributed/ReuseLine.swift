import Reading
import Rules

/// A `code-reuse` finding as the code stage writes it for the merge: the
/// session it is raised on (by its first record), then the finding.
///
///     reuse   session-rank   session-line   finding (RowCodec)
package enum ReuseLine {
    package typealias Malformed = TextFields.Malformed
    static let tag = "reuse"

    package static func encode(session: SourceRef, _ finding: Finding, into out: inout [UInt8]) {
        out.append(contentsOf: tag.utf8)
        out.append(.tab)
        SortFields.source(session, &out)
        out.append(.tab)
        RowCodec.encode(finding, into: &out)
    }

    /// The session and finding of a line that starts with `reuse`.
    package static func decode(_ line: ArraySlice<UInt8>) throws(Malformed) -> (session: SourceRef, finding: Finding) {
        let f = line.split(separator: .tab, maxSplits: 3, omittingEmptySubsequences: false)
        guard f.count == 4, f[0].elementsEqual(tag.utf8) else { throw Malformed(reason: "not a reuse line") }
        let finding = try RowCodec.finding(f[3])
        guard finding.kind == .codeReuse else { throw Malformed(reason: "a reuse line holds another finding") }
        return (try SortFields.source(f[1], f[2]), finding)
    }
}
