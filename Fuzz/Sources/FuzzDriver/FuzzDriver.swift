/// libFuzzer's entry for programs that have a `main` of their own. SwiftPM
/// links executables with `main` aliased to `<Module>_main`, so each fuzz
/// target defines that symbol and hands control to libFuzzer here.
@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// Runs libFuzzer with the process arguments and `body` as the test function.
public func runFuzzer(
    _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
    _ body: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt {
    var count = argc
    var values = argv
    return LLVMFuzzerRunDriver(&count, &values, body)
}
