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

    /// The URL with the value of every `code` parameter replaced by its digest.
    public static func redact(_ url: String) -> String {
        // Fast exit for the usual URL: no "code" anywhere after a "?".
        let u = url.utf8
        guard let qIndex = u.firstIndex(of: .question),
              u[qIndex...].firstRange(of: "code".utf8) != nil || u[qIndex...].contains(.percent)
        else { return url }
        let q = qIndex
        let head = url[..<q]
        var query = url[url.index(after: q)...]
        var fragment = ""
        if let h = query.firstIndex(of: "#") {
            fragment = String(query[h...])
            query = query[..<h]
        }
        let pairs = query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let eq = pair.firstIndex(of: "=") else { return String(pair) }
            let key = PercentDecoding.decode(String(pair[..<eq])).text
            guard key == "code" else { return String(pair) }
            return key + "=" + of(Array(PercentDecoding.decode(String(pair[pair.index(after: eq)...]), plusIsSpace: true).text.utf8))
        }
        return head + "?" + pairs.joined(separator: "&") + fragment
    }
}
