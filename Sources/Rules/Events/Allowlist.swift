import Parsing
import Reading

/// The redirect URIs a code or error may be sent to (docs/contract.md §3): Google's 12
/// flip URIs, `/r/ID` for each `--project-id`, each `--allow-redirect`; and,
/// while no project ID is pinned, any well-formed `/r/ID` on Google's hosts.
/// Matching is exact string comparison of the decoded value, byte for
/// byte (`Bytes.equal`), never Swift's canonical equivalence.
package struct Allowlist: Sendable {
    /// The 12 App Flip redirect URIs.
    static let flipURIs: [String] = {
        var uris: [String] = []
        for bundle in ["com.google.Chromecast", "com.google.OPA"] {
            for host in [GoogleHosts.production, GoogleHosts.sandbox] {
                for suffix in [".dev", ".enterprise", ""] {
                    uris.append("https://\(host)/a/\(bundle)\(suffix)")
                }
            }
        }
        return uris
    }()

    /// Every allowlisted URI once.
    private let uris: [String]
    /// Their bytes, what a URI is matched against.
    private let exact: Set<[UInt8]>
    /// Each allowlisted URI by the bytes of its lowercase form; of several
    /// that differ only in case, the least by bytes (so the answer never
    /// depends on the order of the options).
    private let byLowercase: [[UInt8]: String]
    /// Each allowlisted URI by the bytes of its normal form
    /// (`normalized`); of several with one form, the least by bytes.
    private let byNormalForm: [[UInt8]: String]
    /// Whether `/r/ID` for any ID is accepted (no `--project-id` given).
    let acceptsAnyProject: Bool

    package init(projectIDs: [String] = [], extra: [String] = []) {
        var all = Self.flipURIs
        for id in projectIDs {
            all.append("https://\(GoogleHosts.production)/r/\(id)")
            all.append("https://\(GoogleHosts.sandbox)/r/\(id)")
        }
        var seen = Set<[UInt8]>()
        uris = (all + extra).filter { seen.insert(Array($0.utf8)).inserted }
        exact = seen
        byLowercase = Dictionary(uris.map { (Array($0.lowercased().utf8), $0) }, uniquingKeysWith: Self.least)
        byNormalForm = Dictionary(uris.map { (Array(Self.normalized($0).utf8), $0) }, uniquingKeysWith: Self.least)
        acceptsAnyProject = projectIDs.isEmpty
    }

    /// Of two texts, the one whose bytes sort first.
    private static func least(_ a: String, _ b: String) -> String {
        b.utf8.lexicographicallyPrecedes(a.utf8) ? b : a
    }

    /// Whether `uri` is allowlisted.
    package func contains(_ uri: String) -> Bool {
        exact.contains(Array(uri.utf8)) || unpinnedProjectID(uri) != nil
    }

    /// The project ID of an `/r/ID` URI accepted only because no project is
    /// pinned; nil otherwise.
    package func unpinnedProjectID(_ uri: String) -> String? {
        guard acceptsAnyProject else { return nil }
        let u = uri.utf8
        for prefix in Self.webPrefixes where u.starts(with: prefix) {
            let id = u.dropFirst(prefix.count)
            let ok =
                !id.isEmpty
                && id.allSatisfy { b in
                    let l = b | 0x20
                    return (l >= UInt8(ascii: "a") && l <= UInt8(ascii: "z")) || (b >= .zero && b <= .nine) || b == .minus || b == UInt8(ascii: "_")
                }
            return ok && !exact.contains(Array(uri.utf8)) ? String(Substring(id)) : nil
        }
        return nil
    }

    /// The allowlisted URI that `uri` equals only after normalization
    /// (docs/contract.md §3 "Exact match"): the same destination, written
    /// another way. Nil when `uri` is allowlisted as it is, or when even
    /// its normal form is not.
    func exactVariant(of uri: String) -> String? {
        guard !contains(uri) else { return nil }
        let form = Self.normalized(uri)
        guard !Bytes.equal(form, uri) else { return nil }
        if let match = byNormalForm[Array(form.utf8)] { return match }
        return unpinnedProjectID(form) != nil ? form : nil
    }

    /// RFC 3986 §6.2.2 normalization as far as docs/contract.md §3 takes
    /// it: the scheme and host in lower case, an explicit `:443` after
    /// `https` dropped, the hex digits of each `%XX` in upper case. The
    /// path's letter case is kept (paths are case-sensitive), as is
    /// everything else. Text that is not `scheme://…` is returned as is.
    static func normalized(_ uri: String) -> String {
        guard var url = URLParts(uri) else { return uri }
        url.scheme = asciiLowercased(url.scheme)
        url.host = asciiLowercased(url.host)
        if url.scheme == "https" && url.port == "443" { url.port = nil }
        var s = url.scheme + "://"
        if let userinfo = url.userinfo { s += hexUppercased(userinfo) + "@" }
        s += url.host
        if let port = url.port { s += ":" + port }
        s += hexUppercased(url.path)
        if let query = url.query { s += "?" + hexUppercased(query) }
        if let fragment = url.fragment { s += "#" + hexUppercased(fragment) }
        return s
    }

    /// ASCII letters in lower case, every other byte as it is.
    static func asciiLowercased(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else { return text }
        return String(decoding: text.utf8.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// The two hex digits after each `%` in upper case.
    static func hexUppercased(_ text: String) -> String {
        guard text.utf8.contains(.percent) else { return text }
        var bytes = Array(text.utf8)
        var i = 0
        while i + 2 < bytes.count {
            if bytes[i] == .percent, Hex.value(bytes[i + 1]) != nil, Hex.value(bytes[i + 2]) != nil {
                for k in (i + 1)...(i + 2) where bytes[k] >= UInt8(ascii: "a") && bytes[k] <= UInt8(ascii: "f") { bytes[k] &= ~0x20 }
                i += 3
            } else {
                i += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `https://HOST/r/` for Google's two hosts, as bytes.
    private static let webPrefixes: [[UInt8]] = [GoogleHosts.production, GoogleHosts.sandbox].map { Array("https://\($0)/r/".utf8) }

    /// Names the trick when a non-allowlisted URI imitates an allowlisted
    /// one; nil when it resembles none.
    package func lookAlike(_ uri: String) -> String? {
        if let match = exactVariant(of: uri) {
            return "not an exact match: equals \(match) only after normalizing \(Self.normalizations(uri))"
        }
        let decodedAgain = PercentDecoding.decode(uri).text
        if !Bytes.equal(decodedAgain, uri) && contains(decodedAgain) {
            return "double percent-encoding: decodes again to \(decodedAgain)"
        }
        if let match = byLowercase[Array(uri.lowercased().utf8)] {
            return "differs only in letter case from \(match)"
        }
        guard let url = URLParts(uri) else { return nil }
        let googleHosts = [GoogleHosts.production, GoogleHosts.sandbox]
        if let userinfo = url.userinfo, googleHosts.contains(where: { userinfo.lowercased().hasPrefix($0) }) {
            return "userinfo trick: the real host is \(url.host), not Google's"
        }
        if let g = googleHosts.first(where: { url.host.lowercased().hasPrefix($0 + ".") && url.host.count > $0.count + 1 }) {
            return "suffix domain: \(url.host) is not \(g)"
        }
        if googleHosts.contains(url.host.lowercased().trimmingSuffix(".")) && url.host.hasSuffix(".") {
            return "trailing dot after the host"
        }
        guard googleHosts.contains(url.host.lowercased()) else { return nil }
        // (A `:443` or a letter case alone is an exact-match variant, above.)
        var https = url
        https.scheme = "https"
        https.port = nil
        let base = https.base
        if url.scheme.lowercased() == "http" { return "http:// instead of https://" }
        if url.port != nil { return "explicit port :\(url.port!)" }
        if url.path.hasSuffix("/"), contains(String(base.dropLast())) { return "trailing slash" }
        if url.path.hasSuffix("."), contains(String(base.dropLast())) { return "trailing dot in the path" }
        if contains(base) {
            if url.query != nil { return "added query ?\(url.query!)" }
            if url.fragment != nil { return "added fragment #\(url.fragment!)" }
        }
        if uris.contains(where: { base.hasPrefix($0 + "/") }) || (acceptsAnyProject && base.contains("/r/") && base.split(separator: "/").count > 4) {
            return "extra path segment"
        }
        return nil
    }

    /// What `normalized` changes in `uri`, for a finding's detail.
    static func normalizations(_ uri: String) -> String {
        guard let url = URLParts(uri) else { return "" }
        var what: [String] = []
        if asciiLowercased(url.scheme) != url.scheme { what.append("the scheme's letter case") }
        if asciiLowercased(url.host) != url.host { what.append("the host's letter case") }
        if asciiLowercased(url.scheme) == "https" && url.port == "443" { what.append("the explicit port :443") }
        if hexUppercased(uri) != uri { what.append("the letter case of %XX") }
        return what.joined(separator: ", ")
    }
}
