import Reading

/// The parts of an absolute URL, as substrings of the kept text. Parsing is
/// by RFC 3986's generic syntax; nothing is normalised.
package struct URLParts: Equatable, Sendable {
    package var scheme: String
    /// Text before `@` in the authority, when there is one.
    package var userinfo: String?
    package var host: String
    /// The port text after `:`, when written.
    package var port: String?
    package var path: String
    package var query: String?
    package var fragment: String?

    /// `scheme://authority/path` without query and fragment: what a redirect
    /// "goes to" when comparing with the allowlist.
    package var base: String {
        var s = scheme + "://"
        if let userinfo { s += userinfo + "@" }
        s += host
        if let port { s += ":" + port }
        return s + path
    }

    /// Parses `text`, or nil when it is not `scheme://...`. Works on the
    /// UTF-8 view: URLs are scanned for ASCII delimiters only.
    package init?(_ text: String) {
        let u = text.utf8
        guard let colon = u.firstIndex(of: .colon), colon != u.startIndex else { return nil }
        let schemeBytes = u[u.startIndex..<colon]
        guard let first = schemeBytes.first, (first | 0x20) >= UInt8(ascii: "a"), (first | 0x20) <= UInt8(ascii: "z"),
            schemeBytes.allSatisfy({ b in
                let l = b | 0x20
                return (l >= UInt8(ascii: "a") && l <= UInt8(ascii: "z")) || (b >= .zero && b <= .nine) || b == .plus || b == .minus || b == .dot
            })
        else { return nil }
        var i = u.index(after: colon)
        guard i != u.endIndex, u[i] == .slash else { return nil }
        i = u.index(after: i)
        guard i != u.endIndex, u[i] == .slash else { return nil }
        i = u.index(after: i)
        let rest = u[i...]
        let authorityEnd = rest.firstIndex(where: { $0 == .slash || $0 == .question || $0 == .hash }) ?? u.endIndex
        var authority = u[i..<authorityEnd]
        scheme = String(Substring(schemeBytes))
        if let at = authority.lastIndex(of: .at) {
            userinfo = String(Substring(authority[authority.startIndex..<at]))
            authority = authority[u.index(after: at)...]
        }
        // A port is what follows the last colon outside an IPv6 literal.
        if let c = authority.lastIndex(of: .colon), !authority[c...].contains(.closeBracket) {
            port = String(Substring(authority[u.index(after: c)...]))
            host = String(Substring(authority[authority.startIndex..<c]))
        } else {
            host = String(Substring(authority))
        }
        var remainder = u[authorityEnd...]
        if let h = remainder.firstIndex(of: .hash) {
            fragment = String(Substring(u[u.index(after: h)...]))
            remainder = u[authorityEnd..<h]
        }
        if let q = remainder.firstIndex(of: .question) {
            query = String(Substring(u[u.index(after: q)..<remainder.endIndex]))
            remainder = u[authorityEnd..<q]
        }
        path = String(Substring(remainder))
    }

    /// Whether the bytes start with `scheme://` (an absolute URL).
    package static func isAbsoluteURL(_ b: UnsafeRawBufferPointer) -> Bool {
        // Nearly every Location starts with `https://` or `http://` (in
        // either case): one 8-byte comparison. The letters are lowercased
        // by setting bit 5, which only `H` and `h` (and so on) share.
        // The words are the bytes `https://` and `http://` (and a zero)
        // as a little-endian load reads them.
        if b.count >= 8, let base = b.baseAddress {
            let word = base.loadUnaligned(as: UInt64.self)
            if word | 0x20_2020_2020 == 0x2f2f_3a73_7074_7468 { return true }
            if (word & 0x00ff_ffff_ffff_ffff) | 0x2020_2020 == 0x002f_2f3a_7074_7468 { return true }
        }
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

    /// Whether the bytes are an absolute URL with a path after its
    /// authority (`https://host/…`, `https://host?…`): what a redirect
    /// target looks like, and what an `Origin` header or a proxy's
    /// upstream address (`http://10.0.0.2:80`) is not.
    static func isRedirectTarget(_ b: UnsafeRawBufferPointer) -> Bool {
        guard isAbsoluteURL(b), let colon = Bytes.find(.colon, in: b) else { return false }
        var i = colon + 3
        while i < b.count {
            if b[i] == .slash || b[i] == .question { return true }
            i += 1
        }
        return false
    }

    /// The path and query of a target logged as a full URL
    /// (`https://host:443/a?b`, as load balancers write it): from the
    /// first `/` or `?` after the authority, or `/` when there is none.
    /// Any other target is returned as it is.
    static func pathAndQuery(_ b: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        guard !b.isEmpty, b[0] != .slash, isAbsoluteURL(b), let colon = Bytes.find(.colon, in: b) else { return b }
        var i = colon + 3
        while i < b.count {
            if b[i] == .slash { return Bytes.slice(b, i, b.count) }
            if b[i] == .question { return Bytes.slice(b, i, b.count) }
            i += 1
        }
        let slash: StaticString = "/"
        return UnsafeRawBufferPointer(start: slash.utf8Start, count: 1)
    }
}
