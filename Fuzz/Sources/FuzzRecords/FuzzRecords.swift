import FlipAuditTestSupport
import FuzzDriver

// The target's checks are in the main package (`FlipAuditTestSupport`),
// beside the code they fuzz; this is libFuzzer's entry to them.
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    fuzzRecords(start, count)
}

@_cdecl("FuzzRecords_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, testOneInput)
}
