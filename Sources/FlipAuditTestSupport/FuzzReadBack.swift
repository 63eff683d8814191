import Audit
import Rules

/// What flipaudit writes and reads back — a checkpoint, the event sort's and
/// the row order's spill lines, a distributed job's plan and stage lines —
/// fed damaged bytes: every reader must refuse
/// or accept, never trap, and what it accepts must write back to bytes that
/// read back the same.
public func fuzzReadBack(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: start, count: count))

    if let checkpoint = try? Checkpoint.decode(bytes) {
        let again = checkpoint.encoded()
        invariant((try? Checkpoint.decode(again)) == checkpoint, "a checkpoint read back differs once written again")
        carryOn(checkpoint)
    }
    // The same bytes as a checkpoint's body under a valid seal: the field
    // checks, not the seal, must refuse a forged value, and whatever they
    // accept must not trap when a run takes it in and hands it on.
    if let checkpoint = try? Checkpoint.decode(Checkpoint.sealing(bytes)) {
        invariant((try? Checkpoint.decode(checkpoint.encoded())) == checkpoint, "a sealed checkpoint differs once written again")
        carryOn(checkpoint)
    }

    // The same bytes as a follower's journal after a snapshot (its header
    // first, so that the commits are read): refused or read, never a trap;
    // what it reads writes back to a checkpoint that reads back the same.
    let snapshot = journalSnapshot
    let snapshotBytes = snapshot.encoded()
    for journal in [bytes, CheckpointJournal.header(for: snapshotBytes) + bytes] {
        if let read = try? CheckpointJournal.apply(journal, to: snapshot, snapshotBytes: snapshotBytes) {
            invariant(read.cutOff >= 0 && read.cutOff <= journal.count, "a journal's cut-off bytes lie outside it")
            invariant((try? Checkpoint.decode(read.checkpoint.encoded())) == read.checkpoint, "a checkpoint read from a journal differs once written again")
            carryOn(read.checkpoint)
        }
    }

    if let plan = try? JobPlan.decode(bytes, name: "plan") {
        invariant((try? JobPlan.decode(plan.encoded(), name: "plan")) == plan, "a plan read back differs once written again")
    }

    var codec = EventCodec(allowlist: Allowlist(projectIDs: ["my-project"]))
    for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
        if let event = try? codec.decode(line) {
            var once: [UInt8] = []
            EventCodec.encode(event, into: &once)
            guard let back = try? codec.decode(once.dropLast()) else {
                invariant(false, "an event line read back does not read again once written")
                continue
            }
            var twice: [UInt8] = []
            EventCodec.encode(back, into: &twice)
            invariant(once == twice, "an event line changes each time it is written")
        }
        if let (_, event) = try? EventLine.decode(line, codec: &codec) {
            var once: [UInt8] = []
            EventLine.encode(event, into: &once)
            invariant(once.dropLast().elementsEqual(line), "a stage event line read back is not the line once written")
        }
        if let code = try? CodeLine.decode(line) {
            var once: [UInt8] = []
            CodeLine.encode(code, into: &once)
            invariant((try? CodeLine.decode(once.dropLast())) == code, "a code line changes once written again")
        }
        if let facts = try? FileFacts.decode(line) {
            var once: [UInt8] = []
            facts.encode(into: &once)
            invariant((try? FileFacts.decode(once.dropLast())) == facts, "a facts line changes once written again")
        }
        if let (session, finding) = try? ReuseLine.decode(line) {
            var once: [UInt8] = []
            ReuseLine.encode(session: session, finding, into: &once)
            let back = try? ReuseLine.decode(once.dropLast())
            invariant(
                back?.session == session && back.map { String(describing: $0.finding) } == String(describing: finding),
                "a reuse line changes once written again")
        }
        if let row = try? RowCodec.session(line) {
            var once: [UInt8] = []
            RowCodec.encode(row, into: &once)
            invariant(
                (try? RowCodec.session(once.dropLast())).map { String(describing: $0) } == String(describing: row),
                "a session row changes once written again")
        }
        if let row = try? RowCodec.finding(line) {
            var once: [UInt8] = []
            RowCodec.encode(row, into: &once)
            invariant(
                (try? RowCodec.finding(once.dropLast())).map { String(describing: $0) } == String(describing: row),
                "a finding row changes once written again")
        }
    }
    return 0
}

/// Takes a checkpoint in as a run does (with a small --max-sessions, so
/// carried sessions are closed early too) and hands it on a little later.
private func carryOn(_ checkpoint: Checkpoint) {
    var configuration = AuditConfiguration()
    configuration.maxSessions = 2
    configuration.fingerprint = checkpoint.key.count == 32 ? checkpoint.fingerprint : .keyed(Array(repeating: 1, count: 32))
    let sink = DiscardingSink()
    let tracker = SessionTracker(configuration: configuration, files: 1, sink: sink, carried: checkpoint)
    let next = tracker.carry(watermark: checkpoint.watermark + 600_000, names: ["fuzz.log"])
    invariant(next.openSessions <= 2, "more sessions carried than --max-sessions")
}

/// An audit sink that keeps nothing.
private final class DiscardingSink: AuditSink {
    func finding(_ finding: consuming Finding) {}
    func sessionClosed(_ session: consuming SessionRecord) {}
}

/// A follower's snapshot for the journal's read-back.
private let journalSnapshot: Checkpoint = {
    let body = [
        "flipaudit follow checkpoint 1", "watermark\t1795953977263", "key\t" + String(repeating: "b1", count: 32), "serial\t21", "run\t1",
        "file\t0\taccess.log", "state\tb4b8e2f8fd6f1342\t1795937648000", "position\t65024\t1114216\t2f483a23f0b85e3f\t56978\t300\taccess.log",
        "source\t0\t2f483a23f0b85e3f", "findings\t65024\t1114233\t407",
    ]
    return try! Checkpoint.decode(Checkpoint.sealing(Array(body.map { $0 + "\n" }.joined().utf8)))
}()
