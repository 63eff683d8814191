import Reading

/// What a follow checkpoint holds beyond a nightly one (docs/follow.md):
/// where each followed file was read to, which file each carried source
/// rank was (for finding ids), and how long the findings file was at the
/// commit. A checkpoint with it is a follow checkpoint; a nightly run
/// refuses it, and `flipaudit follow` refuses one without it.
///
///     position  DEVICE  INODE  FINGERPRINT  OFFSET  LINES  NAME
///     source    INDEX  FINGERPRINT
///     findings  DEVICE  INODE  SIZE
///     written   ID  TIME
///
/// `written` lines name findings written before the commit whose records
/// lie past the positions (a restart that was stopped before it read them
/// again): the rules will decide them again, and they are not written twice.
package struct FollowState: Sendable, Equatable {
    /// A followed file read up to `offset` (a line boundary) and `lines`
    /// lines: it is found again by its identity, under any name.
    package struct Position: Sendable, Equatable {
        package var device: UInt64
        package var inode: UInt64
        /// The keyed fingerprint of its first line; `empty` when it had none.
        package var fingerprint: UInt64
        package static let empty: UInt64 = 0
        package var offset: Int64
        package var lines: Int64
        /// The name it was read under.
        package var name: String

        package init(device: UInt64, inode: UInt64, fingerprint: UInt64, offset: Int64, lines: Int64, name: String) {
            self.device = device
            self.inode = inode
            self.fingerprint = fingerprint
            self.offset = offset
            self.lines = lines
            self.name = name
        }
    }

    /// The findings file as the commit left it: what a restart finds past
    /// `size` in that file was written after the commit.
    package struct FindingsMark: Sendable, Equatable {
        package var device: UInt64
        package var inode: UInt64
        package var size: Int64

        package init(device: UInt64, inode: UInt64, size: Int64) {
            self.device = device
            self.inode = inode
            self.size = size
        }
    }

    package var positions: [Position] = []
    /// By the checkpoint's file index: the fingerprint of that file's
    /// first line.
    package var sources: [Int: UInt64] = [:]
    package var findings: FindingsMark?
    /// Finding ids (and their times) written but not decided again yet.
    package var written: [UInt64: Int64] = [:]

    package init(positions: [Position] = [], sources: [Int: UInt64] = [:], findings: FindingsMark? = nil, written: [UInt64: Int64] = [:]) {
        self.positions = positions
        self.sources = sources
        self.findings = findings
        self.written = written
    }

    /// Appends its lines to a checkpoint's body; returns how many.
    func encode(into out: inout [UInt8]) -> Int {
        typealias F = TextFields
        var lines = 0
        for p in positions {
            out.append(contentsOf: "position".utf8)
            F.tab(&out); F.number(Int64(bitPattern: p.device), &out)
            F.tab(&out); F.number(Int64(bitPattern: p.inode), &out)
            F.tab(&out); F.hex16(p.fingerprint, &out)
            F.tab(&out); F.number(p.offset, &out)
            F.tab(&out); F.number(p.lines, &out)
            F.tab(&out); F.text(p.name, &out)
            out.append(.newline)
            lines += 1
        }
        for (index, fingerprint) in sources.sorted(by: { $0.key < $1.key }) {
            out.append(contentsOf: "source".utf8)
            F.tab(&out); F.number(Int64(index), &out)
            F.tab(&out); F.hex16(fingerprint, &out)
            out.append(.newline)
            lines += 1
        }
        if let f = findings {
            out.append(contentsOf: "findings".utf8)
            F.tab(&out); F.number(Int64(bitPattern: f.device), &out)
            F.tab(&out); F.number(Int64(bitPattern: f.inode), &out)
            F.tab(&out); F.number(f.size, &out)
            out.append(.newline)
            lines += 1
        }
        for (id, time) in written.sorted(by: { $0.key < $1.key }) {
            out.append(contentsOf: "written".utf8)
            F.tab(&out); F.hex16(id, &out)
            F.tab(&out); F.number(time, &out)
            out.append(.newline)
            lines += 1
        }
        return lines
    }

    /// Reads one of its lines (`tag` and the rest); false when `tag` is
    /// not one of them.
    mutating func read(_ tag: String, _ rest: ArraySlice<UInt8>, files: Int) throws(TextFields.Malformed) -> Bool {
        typealias F = TextFields
        func count(_ field: ArraySlice<UInt8>, _ name: String) throws(TextFields.Malformed) -> Int64 {
            let n = try F.number(field, name)
            guard (0...(1 << 62)).contains(n) else { throw TextFields.Malformed(reason: "\(name) out of range") }
            return n
        }
        func id(_ field: ArraySlice<UInt8>, _ name: String) throws(TextFields.Malformed) -> UInt64 {
            UInt64(bitPattern: try F.number(field, name))
        }
        func fingerprint(_ field: ArraySlice<UInt8>) throws(TextFields.Malformed) -> UInt64 {
            guard let n = F.hex(field, width: 16) else { throw TextFields.Malformed(reason: "bad fingerprint") }
            return n
        }
        switch tag {
        case "position":
            let f = try F.split(rest, count: 6)
            positions.append(
                Position(
                    device: try id(f[0], "device"), inode: try id(f[1], "inode"), fingerprint: try fingerprint(f[2]),
                    offset: try count(f[3], "offset"), lines: try count(f[4], "lines"), name: try F.text(f[5])))
        case "source":
            let f = try F.split(rest, count: 2)
            let index = Int(try count(f[0], "file index"))
            guard index < files, sources[index] == nil else { throw TextFields.Malformed(reason: "source names no listed file, or one twice") }
            sources[index] = try fingerprint(f[1])
        case "findings":
            guard findings == nil else { throw TextFields.Malformed(reason: "a second findings line") }
            let f = try F.split(rest, count: 3)
            findings = FindingsMark(device: try id(f[0], "device"), inode: try id(f[1], "inode"), size: try count(f[2], "size"))
        case "written":
            let f = try F.split(rest, count: 2)
            let id = try fingerprint(f[0])
            guard written[id] == nil else { throw TextFields.Malformed(reason: "a finding id twice") }
            written[id] = try F.time(f[1], "time")
        default:
            return false
        }
        return true
    }
}
