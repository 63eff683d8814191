import Reading

/// A deployment's streams (docs/contract.md §9): one server's consecutive
/// files — `access.log.2.gz`, `access.log.1`, `access.log`; `-YYYYMMDD`
/// names; in general inputs of one base name whose record times follow one
/// another without overlap — are one stream. Only a stream's last file
/// ends it: the watermark is the smallest of the streams' ends, never the
/// end of a file its server wrote on after. A stream whose last record
/// lies more than the session timeout before the newest stream's end is
/// quiet: it holds nothing back.
///
/// Which file continues which is known once both are read (the first's
/// newest record, the second's first): `ends` works the streams out then,
/// the same for one process (`Waiting`) and the distributed merge.
struct Streams: Sendable {
    /// A stream: its files in order and where it ends.
    struct End: Equatable, Sendable {
        /// Its last file (rank).
        var input: Int
        /// Its newest record, or the cut (`--cut-at`) when that is later.
        var end: Int64
        /// Its newest record itself.
        var last: Int64
        /// Its files in order, `input` last.
        var files: [Int]
    }

    /// Per input (rank order), its stream's base name.
    let keys: [String]
    /// Per input, its folder as named.
    private let folders: [String]
    /// Per base name, its inputs in rank order.
    private let members: [String: [Int]]

    init(inputs: [InputFile]) {
        keys = inputs.map { Self.baseName($0.displayName) }
        folders = inputs.map { Self.folder($0.displayName) }
        var members: [String: [Int]] = [:]
        for (index, key) in keys.enumerated() { members[key, default: []].append(index) }
        self.members = members
    }

    /// The input that continues input `index`, whose newest record is at
    /// `newest`: the first by rank of the same base name (in the same
    /// folder when the folder has one) whose first record (`starts`) is not
    /// before `newest` — and, at the same time, ranks after it.
    func successor(of index: Int, after newest: Int64, starts: [Int64?]) -> Int? {
        let candidates = (members[keys[index]] ?? []).filter { j in
            guard j != index, let start = starts[j] else { return false }
            return start > newest || (start == newest && j > index)
        }
        let sameFolder = candidates.filter { folders[$0] == folders[index] }
        return (sameFolder.isEmpty ? candidates : sameFolder).first
    }

    /// The streams once every input is read: per input, its first and
    /// newest audited record (nil: none). Each stream ends at its last
    /// file's newest record, or at `cut` when later.
    func ends(first: [Int64?], last: [Int64?], cut: Int64?) -> [End] {
        var before: [Int: [Int]] = [:]
        var ending: [Int] = []
        for (i, newest) in last.enumerated() {
            guard let newest else { continue }
            if let j = successor(of: i, after: newest, starts: first), last[j] != nil {
                before[j, default: []].append(i)
            } else {
                ending.append(i)
            }
        }
        // A file's stream: the files before it (each a chain), then it.
        func files(_ i: Int) -> [Int] { (before[i] ?? []).flatMap(files) + [i] }
        return ending.map { i in End(input: i, end: max(last[i]!, cut ?? last[i]!), last: last[i]!, files: files(i)) }
    }

    /// Whether a stream is quiet among `ends`: its last record lies more
    /// than `timeout` before the newest end.
    static func quiet(_ end: End, among ends: [End], timeout: Int64) -> Bool {
        end.last + timeout < (ends.map(\.end).max() ?? .min)
    }

    /// The watermark the streams give: the smallest end of those not
    /// quiet (the cut when every stream went quiet before it); nil when
    /// no stream had a record.
    static func watermark(_ ends: [End], timeout: Int64) -> Int64? {
        ends.filter { !quiet($0, among: ends, timeout: timeout) }.map(\.end).min() ?? ends.map(\.end).max()
    }

    /// The streams as a report tells them: files by name, by last record.
    static func summaries(_ ends: [End], names: [String], timeout: Int64) -> [StreamSummary] {
        ends.map { end in
            StreamSummary(files: end.files.map { names[$0] }, last: end.last, quiet: quiet(end, among: ends, timeout: timeout))
        }.sorted { ($0.last, $0.name) < ($1.last, $1.name) }
    }

    /// The name a server's rotated files share: the file name without its
    /// folder, compression suffixes, rotation numbers and date stamps
    /// (`access.log.2.gz`, `access.log-20261122.gz` and
    /// `access.2026-11-22.log` are all `access.log`).
    static func baseName(_ displayName: String) -> String {
        var name = Substring(displayName)
        if let slash = name.lastIndex(of: "/") { name = name[name.index(after: slash)...] }
        var text = Self.withoutDates(String(name))
        var changed = true
        while changed {
            changed = false
            for suffix in [".gz", ".bz2", ".xz", ".zst", ".lz4", ".Z"] where text.hasSuffix(suffix) && text.count > suffix.count {
                text.removeLast(suffix.count)
                changed = true
            }
            // A rotation number: access.log.1
            if let dot = text.lastIndex(of: "."), dot != text.startIndex {
                let tail = text[text.index(after: dot)...]
                if !tail.isEmpty, tail.allSatisfy({ $0.isASCII && $0.isNumber }) {
                    text = String(text[..<dot])
                    changed = true
                }
            }
        }
        return text.isEmpty ? String(name) : text
    }

    /// `name` without its date stamps: eight digits of a date (20261122,
    /// or 2026-11-22), with a separator before and an hour, minutes and
    /// seconds after (`T`, `_` or `-`, `:` optional) taken with them.
    static func withoutDates(_ name: String) -> String {
        let b = Array(name.utf8)
        func digit(_ i: Int) -> Bool { i < b.count && b[i] >= 0x30 && b[i] <= 0x39 }
        func digits(_ i: Int, _ n: Int) -> Bool { (i..<i + n).allSatisfy(digit) }
        var out: [UInt8] = []
        var i = 0
        while i < b.count {
            // A date: YYYY, -?, MM, -?, DD (year 19xx or 20xx).
            var j = i
            if b[j] == 0x2D || b[j] == 0x5F || b[j] == 0x2E { j += 1 }
            if digits(j, 4), b[j] == 0x31 || b[j] == 0x32 {
                var k = j + 4
                let dashed = k < b.count && b[k] == 0x2D
                if dashed { k += 1 }
                if digits(k, 2) {
                    k += 2
                    if dashed { if k < b.count && b[k] == 0x2D { k += 1 } else { k = -1 } }
                    if k > 0, digits(k, 2), !digit(k + 2) || (!dashed && !digit(k + 4) && digits(k + 2, 2)) {
                        k += 2
                        // An hour, and minutes and seconds, after it.
                        var t = k
                        if t < b.count && (b[t] == 0x54 || b[t] == 0x5F || b[t] == 0x2D) { t += 1 }
                        if digits(t, 2) {
                            t += 2
                            for _ in 0..<2 {
                                var u = t
                                if u < b.count && b[u] == 0x3A { u += 1 }
                                guard digits(u, 2) else { break }
                                t = u + 2
                            }
                            k = t
                        }
                        i = k
                        continue
                    }
                }
            }
            out.append(b[i])
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The folder of a path as named (empty for a bare name).
    static func folder(_ displayName: String) -> String {
        guard let slash = displayName.lastIndex(of: "/") else { return "" }
        return String(displayName[..<slash])
    }
}
