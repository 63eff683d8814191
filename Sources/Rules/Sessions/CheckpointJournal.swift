import Reading

/// A follower's commits between two snapshots (docs/follow.md, "Commits"):
/// a commit appends to `CHECKPOINT.journal` what changed since the commit
/// before, so that it writes and fsyncs bytes in proportion to the change,
/// not to all the reuse window remembers. Filebeat's registry (a log of
/// changes and a snapshot) and SQLite's write-ahead log are the models.
///
///     flipaudit follow journal 2   SHA-256 of the snapshot it follows
///     <a commit>                   a follow checkpoint, sealed: its small
///     <a commit>                   lines whole; `session`, `closed`, `state`
///     …                            and `code` only what changed since the
///                                  commit before
///
/// Read back, the snapshot and then each commit in order: a commit's small
/// lines (watermark, serial, files, positions, ids written) stand in for the
/// ones before; its `session` lines replace the sessions of their serials
/// or add them, its `closed` lines take sessions away, its `record` lines
/// (the records audited since) follow the ones before (those near the
/// last watermark are kept, each key once), and its remembered states and
/// codes are added to the ones before (the later time of a key wins); what has outlived the reuse window is left to the tracker that
/// takes it in, which drops it as a whole checkpoint's. A follower numbers
/// files by rank, so a commit's files extend the ones before; the loader
/// numbers what is read back afresh (`Checkpoint.renumbered`). Once the
/// journal is as large as its snapshot, the commit thread reads both back
/// so and writes them as the next snapshot (`compacted`). Version 1 (written
/// before sessions were journaled by change: every commit held every open
/// session) is read too. A journal of another snapshot (a
/// compaction that stopped between its two renames) is stale: the snapshot
/// holds it already. A last commit cut off (a stop in its write) is left
/// out: the commit before it stands, as after a stop before a commit.
package enum CheckpointJournal {
    static let magic = "flipaudit follow journal 2"
    static let magicV1 = "flipaudit follow journal 1"

    /// The journal's file beside a checkpoint's.
    package static func path(of checkpoint: String) -> String { checkpoint + ".journal" }

    /// A new journal's first line, for the snapshot `snapshot` (its bytes).
    package static func header(for snapshot: [UInt8]) -> [UInt8] {
        Array("\(magic)\t\(Checkpoint.hex(Array(SHA256.hash(data: snapshot))))\n".utf8)
    }

    /// One commit: `checkpoint` (a follower's, whose sessions are those
    /// written since the commit before) with only `states` and `codes`
    /// remembered.
    package static func commit(_ checkpoint: Checkpoint, states: [Checkpoint.Remembered], codes: [Checkpoint.Remembered]) -> [UInt8] {
        var block = checkpoint
        block.endedStates = states
        block.returnedCodes = codes
        return block.encoded()
    }

    /// What a journal read back made of its snapshot.
    package struct Read {
        package var checkpoint: Checkpoint
        /// Commits taken from the journal.
        package var commits = 0
        /// The bytes of a last commit cut off, left out (0: none).
        package var cutOff = 0
        /// The journal follows another snapshot: left out whole.
        package var stale = false
    }

    /// The checkpoint `snapshot` (read from `snapshotBytes`) and the
    /// `journal` after it hold. A damaged commit that is not the last is
    /// an error naming its line in the journal.
    package static func apply(_ journal: [UInt8], to snapshot: Checkpoint, snapshotBytes: [UInt8]) throws(Checkpoint.Damaged) -> Read {
        var read = Read(checkpoint: snapshot)
        let v1 = journal.starts(with: Array("\(magicV1)\t".utf8))
        var head = header(for: snapshotBytes)
        if v1 { head = Array("\(magicV1)".utf8) + head.drop { $0 != .tab } }
        guard v1 || journal.starts(with: Array("\(magic)\t".utf8)) else {
            throw Checkpoint.Damaged(description: "journal line 1: not a flipaudit follow journal")
        }
        guard journal.starts(with: head) else {
            read.stale = true
            return read
        }
        var sessions: [Int: CarriedSession] = [:]
        for s in snapshot.sessions { sessions[s.serial] = s }
        var records = snapshot.records
        // The journal's states and codes apart: the snapshot's, millions,
        // are merged with them once, at the end.
        var states: [UInt64: Int64] = [:]
        var codes: [UInt64: Int64] = [:]
        // Each commit ends at its `end` line.
        var start = head.count
        var line = 2
        var i = start
        var lineStart = start
        var firstLine = line
        while i < journal.count {
            guard journal[i] == .newline else {
                i += 1
                continue
            }
            let isEnd = journal[lineStart..<i].starts(with: "end\t".utf8)
            i += 1
            line += 1
            lineStart = i
            guard isEnd else { continue }
            let block = Array(journal[start..<i])
            let commit: Checkpoint
            do { commit = try Checkpoint.decode(block) } catch {
                throw Checkpoint.Damaged(description: "journal lines \(firstLine)–\(line - 1): \(error.description)")
            }
            guard commit.follow != nil, commit.key == snapshot.key else {
                throw Checkpoint.Damaged(description: "journal lines \(firstLine)–\(line - 1): not a commit of this follower's chain")
            }
            if !v1 {
                guard commit.files.starts(with: read.checkpoint.files) else {
                    throw Checkpoint.Damaged(description: "journal lines \(firstLine)–\(line - 1): its files do not extend the ones before")
                }
                for s in commit.sessions { sessions[s.serial] = s }
                for serial in commit.closed { sessions[serial] = nil }
                records += commit.records
            }
            for r in commit.endedStates { states[r.key] = max(states[r.key] ?? .min, r.time) }
            for r in commit.returnedCodes { codes[r.key] = max(codes[r.key] ?? .min, r.time) }
            read.checkpoint = commit
            read.commits += 1
            start = i
            firstLine = line
        }
        read.cutOff = journal.count - start
        read.checkpoint.endedStates = merged(snapshot.endedStates, states)
        read.checkpoint.returnedCodes = merged(snapshot.returnedCodes, codes)
        if !v1 {
            read.checkpoint.sessions = sessions.values.sorted { $0.serial < $1.serial }
            read.checkpoint.closed = []
            // Those near the last watermark, each key once (`DuplicateFilter.handedOn`).
            let from = read.checkpoint.watermark - AuditConfiguration.reorderWindow
            var seen = Set<UInt64>()
            read.checkpoint.records = records.filter { $0.time >= from && seen.insert($0.key).inserted }
        }
        return read
    }

    /// The snapshot a compaction writes (`CommitWriter`): what `read` (a
    /// snapshot and its whole journal, as a restart reads them) holds, less
    /// the states and codes the reuse window (`retention`) no longer holds
    /// at its watermark — what the follower's own snapshot at that commit
    /// would hold. Its files stay numbered by rank, as the last commit
    /// numbered them: the next commit's files extend them.
    package static func compacted(_ read: Read, retention: Int64) -> Checkpoint {
        var checkpoint = read.checkpoint
        let now = checkpoint.watermark
        checkpoint.endedStates.removeAll { now - $0.time > retention }
        checkpoint.returnedCodes.removeAll { now - $0.time > retention }
        return checkpoint
    }

    /// A snapshot's remembered keys and the journal's, each key once at
    /// its later time, by time and then key as a whole checkpoint lists
    /// them. The snapshot's are in that order already (checked): they are
    /// looked up in the journal's, not hashed into a table with them.
    static func merged(_ snapshot: [Checkpoint.Remembered], _ journal: [UInt64: Int64]) -> [Checkpoint.Remembered] {
        func packed(_ entry: (key: UInt64, value: Int64)) -> UInt128 { Checkpoint.Remembered(key: entry.key, time: entry.value).packed }
        var ordered = true
        for i in snapshot.indices.dropFirst() where snapshot[i - 1].packed >= snapshot[i].packed {
            ordered = false
            break
        }
        guard ordered else {
            var all = journal
            for r in snapshot { all[r.key] = max(all[r.key] ?? .min, r.time) }
            return all.map(packed).sorted().map(Checkpoint.Remembered.init(packed:))
        }
        guard !journal.isEmpty else { return snapshot }
        // A key in both keeps its later time, from the journal's side.
        var later = journal
        var kept: [Checkpoint.Remembered] = []
        kept.reserveCapacity(snapshot.count)
        for r in snapshot {
            if let t = later[r.key] {
                if r.time > t { later[r.key] = r.time }
            } else {
                kept.append(r)
            }
        }
        let added = later.map(packed).sorted()
        var out: [Checkpoint.Remembered] = []
        out.reserveCapacity(kept.count + added.count)
        var j = 0
        for r in kept {
            let p = r.packed
            while j < added.count && added[j] < p {
                out.append(Checkpoint.Remembered(packed: added[j]))
                j += 1
            }
            out.append(r)
        }
        for p in added[j...] { out.append(Checkpoint.Remembered(packed: p)) }
        return out
    }
}
