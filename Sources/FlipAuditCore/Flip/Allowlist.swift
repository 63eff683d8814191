/// The redirect URIs a code or error may be sent to (docs/contract.md §3): Google's 12
/// flip URIs, `/r/ID` for each `--project-id`, each `--allow-redirect`; and,
/// while no project ID is pinned, any well-formed `/r/ID` on Google's hosts.
/// Matching is exact string comparison of the decoded value.
@_spi(Fuzzing) public struct Allowlist: Sendable {
    /// The 12 App Flip redirect URIs.
    public static let flipURIs: [String] = {
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

    private let exact: Set<String>
    /// Each allowlisted URI by its lowercase form; of several that differ
    /// only in case, the least (so the answer never depends on set order).
    private let byLowercase: [String: String]
    /// Whether `/r/ID` for any ID is accepted (no `--project-id` given).
    public let acceptsAnyProject: Bool

    public init(projectIDs: [String] = [], extra: [String] = []) {
        var set = Set(Self.flipURIs)
        for id in projectIDs {
            set.insert("https://\(GoogleHosts.production)/r/\(id)")
            set.insert("https://\(GoogleHosts.sandbox)/r/\(id)")
        }
        set.formUnion(extra)
        exact = set
        byLowercase = Dictionary(set.map { ($0.lowercased(), $0) }, uniquingKeysWith: min)
        acceptsAnyProject = projectIDs.isEmpty
    }

    /// Whether `uri` is allowlisted.
    public func contains(_ uri: String) -> Bool {
        exact.contains(uri) || unpinnedProjectID(uri) != nil
    }

    /// The project ID of an `/r/ID` URI accepted only because no project is
    /// pinned; nil otherwise.
    public func unpinnedProjectID(_ uri: String) -> String? {
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
            return ok && !exact.contains(uri) ? String(Substring(id)) : nil
        }
        return nil
    }

    /// `https://HOST/r/` for Google's two hosts, as bytes.
    private static let webPrefixes: [[UInt8]] = [GoogleHosts.production, GoogleHosts.sandbox].map { Array("https://\($0)/r/".utf8) }

    /// Names the trick when a non-allowlisted URI imitates an allowlisted
    /// one; nil when it resembles none.
    public func lookAlike(_ uri: String) -> String? {
        let decodedAgain = PercentDecoding.decode(uri).text
        if decodedAgain != uri && contains(decodedAgain) {
            return "double percent-encoding: decodes again to \(decodedAgain)"
        }
        if let match = byLowercase[uri.lowercased()] {
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
        if exact.contains(where: { base.hasPrefix($0 + "/") }) || (acceptsAnyProject && base.contains("/r/") && base.split(separator: "/").count > 4) {
            return "extra path segment"
        }
        return nil
    }
}
