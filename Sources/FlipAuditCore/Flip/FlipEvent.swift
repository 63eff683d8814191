import Crypto

/// An in-scope App Flip request, as kept: decoded parameter values. A
/// class, like `FlipEvent`: handed around by reference, not copied String
/// by String.
public final class FlipRequest: Sendable {
    public let state: String?
    public let clientID: String?
    /// `client_id` present and not one of the configured Google client IDs
    /// (never when none is configured).
    let clientMismatch: Bool
    /// The decoded `redirect_uri` and the verdicts on it.
    let redirect: RedirectFacts?
    public var redirectURI: String? { redirect?.uri }
    /// Flip parameters that occur more than once (those of `duplicate-param`).
    public let duplicateParams: [FlipParam]
    /// Flip parameters whose percent-encoding is malformed.
    public let badEncodingParams: [FlipParam]

    /// The state (empty when absent) with its hash, worked out where the
    /// record is scanned, while its bytes are in that thread's cache.
    let stateKey: StateKey

    init(state: String?, clientID: String?, clientMismatch: Bool, redirect: RedirectFacts?,
         duplicateParams: [FlipParam], badEncodingParams: [FlipParam], fingerprint: Fingerprint = .process) {
        self.state = state
        stateKey = StateKey(state ?? "", fingerprint: fingerprint)
        self.clientID = clientID
        self.clientMismatch = clientMismatch
        self.redirect = redirect
        self.duplicateParams = duplicateParams
        self.badEncodingParams = badEncodingParams
    }
}

/// A Location URL shaped like a return to Google: it carries `code` and/or
/// `error`, or goes to an allowlisted URI with neither. Whether it *is* a
/// return is decided by `SessionTracker` (SPEC §3).
public final class FlipReturn: Sendable {
    /// `scheme://host/path` of the URL, as logged.
    public let base: String
    /// Whether the URL's host is one of Google's two redirect hosts.
    public let toGoogleHost: Bool
    public let state: String?
    /// The state with its hash (as `FlipRequest.stateKey`).
    let stateKey: StateKey?
    /// The code, sealed: it shows only as its digest (`CodeHash`).
    public let codeDigest: CodeHash?
    public let error: String?
    public let errorDescription: String?
    public let allowlisted: Bool
    public let duplicateParams: [FlipParam]
    public let badEncodingParams: [FlipParam]

    public var hasCode: Bool { codeDigest != nil }
    public var hasError: Bool { error != nil }

    /// `stateKey`, when given, is `state`'s (the request's on the same record).
    init(base: String, toGoogleHost: Bool, state: String?, stateKey: StateKey?, codeDigest: CodeHash?, error: String?,
         errorDescription: String?, allowlisted: Bool, duplicateParams: [FlipParam], badEncodingParams: [FlipParam],
         fingerprint: Fingerprint = .process) {
        self.base = base
        self.toGoogleHost = toGoogleHost
        self.state = state
        self.stateKey = stateKey ?? state.map { StateKey($0, fingerprint: fingerprint) }
        self.codeDigest = codeDigest
        self.error = error
        self.errorDescription = errorDescription
        self.allowlisted = allowlisted
        self.duplicateParams = duplicateParams
        self.badEncodingParams = badEncodingParams
    }
}

/// What a flip-relevant record contributes to the audit: a request, a
/// return, or both (the 302 on the request's own record). A class: events
/// travel through queues and heaps, and a reference moves cheaper than
/// every String inside.
///
/// `@unchecked Sendable` for its one `var`: a chunk scanned ahead of its
/// turn numbers its lines from the chunk's start, and `ScanAssembler` adds
/// the lines before it — once, on the thread that then shares the event.
public final class FlipEvent: @unchecked Sendable {
    public let time: Int64
    public internal(set) var source: SourceRef
    public let clientIP: String
    public let status: Int
    public let request: FlipRequest?
    public let returned: FlipReturn?

    public init(time: Int64, source: SourceRef, clientIP: String, status: Int, request: FlipRequest?, returned: FlipReturn?) {
        self.time = time
        self.source = source
        self.clientIP = clientIP
        self.status = status
        self.request = request
        self.returned = returned
    }
}

/// An authorization code as flipaudit keeps it while its return is
/// audited. Codes are compared by `key`, a 64-bit SipHash of the code under
/// this run's random seed (Swift's `Hasher`: nobody can make two codes
/// collide on purpose); the code's bytes are held only to be shown as
/// `sha256:` and the first 12 hex digits of their SHA-256, worked out when
/// a finding names the code — most codes never are, and SHA-256 was a
/// twentieth of the whole run. The code itself has no way out in clear.
public struct CodeHash: Hashable, Sendable, CustomStringConvertible, CustomReflectable {
    /// What `code-reuse` compares (and remembers, instead of the code).
    public let key: UInt64
    /// The code's bytes while it is held in memory; nil once it was read
    /// back from a spilled event (which holds the digest only).
    private let code: [UInt8]?
    private let digest: String?

    public init(_ code: UnsafeRawBufferPointer, fingerprint: Fingerprint = .process) {
        key = fingerprint.of(code)
        self.code = Array(code)
        digest = nil
    }

    /// A code known only by its key and digest (as `EventCodec` writes it).
    init(key: UInt64, digest: String) {
        self.key = key
        code = nil
        self.digest = digest
    }

    /// Whether `text` has the form of `description`: `sha256:` and 12
    /// lowercase hex digits.
    static func isDigest(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.count == 19 && text.hasPrefix("sha256:")
            && bytes[7...].allSatisfy { ($0 >= .zero && $0 <= .nine) || ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "f")) }
    }

    public static func == (a: Self, b: Self) -> Bool {
        guard a.key == b.key else { return false }
        if let x = a.code, let y = b.code { return x == y }
        return a.description == b.description
    }
    /// `dump` and debuggers see the digest, not the code.
    public var customMirror: Mirror { Mirror(self, children: ["digest": description]) }
    public func hash(into hasher: inout Hasher) { hasher.combine(key) }

    public var description: String { digest ?? code!.withUnsafeBytes(CodeDigest.text) }
}

/// Hashes authorization codes so they never reach output in clear.
public enum CodeDigest {
    /// `text(_:)` of any sequence of bytes.
    public static func of<Bytes: Sequence>(_ code: Bytes) -> String where Bytes.Element == UInt8 {
        Array(code).withUnsafeBytes(text)
    }

    /// `sha256:` followed by the first 12 hex digits of SHA-256(code).
    static func text(_ code: UnsafeRawBufferPointer) -> String {
        let prefix = SHA256.hash(data: code).withUnsafeBytes { UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)) }
        return String(unsafeUninitializedCapacity: 19) { out in
            let label: StaticString = "sha256:"
            for i in 0..<7 { out[i] = label.utf8Start[i] }
            for i in 0..<12 {
                let v = UInt8(truncatingIfNeeded: prefix >> UInt64(60 - 4 * i)) & 0x0F
                out[7 + i] = v < 10 ? UInt8(ascii: "0") + v : UInt8(ascii: "a") + v - 10
            }
            return 19
        }
    }

    /// Parameter names whose values are secrets: the code, and the tokens
    /// an implicit or hybrid response would carry.
    static let secretNames: Set<String> = ["code", "access_token", "id_token", "refresh_token"]

    /// The URL with the value of every secret parameter (`code`, tokens)
    /// replaced by its digest — in the query and in the fragment, and after
    /// any `?`, `&`, `#` or `;`, however the URL is shaped: a lenient server
    /// may read a parameter where a strict parser sees none.
    public static func redact(_ url: String) -> String {
        // Fast exit for the usual URL, without copying it: no secret name
        // and no escape after the first separator.
        let view = url.utf8
        guard let firstIndex = view.firstIndex(where: isSeparator) else { return url }
        let tail = view[firstIndex...]
        guard tail.contains(.percent) || tail.firstRange(of: "code".utf8) != nil || tail.firstRange(of: "token".utf8) != nil
        else { return url }
        let bytes = Array(view)
        let first = view.distance(from: view.startIndex, to: firstIndex)
        var out = Array(bytes[..<first])
        out.reserveCapacity(bytes.count + 16)
        var i = first
        while i < bytes.count {
            out.append(bytes[i])  // the separator
            i += 1
            var end = i
            while end < bytes.count && !isSeparator(bytes[end]) { end += 1 }
            if let eq = bytes[i..<end].firstIndex(of: .equals),
               secretNames.contains(PercentDecoding.decode(String(decoding: bytes[i..<eq], as: UTF8.self)).text) {
                // The value runs to the next `&` or `#` (a `?` or `;` may be
                // part of it).
                var valueEnd = eq + 1
                while valueEnd < bytes.count && bytes[valueEnd] != .ampersand && bytes[valueEnd] != .hash { valueEnd += 1 }
                out += bytes[i...eq]
                let value = PercentDecoding.decode(String(decoding: bytes[(eq + 1)..<valueEnd], as: UTF8.self), plusIsSpace: true).text
                out += Array(of(Array(value.utf8)).utf8)
                end = valueEnd
            } else {
                out += bytes[i..<end]
            }
            i = end
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Where a URL's parameters may start.
    private static func isSeparator(_ b: UInt8) -> Bool {
        b == .question || b == .ampersand || b == .hash || b == UInt8(ascii: ";")
    }
}
