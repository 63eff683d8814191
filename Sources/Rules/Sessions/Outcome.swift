/// How a session ended (docs/contract.md §3).
package enum Outcome: String, CaseIterable, Sendable, Codable, Comparable {
    case code, error, empty, failed, rejected
    case noReturn = "no-return"
    case pending, unobservable
    /// Closed by `--max-sessions` before its timeout, with no return and
    /// no failure: no verdict can be given.
    case closedEarly = "closed-early"

    package static func < (a: Self, b: Self) -> Bool { a.rank < b.rank }
    /// By rank, not by the raw String.
    package func hash(into hasher: inout Hasher) { hasher.combine(rank) }
    package var rank: Int {
        switch self {
        case .code: return 0
        case .error: return 1
        case .empty: return 2
        case .failed: return 3
        case .rejected: return 4
        case .noReturn: return 5
        case .pending: return 6
        case .unobservable: return 7
        case .closedEarly: return 8
        }
    }
}
