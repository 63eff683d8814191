import DequeModule

/// Decides which flip records are duplicates (docs/contract.md §8): a
/// record whose line bytes equal those of a record of another input (a
/// file kept twice, two shippers' copies), or of a record the previous run
/// audited near its end (the end of a night fed again). A duplicate is
/// counted and not audited; the first copy in the audit order is.
/// Identical lines within one input are all audited: a double tap logged
/// in one second is real traffic. So a line held n times by one input and
/// m times by another is audited max(n, m) times: the copies of the input
/// that ranks first, then those of a later input past that count.
///
/// Equal bytes mean an equal time, and events come in time order, so only
/// the keys of the current time are needed to compare inputs; the keys of
/// the records the checkpoint hands on (`recent`) are kept for the reuse
/// window, as the remembered states are.
///
/// Not `Sendable`: one audit thread owns it.
package struct DuplicateFilter {
    /// Keys of the records audited at `time`: how many copies were
    /// admitted, and how many the input read now holds so far. Events come
    /// in (time, file, line) order, so one input's copies come together.
    private var atTime: [FingerprintKey: Copies] = [:]
    private struct Copies {
        var admitted: Int32
        var file: Int32
        var inFile: Int32
    }
    private var time = Int64.min
    /// Keys of the records the previous run audited in its last reorder
    /// window and after it.
    private let carried: Set<FingerprintKey>
    /// Audited records, oldest first, for the next checkpoint: those not
    /// older than its watermark less the reorder window go into it.
    private var recent: Deque<Checkpoint.Remembered>
    /// How long `recent` keeps a record (the reuse window); nil when no
    /// checkpoint is written, and `recent` stays empty.
    private let retention: Int64?
    /// Records put in `recent` since `takeAdded` (a follower's journal).
    private var added = 0
    /// Records left out as duplicates.
    package var count = 0
    /// Off, every record is admitted: lines were not fingerprinted (one
    /// input and no checkpoint, where no record can be a duplicate).
    private let on: Bool

    package init(carried: [Checkpoint.Remembered] = [], retention: Int64?, on: Bool = true) {
        self.on = on
        self.carried = Set(carried.map { FingerprintKey($0.key) })
        recent = Deque(carried.sorted { ($0.time, $0.key) < ($1.time, $1.key) })
        self.retention = retention
    }

    /// Whether `event` is audited; a duplicate is counted instead. Events
    /// come in (time, file, line) order.
    package mutating func admits(_ event: FlipEvent) -> Bool {
        guard on else { return true }
        if event.time != time {
            time = event.time
            atTime.removeAll(keepingCapacity: true)
            if let retention { while let first = recent.first, first.time < time - retention { recent.removeFirst() } }
        }
        let key = FingerprintKey(event.lineKey)
        if carried.contains(key) {
            count += 1
            return false
        }
        var copies = atTime[key] ?? Copies(admitted: 0, file: event.source.file, inFile: 0)
        if copies.file != event.source.file { (copies.file, copies.inFile) = (event.source.file, 0) }
        copies.inFile += 1
        let admitted = copies.inFile > copies.admitted
        if admitted { copies.admitted += 1 }
        atTime[key] = copies
        guard admitted else {
            count += 1
            return false
        }
        if retention != nil {
            recent.append(Checkpoint.Remembered(key: event.lineKey, time: event.time))
            added += 1
        }
        return true
    }

    /// The records a checkpoint with watermark `watermark` keeps: those
    /// not older than it by more than the reorder window, each key once.
    package func handedOn(watermark: Int64) -> [Checkpoint.Remembered] {
        let from = watermark - AuditConfiguration.reorderWindow
        var seen = Set<FingerprintKey>()
        return recent.filter { $0.time >= from && seen.insert(FingerprintKey($0.key)).inserted }
    }

    /// A follower's journal commit: the records audited since the last
    /// take (or `startAdding`) not older than the watermark less the
    /// reorder window, in the order they came; read back after the ones
    /// before them, they make `handedOn` of the whole (`CheckpointJournal`).
    package mutating func takeAdded(watermark: Int64) -> [Checkpoint.Remembered] {
        let from = watermark - AuditConfiguration.reorderWindow
        defer { added = 0 }
        return recent.suffix(min(added, recent.count)).filter { $0.time >= from }
    }

    /// Counts the records added from a whole checkpoint on.
    package mutating func startAdding() { added = 0 }

    /// Forgets the current time's keys, for a reducer that audits one
    /// state's events at a time (the distributed session stage).
    package mutating func forget() {
        atTime.removeAll(keepingCapacity: true)
        time = .min
        recent.removeAll()
    }
}
