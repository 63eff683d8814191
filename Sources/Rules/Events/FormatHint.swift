import Parsing

extension FormatTally {
    /// The one warning for an input most of whose non-blank lines are
    /// malformed (docs/formats.md): the share, and the formats that would
    /// read them, by name, with the option that reads them; nil otherwise.
    package static func hint(_ accounting: InputAccounting, tally: FormatTally, setting: AuditConfiguration.Format) -> String? {
        let written = accounting.lines - accounting.blankLines
        guard written > 0, accounting.malformedLines * 2 > written else { return nil }
        let percent = (accounting.malformedLines * 100) / written
        let tried: String
        switch setting {
        case .auto: tried = "read in every format flipaudit knows (each line on its own)"
        case .fixed(let format): tried = "read as --format \(format.name)"
        case .logFormat: tried = "read with --log-format"
        }
        let share = "\(tried), \(percent)% of its lines (\(accounting.malformedLines) of \(written)) are malformed"
        let why = accounting.malformedByReason.max { a, b in (a.value, b.key) < (b.value, a.key) }.map { " (mostly: \($0.key))" } ?? ""
        // Most of them parsed (dated in the future, over-long, NUL or not
        // UTF-8): another format is not the answer, and is not proposed.
        if tally.unparsed * 2 <= accounting.malformedLines {
            let future = accounting.malformedByReason[MalformedReason.future.rawValue] ?? 0
            if future * 2 > accounting.malformedLines {
                return "\(share) (mostly: \(MalformedReason.future.rawValue): dated more than an hour after the run's start; "
                    + "check the clock, or give --now the time the night was audited at)"
            }
            return "\(share)\(why)"
        }
        guard let best = tally.bestFit, best.lines * 2 > tally.unparsed else {
            let advice: String
            switch setting {
            case .logFormat: advice = "; check the --log-format against the server's configuration"
            default:
                advice =
                    "; if the server writes its own layout, give it with --log-format (an nginx log_format, an Apache LogFormat or an HAProxy log-format), "
                    + "or map a JSON log with --json-field ROLE=PATH (docs/formats.md)"
            }
            return "\(share)\(why), and no format flipaudit knows reads them\(advice)"
        }
        let advice: String
        switch setting {
        case .auto: advice = ""
        case .logFormat: advice = ": leave out --log-format"
        case .fixed: advice = ": try --format auto (or --format \(best.format.name))"
        }
        return "\(share); \(best.lines) of them read as \(best.format.name)\(advice)"
    }
}
