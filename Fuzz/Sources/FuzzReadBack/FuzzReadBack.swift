@_spi(Fuzzing) import FlipAuditCore
import FuzzDriver

/// What flipaudit writes and reads back — a checkpoint, the event sort's and
/// the row order's spill lines, a distributed job's plan and stage lines —
/// fed damaged bytes: every reader must refuse
/// or accept, never trap, and what it accepts must write back to bytes that
/// read back the same.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzReadBack(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: start, count: count))

    if let checkpoint = try? Checkpoint.decode(bytes) {
        let again = checkpoint.encoded()
        invariant((try? Checkpoint.decode(again)) == checkpoint, "a checkpoint read back differs once written again")
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

@_cdecl("FuzzReadBack_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzReadBack)
}
