import Reading

/// A state as a dictionary key: its 64-bit `Fingerprint` is computed once,
/// on the scanning thread, and is all that is hashed; equality still
/// compares the text, so two states that collide stay apart.
struct StateKey: Hashable {
    let hash: UInt64
    let text: String

    init(_ text: String, fingerprint: Fingerprint = .process) {
        self.text = text
        hash = fingerprint.of(text)
    }

    func hash(into hasher: inout Hasher) { hasher.combine(hash) }
    static func == (a: Self, b: Self) -> Bool { a.hash == b.hash && a.text == b.text }
}
