/// Stops the run with a message libFuzzer reports as a crash: an invariant
/// that the code under test broke.
func invariant(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError("invariant broken: \(message())") }
}
