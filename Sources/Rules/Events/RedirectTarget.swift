import Parsing
import Reading

/// Which Google flow a redirect URI belongs to: `/a/BUNDLE` is App Flip,
/// `/r/PROJECT_ID` is browser-based linking.
package enum Flow: String, CaseIterable, Sendable, Comparable {
    case flip, web, other
    package static func < (a: Self, b: Self) -> Bool { a.sortRank < b.sortRank }
    var sortRank: Int {
        switch self {
        case .flip: return 0
        case .web: return 1
        case .other: return 2
        }
    }
}

/// The Google app that flipped: Google Home or Google Assistant.
package enum GoogleApp: String, CaseIterable, Sendable, Comparable {
    case home, assistant, unknown
    package static func < (a: Self, b: Self) -> Bool { a.sortRank < b.sortRank }
    var sortRank: Int {
        switch self {
        case .home: return 0
        case .assistant: return 1
        case .unknown: return 2
        }
    }
}

/// Production or sandbox, by the redirect host; `unknown` for any other
/// host (docs/contract.md §3 names only the two; see "Where the spec is silent" in docs/contract.md).
package enum GoogleEnvironment: String, CaseIterable, Sendable, Comparable {
    case production, sandbox, unknown
    package static func < (a: Self, b: Self) -> Bool { a.sortRank < b.sortRank }
    var sortRank: Int {
        switch self {
        case .production: return 0
        case .sandbox: return 1
        case .unknown: return 2
        }
    }
}

/// The bundle variant of a flip redirect; empty for web and other flows.
package enum Variant: String, CaseIterable, Sendable {
    case release, dev, enterprise, none = ""
    var sortRank: Int {
        switch self {
        case .release: return 0
        case .dev: return 1
        case .enterprise: return 2
        case .none: return 3
        }
    }
}

/// Flow, app, environment and variant of a redirect URI.
package struct RedirectTarget: Equatable, Sendable {
    package var flow: Flow
    package var app: GoogleApp
    package var environment: GoogleEnvironment
    package var variant: Variant

    package static let unknown = RedirectTarget(flow: .other, app: .unknown, environment: .unknown, variant: .none)

    /// Every target, each at its `index`.
    package static let all: [RedirectTarget] = Flow.allCases.flatMap { flow in
        GoogleApp.allCases.flatMap { app in
            GoogleEnvironment.allCases.flatMap { environment in
                Variant.allCases.map { RedirectTarget(flow: flow, app: app, environment: environment, variant: $0) }
            }
        }
    }
    /// Where the target is in `all`: a table indexed by it answers
    /// without hashing.
    package var index: Int {
        let apps = GoogleApp.allCases.count
        let environments = GoogleEnvironment.allCases.count
        let variants = Variant.allCases.count
        return ((flow.sortRank * apps + app.sortRank) * environments + environment.sortRank) * variants + variant.sortRank
    }

    private static let productionPrefix = Array("https://\(GoogleHosts.production)/".utf8)
    private static let sandboxPrefix = Array("https://\(GoogleHosts.sandbox)/".utf8)
    /// The flip apps' bundle IDs, and what may follow one in a redirect.
    private static let bundles: [(name: [UInt8], app: GoogleApp)] = [
        (Array("com.google.Chromecast".utf8), .home), (Array("com.google.OPA".utf8), .assistant),
    ]
    private static let variants: [(suffix: [UInt8], variant: Variant)] = [
        ([], .release), (Array(".dev".utf8), .dev), (Array(".enterprise".utf8), .enterprise),
    ]

    /// Classifies a decoded redirect URI (or a return URL).
    static func classify(_ uri: String?) -> RedirectTarget {
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
        // Compared as bytes: the names are ASCII, so this is String
        // equality without the cost of comparing Characters.
        for (bundle, app) in Self.bundles where name.starts(with: bundle) {
            let rest = name.dropFirst(bundle.count)
            if let (_, variant) = Self.variants.first(where: { rest.elementsEqual($0.suffix) }) {
                target.app = app
                target.variant = variant
            }
        }
        return target
    }
}

extension String {
    /// The string without one trailing `suffix`, if it has it.
    func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
