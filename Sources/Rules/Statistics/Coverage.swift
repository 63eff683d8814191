import Parsing

/// What a run could check: clean is not blind. "0 findings" means "looked
/// and found nothing" only when the verdict is `complete`; `partial` names
/// each check that did not run and where; `blind` — an input more than half
/// of whose non-blank lines were not understood, or no line understood at
/// all — never passes (exit 5, docs/contract.md §5).
package struct Coverage: Sendable, Equatable {
    package enum Verdict: String, Sendable, CaseIterable {
        case complete, partial, blind
    }

    /// A check that did not run, or ran on part of the input.
    package struct Gap: Sendable, Equatable {
        /// One of `checks`: the metrics label and the JSON `check`.
        package var check: String
        /// What did not run, and where, in a sentence.
        package var detail: String
    }

    package static let checks = ["read", "input", "seen", "returns", "client-id", "truncated", "future", "window", "waiting"]

    package var verdict: Verdict
    /// Every gap, `read` (the blind inputs) first.
    package var gaps: [Gap]
    /// Configured client IDs (`--client-id`) that no in-scope request
    /// carried: a typo turns every request into a mismatch.
    package var unseenClientIDs: [String]

    /// The judgement over a run's inputs and what its rules saw.
    /// `unobservable` are the inputs whose sessions could not show a return.
    package static func judge(
        files: [FileSummary], accounting: InputAccounting, inputErrors: [String], unobservable: [String],
        clientIDs: Set<String>, clientIDsSeen: Set<String>,
        waiting: (count: Int, stream: String, watermark: Int64)? = nil, skipped: [String] = []
    ) -> Coverage {
        var gaps: [Gap] = []
        var blind = false
        // Lines read in their format but refused for their time were
        // understood: a one-line file dated 2099 is not a blind input.
        for f in files {
            let malformed = f.malformedLines ?? 0
            let written = (f.records ?? 0) + malformed + (f.notices ?? 0)
            let notUnderstood = malformed - (f.refusedLines ?? 0)
            guard written > 0, notUnderstood * 2 > written else { continue }
            blind = true
            let percent = notUnderstood * 100 / written
            let why = f.hint.map { ": " + $0 } ?? ""
            gaps.append(
                Gap(check: "read", detail: "\(f.name): \(percent)% of its \(written) lines not understood (format \(f.format))\(why)"))
        }
        let written = accounting.records + accounting.malformedLines + accounting.notices
        let refused = accounting.malformedByReason[MalformedReason.future.rawValue] ?? 0
        if accounting.records + refused + accounting.notices == 0 && written > 0 && !blind {
            blind = true
            gaps.append(Gap(check: "read", detail: "no line of any input was understood"))
        }
        for error in inputErrors { gaps.append(Gap(check: "input", detail: "not read completely: \(error)")) }
        for told in skipped { gaps.append(Gap(check: "seen", detail: told + ": skipped, not audited again")) }
        if !unobservable.isEmpty {
            let formats = Dictionary(files.map { ($0.name, $0.format) }, uniquingKeysWith: { a, _ in a })
            let names = unobservable.map { "\($0) (\(formats[$0] ?? "?"))" }.joined(separator: ", ")
            gaps.append(
                Gap(
                    check: "returns",
                    detail:
                        "returns to Google not observable (no Location logged) in \(names): the code, error-return and redirect checks did not run on their sessions"
                ))
        }
        let unseen = clientIDs.subtracting(clientIDsSeen).sorted()
        if accounting.inScopeFlipRecords > 0 {
            if clientIDs.isEmpty {
                gaps.append(Gap(check: "client-id", detail: "client IDs not checked: no --client-id given"))
            } else if clientIDsSeen.isEmpty {
                gaps.append(
                    Gap(
                        check: "client-id",
                        detail: "client IDs not checked: no in-scope request carried --client-id \(unseen.joined(separator: ", ")) (a typo?)"))
            }
        }
        let truncated = accounting.malformedByReason[MalformedReason.truncated.rawValue] ?? 0
        if truncated > 0 {
            gaps.append(
                Gap(
                    check: "truncated",
                    detail: "\(truncated) \(truncated == 1 ? "line was" : "lines were") truncated by the server that wrote it (not audited): "
                        + "raise its limit (HAProxy: log … len 8192; Varnish: varnishd -p vsl_reclen=4084)"
                ))
        }
        let future = accounting.malformedByReason[MalformedReason.future.rawValue] ?? 0
        if future > 0 {
            gaps.append(
                Gap(
                    check: "future",
                    detail: "\(future) \(future == 1 ? "record is" : "records are") dated more than an hour after the run's start (not audited)"))
        }
        if accounting.outsideRecords > 0 {
            // Asked for, but still not looked at: a window that held no
            // record must not read as a clean night.
            let audited = accounting.records - accounting.outsideRecords - accounting.lateRecords
            gaps.append(
                Gap(
                    check: "window",
                    detail: "\(accounting.outsideRecords) records outside --since/--until were not audited"
                        + (audited <= 0 ? "; no record fell inside the window" : "")))
        }
        if let waiting {
            gaps.append(
                Gap(
                    check: "waiting",
                    detail:
                        "\(waiting.count) flip \(waiting.count == 1 ? "record waits" : "records wait") for the next run: after the watermark "
                        + "\(Timestamp.iso8601(waiting.watermark)), where \(waiting.stream) ends (--cut-at says when the logs were cut)"))
        }
        let verdict: Verdict = blind ? .blind : gaps.isEmpty ? .complete : .partial
        return Coverage(verdict: verdict, gaps: gaps, unseenClientIDs: clientIDsSeen.isEmpty ? [] : unseen)
    }
}
