/// A checkpoint's files numbered by first use: it lists only the files its
/// sessions (and waiting records) name, in the order they are first named.
/// `SessionTracker.snapshot` numbers a run's inputs so, and
/// `Checkpoint.renumbered` a follower's files read back.
struct FileNumbering {
    /// The names of the numbers sources carry now.
    private let names: [String]
    private var index: [Int32: Int32] = [:]
    /// The listed files' names, in their new order.
    private(set) var files: [String] = []
    /// For each new number, the number it had.
    private(set) var old: [Int32] = []

    init(names: [String]) { self.names = names }

    /// `source` with its file's new number (given at its first use).
    mutating func map(_ source: SourceRef) -> SourceRef {
        if let i = index[source.file] { return SourceRef(file: i, line: source.line) }
        let i = Int32(files.count)
        index[source.file] = i
        old.append(source.file)
        files.append(names.indices.contains(Int(source.file)) ? names[Int(source.file)] : "?")
        return SourceRef(file: i, line: source.line)
    }
}
