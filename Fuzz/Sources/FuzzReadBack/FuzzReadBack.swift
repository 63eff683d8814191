@_spi(Fuzzing) import FlipAuditCore
import FuzzDriver

/// What flipaudit writes and reads back — a checkpoint, the event sort's and
/// the row order's spill lines — fed damaged bytes: every reader must refuse
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
