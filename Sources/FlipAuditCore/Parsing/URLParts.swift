/// The parts of an absolute URL, as substrings of the kept text. Parsing is
/// by RFC 3986's generic syntax; nothing is normalised.
public struct URLParts: Equatable, Sendable {
    public var scheme: String
    /// Text before `@` in the authority, when there is one.
    public var userinfo: String?
    public var host: String
    /// The port text after `:`, when written.
    public var port: String?
    public var path: String
    public var query: String?
    public var fragment: String?

    /// `scheme://authority/path` without query and fragment: what a redirect
    /// "goes to" when comparing with the allowlist.
    public var base: String {
        var s = scheme + "://"
        if let userinfo { s += userinfo + "@" }
        s += host
        if let port { s += ":" + port }
        return s + path
    }

    /// Parses `text`, or nil when it is not `scheme://...`.
    public init?(_ text: String) {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let scheme = text[..<colon]
        guard let first = scheme.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic,
              scheme.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "+" || $0 == "-" || $0 == ".") })
        else { return nil }
        let afterColon = text[text.index(after: colon)...]
        guard afterColon.hasPrefix("//") else { return nil }
        let rest = afterColon.dropFirst(2)
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        var remainder = rest[authorityEnd...]
        self.scheme = String(scheme)
        if let at = authority.lastIndex(of: "@") {
            userinfo = String(authority[..<at])
            authority = authority[authority.index(after: at)...]
        }
        // A port is digits after the last colon outside an IPv6 literal.
        if let c = authority.lastIndex(of: ":"), !authority[c...].contains("]") {
            port = String(authority[authority.index(after: c)...])
            host = String(authority[..<c])
        } else {
            host = String(authority)
        }
        if let hashIndex = remainder.firstIndex(of: "#") {
            fragment = String(remainder[remainder.index(after: hashIndex)...])
            remainder = remainder[..<hashIndex]
        }
        if let q = remainder.firstIndex(of: "?") {
            query = String(remainder[remainder.index(after: q)...])
            remainder = remainder[..<q]
        }
        path = String(remainder)
    }

    /// Whether the bytes start with `scheme://` (an absolute URL).
    static func isAbsoluteURL(_ b: UnsafeRawBufferPointer) -> Bool {
        guard let colon = Bytes.find(.colon, in: b), colon > 0, colon + 2 < b.count,
              b[colon + 1] == .slash, b[colon + 2] == .slash
        else { return false }
        for i in 0..<colon {
            let c = b[i] | 0x20
            let isLetter = c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")
            let isDigit = b[i] >= .zero && b[i] <= .nine
            if !(isLetter || (i > 0 && (isDigit || b[i] == .plus || b[i] == .minus || b[i] == .dot))) { return false }
        }
        return true
    }
}
