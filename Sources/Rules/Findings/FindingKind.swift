/// How bad a finding is. Ordered: `critical` > `high` > `medium` > `low` > `info`.
package enum Severity: String, CaseIterable, Sendable, Comparable, Codable {
    case info, low, medium, high, critical

    package static func < (a: Self, b: Self) -> Bool { a.rank < b.rank }
    /// By rank, not by the raw String.
    package func hash(into hasher: inout Hasher) { hasher.combine(rank) }
    var rank: Int {
        switch self {
        case .info: return 0
        case .low: return 1
        case .medium: return 2
        case .high: return 3
        case .critical: return 4
        }
    }
}

/// Every finding kind of docs/contract.md §4, in the order of its table.
package enum FindingKind: String, CaseIterable, Sendable, Codable {
    case stateMismatch = "state-mismatch"
    case codeToUnlistedRedirect = "code-to-unlisted-redirect"
    case codeDespiteClientMismatch = "code-despite-client-mismatch"
    case codeReuse = "code-reuse"
    case redirectChanged = "redirect-changed"
    case errorToUnlistedRedirect = "error-to-unlisted-redirect"
    case missingErrorReturn = "missing-error-return"
    case stateReuse = "state-reuse"
    case duplicateReturn = "duplicate-return"
    case codeAndError = "code-and-error"
    case emptyReturn = "empty-return"
    case codeWithoutState = "code-without-state"
    case duplicateParam = "duplicate-param"
    case redirectNotExact = "redirect-not-exact"
    case redirectNotAllowlisted = "redirect-not-allowlisted"
    case clientIDMismatch = "client-id-mismatch"
    case nonstandardError = "nonstandard-error"
    case unknownState = "unknown-state"
    case noReturn = "no-return"
    case missingParam = "missing-param"
    case wrongErrorForClientMismatch = "wrong-error-for-client-mismatch"
    case errorWithoutState = "error-without-state"
    case badEncoding = "bad-encoding"

    /// Whether it sends a code or an error to a host that is not Google's:
    /// listed first within its severity in the summary.
    package var leaks: Bool { self == .codeToUnlistedRedirect || self == .errorToUnlistedRedirect }

    package var severity: Severity {
        switch self {
        case .stateMismatch, .codeToUnlistedRedirect, .codeDespiteClientMismatch, .codeReuse:
            return .critical
        case .redirectChanged, .errorToUnlistedRedirect, .missingErrorReturn, .stateReuse, .duplicateReturn,
            .codeAndError, .emptyReturn, .codeWithoutState, .duplicateParam, .redirectNotExact:
            return .high
        case .redirectNotAllowlisted, .clientIDMismatch, .nonstandardError, .unknownState, .noReturn, .missingParam:
            return .medium
        case .wrongErrorForClientMismatch, .errorWithoutState, .badEncoding:
            return .low
        }
    }

    /// By rank, not by the raw String.
    package func hash(into hasher: inout Hasher) { hasher.combine(rank) }

    /// Position in the table; used to order kinds in reports and cells.
    package var rank: Int {
        switch self {
        case .stateMismatch: return 0
        case .codeToUnlistedRedirect: return 1
        case .codeDespiteClientMismatch: return 2
        case .codeReuse: return 3
        case .redirectChanged: return 4
        case .errorToUnlistedRedirect: return 5
        case .missingErrorReturn: return 6
        case .stateReuse: return 7
        case .duplicateReturn: return 8
        case .codeAndError: return 9
        case .emptyReturn: return 10
        case .codeWithoutState: return 11
        case .duplicateParam: return 12
        case .redirectNotExact: return 13
        case .redirectNotAllowlisted: return 14
        case .clientIDMismatch: return 15
        case .nonstandardError: return 16
        case .unknownState: return 17
        case .noReturn: return 18
        case .missingParam: return 19
        case .wrongErrorForClientMismatch: return 20
        case .errorWithoutState: return 21
        case .badEncoding: return 22
        }
    }

    /// One line a reader acts on: what the finding means.
    package var meaning: String {
        switch self {
        case .stateMismatch: return "the state sent back to Google differs from the one Google sent"
        case .codeToUnlistedRedirect: return "an authorization code went to a URI that is not Google's"
        case .codeDespiteClientMismatch: return "a code was issued although client_id is not Google's"
        case .codeReuse: return "one authorization code was returned in two sessions"
        case .redirectChanged: return "the return went somewhere else than the request's redirect_uri"
        case .errorToUnlistedRedirect: return "an error was sent to a non-allowlisted URI (open redirector)"
        case .missingErrorReturn: return "a 4xx/5xx was answered without returning the error to Google"
        case .stateReuse: return "a state nonce was used again after its session ended"
        case .duplicateReturn: return "one session was answered more than once"
        case .codeAndError: return "one return carries both code and error"
        case .emptyReturn: return "a return to Google carries neither code nor error"
        case .codeWithoutState: return "a code was returned without state"
        case .duplicateParam: return "a flip parameter appears twice in one URL (parameter pollution)"
        case .redirectNotExact: return "a code or error went to a variant of an allowlisted URI: redirect URIs are not matched exactly"
        case .redirectNotAllowlisted: return "redirect_uri is not one of Google's allowlisted URIs"
        case .clientIDMismatch: return "client_id is not a configured Google client ID"
        case .nonstandardError: return "error is not cancelled, unrecoverable, invalid_request or access_denied"
        case .unknownState: return "a return carries a state that matches no open session"
        case .noReturn: return "the session expired without any return to Google"
        case .missingParam: return "a flip request lacks client_id, state or redirect_uri"
        case .wrongErrorForClientMismatch: return "a client_id mismatch was answered with an error other than invalid_request"
        case .errorWithoutState: return "an error was returned without state"
        case .badEncoding: return "malformed percent-encoding in a flip parameter"
        }
    }
}

/// A bit set of finding kinds, for "at most once per session".
package struct FindingKindSet: Sendable, Equatable {
    package private(set) var bits: UInt32 = 0
    package init() {}
    package func contains(_ k: FindingKind) -> Bool { bits & (1 << UInt32(k.rank)) != 0 }
    /// Inserts `k`; returns false when it was already there.
    @discardableResult
    package mutating func insert(_ k: FindingKind) -> Bool {
        let had = contains(k)
        bits |= 1 << UInt32(k.rank)
        return !had
    }
    /// The kinds in table order.
    package var kinds: [FindingKind] { bits == 0 ? [] : FindingKind.allCases.filter(contains) }
}

/// Where a record came from: the rank of its file among the sorted inputs,
/// and its line. Rendered as `FILE:LINE` through `InputCatalog`.
///
/// Public and `@frozen`, its comparisons `@inlinable`: the merge's and the
/// row queue's heaps compare sources in other modules on every move, and
/// Swift 6.3.1 inlines only public bodies across modules.
@frozen public struct SourceRef: Hashable, Comparable, Sendable {
    public var file: Int32
    public var line: Int64
    @inlinable public init(file: Int32, line: Int64) { self.file = file; self.line = line }
    @inlinable public static func < (a: Self, b: Self) -> Bool { (a.file, a.line) < (b.file, b.line) }
    @inlinable public static func == (a: Self, b: Self) -> Bool { a.file == b.file && a.line == b.line }
    @inlinable public func hash(into hasher: inout Hasher) {
        hasher.combine(file)
        hasher.combine(line)
    }
}
