import Reading

/// A stage's shuffled input: the lines of a `LineSource`, which must come
/// in strictly increasing byte order (`LC_ALL=C sort`; a line twice means a
/// record was read twice). Each line is handed on with its key (the first
/// field) and whether that key differs from the line before.
/// Not `Sendable`: one thread reads it.
final class SortedLines {
    let source: LineSource
    private var previous: [UInt8] = []
    private var started = false

    init(_ source: LineSource) { self.source = source }

    /// The next line, and whether it starts a new key; nil at the end.
    func next() throws(StageError) -> (line: ArraySlice<UInt8>, newKey: Bool)? {
        guard let line = try source.next() else { return nil }
        guard !started || previous.lexicographicallyPrecedes(line) else {
            throw StageError(source, previous.elementsEqual(line) ? "a line repeats the one before it" : "not sorted as bytes (LC_ALL=C sort)")
        }
        guard let tab = line.firstIndex(of: .tab) else { throw StageError(source, "no key field") }
        let newKey = !started || !previous.starts(with: line[...tab])
        started = true
        previous.removeAll(keepingCapacity: true)
        previous.append(contentsOf: line)
        return (line, newKey)
    }
}
