/// Which Google flow a redirect URI belongs to: `/a/BUNDLE` is App Flip,
/// `/r/PROJECT_ID` is browser-based linking.
public enum Flow: String, CaseIterable, Sendable, Comparable {
    case flip, web, other
    public static func < (a: Self, b: Self) -> Bool { a.sortRank < b.sortRank }
    var sortRank: Int {
        switch self {
        case .flip: return 0
        case .web: return 1
        case .other: return 2
        }
    }
}

/// The Google app that flipped: Google Home or Google Assistant.
public enum GoogleApp: String, CaseIterable, Sendable, Comparable {
    case home, assistant, unknown
    public static func < (a: Self, b: Self) -> Bool { a.sortRank < b.sortRank }
    var sortRank: Int {
        switch self {
        case .home: return 0
        case .assistant: return 1
        case .unknown: return 2
        }
    }
}

/// Production or sandbox, by the redirect host; `unknown` for any other
/// host (SPEC §3 names only the two; see README "Where the spec is silent").
public enum GoogleEnvironment: String, CaseIterable, Sendable, Comparable {
    case production, sandbox, unknown
    public static func < (a: Self, b: Self) -> Bool { a.sortRank < b.sortRank }
    var sortRank: Int {
        switch self {
        case .production: return 0
        case .sandbox: return 1
        case .unknown: return 2
        }
    }
}

/// The bundle variant of a flip redirect; empty for web and other flows.
public enum Variant: String, Sendable {
    case release, dev, enterprise, none = ""
}

/// Google's two redirect hosts.
public enum GoogleHosts {
    public static let production = "oauth-redirect.googleusercontent.com"
    public static let sandbox = "oauth-redirect-sandbox.googleusercontent.com"

}

/// Flow, app, environment and variant of a redirect URI.
public struct RedirectTarget: Equatable, Sendable {
    public var flow: Flow
    public var app: GoogleApp
    public var environment: GoogleEnvironment
    public var variant: Variant

    public static let unknown = RedirectTarget(flow: .other, app: .unknown, environment: .unknown, variant: .none)

    private static let productionPrefix = Array("https://\(GoogleHosts.production)/".utf8)
    private static let sandboxPrefix = Array("https://\(GoogleHosts.sandbox)/".utf8)

    /// Classifies a decoded redirect URI (or a return URL).
    public static func classify(_ uri: String?) -> RedirectTarget {
        guard let uri else { return .unknown }
        var target = RedirectTarget.unknown
        let path: String
        // Google's own URIs without parsing: the usual case.
        if uri.utf8.starts(with: productionPrefix), !uri.utf8.contains(.question), !uri.utf8.contains(.hash) {
            target.environment = .production
            path = String(Substring(uri.utf8.dropFirst(productionPrefix.count - 1)))
        } else if uri.utf8.starts(with: sandboxPrefix), !uri.utf8.contains(.question), !uri.utf8.contains(.hash) {
            target.environment = .sandbox
            path = String(Substring(uri.utf8.dropFirst(sandboxPrefix.count - 1)))
        } else {
            guard let url = URLParts(uri) else { return .unknown }
            switch url.host {
            case GoogleHosts.production: target.environment = .production
            case GoogleHosts.sandbox: target.environment = .sandbox
            default: break
            }
            path = url.path
        }
        // "/a/BUNDLE" or "/r/ID", nothing more.
        let kind = path.utf8.count > 3 ? path.utf8.prefix(3) : path.utf8[...]
        let name = path.utf8.dropFirst(3)
        guard !name.isEmpty, !name.contains(.slash) else { return target }
        if kind.elementsEqual("/r/".utf8) {
            target.flow = .web
            return target
        }
        guard kind.elementsEqual("/a/".utf8) else { return target }
        target.flow = .flip
        let bundle = Substring(name)
        for (prefix, app) in [("com.google.Chromecast", GoogleApp.home), ("com.google.OPA", .assistant)] where bundle.hasPrefix(prefix) {
            switch bundle.dropFirst(prefix.count) {
            case "": target.app = app; target.variant = .release
            case ".dev": target.app = app; target.variant = .dev
            case ".enterprise": target.app = app; target.variant = .enterprise
            default: break
            }
        }
        return target
    }
}

/// The redirect URIs a code or error may be sent to (SPEC §3): Google's 12
/// flip URIs, `/r/ID` for each `--project-id`, each `--allow-redirect`; and,
/// while no project ID is pinned, any well-formed `/r/ID` on Google's hosts.
/// Matching is exact string comparison of the decoded value.
public struct Allowlist: Sendable {
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
            let ok = !id.isEmpty && id.allSatisfy { b in
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
        if let match = exact.first(where: { $0.lowercased() == uri.lowercased() }) {
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

extension String {
    /// The string without one trailing `suffix`, if it has it.
    func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
