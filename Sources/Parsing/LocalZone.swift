/// A time zone as its UTC offsets over time, for the formats whose times
/// carry no zone (HAProxy's accept date): `--tz ZONE`. Built once from the
/// zone database (`AuditConfiguration.zone(named:)`); reading a time is a
/// binary search, no Foundation on the hot path.
package struct LocalZone: Sendable, Equatable {
    /// The zone's name as given (`Europe/Berlin`, `+01:00`).
    package let name: String
    /// From each instant (ms since the epoch, UTC) on, the offset east of
    /// UTC in ms; sorted, the first from the earliest time.
    package let offsets: [(from: Int64, offset: Int64)]

    package init(name: String, offsets: [(from: Int64, offset: Int64)]) {
        self.name = name
        self.offsets = offsets.isEmpty ? [(from: Int64.min, offset: Int64(0))] : offsets
    }

    package static func == (a: LocalZone, b: LocalZone) -> Bool {
        a.name == b.name && a.offsets.map(\.from) == b.offsets.map(\.from) && a.offsets.map(\.offset) == b.offsets.map(\.offset)
    }

    /// The offset in force at the UTC instant `utc`.
    package func offset(at utc: Int64) -> Int64 {
        var lo = 0
        var hi = offsets.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if offsets[mid].from <= utc { lo = mid } else { hi = mid - 1 }
        }
        return offsets[lo].offset
    }

    /// The UTC instant of a local wall-clock time (as if it were UTC). A
    /// time that a clock change skips or repeats reads with the offset of
    /// the instant it would be at the earlier offset.
    package func utc(fromLocal local: Int64) -> Int64 {
        let first = offset(at: local &- offsets[0].offset)
        let second = offset(at: local &- first)
        return local &- second
    }
}
