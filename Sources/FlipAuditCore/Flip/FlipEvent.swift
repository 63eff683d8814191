import Crypto

/// An in-scope App Flip request, as kept: decoded parameter values.
public struct FlipRequest: Sendable {
    public var state: String?
    public var clientID: String?
    public var redirectURI: String?
    /// Flip parameters that occur more than once (those of `duplicate-param`).
    public var duplicateParams: [FlipParam]
    /// Flip parameters whose percent-encoding is malformed.
    public var badEncodingParams: [FlipParam]
}

/// A Location URL shaped like a return to Google: it carries `code` and/or
/// `error`, or goes to an allowlisted URI with neither. Whether it *is* a
/// return is decided by `SessionTracker` (SPEC §3).
public struct FlipReturn: Sendable {
    /// `scheme://host/path` of the URL, as logged.
    public var base: String
    /// Whether the URL's host is one of Google's two redirect hosts.
    public var toGoogleHost: Bool
    public var state: String?
    /// `sha256:` + 12 hex digits; the code itself is never kept.
    public var codeDigest: String?
    public var error: String?
    public var errorDescription: String?
    public var allowlisted: Bool
    public var duplicateParams: [FlipParam]
    public var badEncodingParams: [FlipParam]

    public var hasCode: Bool { codeDigest != nil }
    public var hasError: Bool { error != nil }
}

/// What a flip-relevant record contributes to the audit: a request, a
/// return, or both (the 302 on the request's own record). A class: events
/// travel through queues and heaps, and a reference moves cheaper than
/// every String inside.
public final class FlipEvent: Sendable {
    public let time: Int64
    public let source: SourceRef
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

/// Hashes authorization codes so they never reach output in clear.
public enum CodeDigest {
    /// `sha256:` followed by the first 12 hex digits of SHA-256(code).
    public static func of<Bytes: Sequence>(_ code: Bytes) -> String where Bytes.Element == UInt8 {
        let digest = SHA256.hash(data: Array(code))
        let hexDigits = Array("0123456789abcdef".utf8)
        var text = Array("sha256:".utf8)
        for b in digest.prefix(6) {
            text.append(hexDigits[Int(b >> 4)])
            text.append(hexDigits[Int(b & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
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
