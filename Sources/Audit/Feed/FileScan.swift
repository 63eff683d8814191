import Rules

/// What one input produced once it is read to its end.
struct FileScan: Sendable {
    var accounting: InputAccounting
    var locationLines: LocationLines
    var latestTime: Int64?
    /// Its first audited record's time (nil: none): where its stream
    /// takes it up (`Streams`).
    var firstTime: Int64? = nil
    /// Its first flip records that could have a twin (`Tiers.detect`).
    var sample = TwinSample()
    var summary: FileSummary
    /// `NAME: message` when the input could not be read completely.
    var error: String?
    /// Messages for standard error, in line order (the first malformed
    /// lines, then the read error).
    var warnings: [String]
    /// Its times were read in `--tz` (a format whose times carry no zone):
    /// what `ClockOffset`'s advice names.
    var zoneless = false
}
