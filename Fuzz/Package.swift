// swift-tools-version:6.0
// libFuzzer targets for flipaudit, apart from the main package so that
// `swift test` never needs the sanitizers. Build and run with `Fuzz/run.sh`.
import PackageDescription

let package = Package(
    name: "flipaudit-fuzz",
    dependencies: [.package(name: "flipaudit", path: "..")],
    targets: [
        /// Starts libFuzzer from an executable's entry point.
        .target(name: "FuzzDriver"),
        /// Log lines through the three record parsers, the flip extractor and the session tracker.
        .executableTarget(name: "FuzzRecords", dependencies: ["FuzzDriver", .product(name: "FlipAuditTestSupport", package: "flipaudit")]),
        /// Query strings, percent-decoding, URLs, the allowlist, timestamps, redaction and escaping.
        .executableTarget(name: "FuzzQuery", dependencies: ["FuzzDriver", .product(name: "FlipAuditTestSupport", package: "flipaudit")]),
        /// Numeric option values through OptionLimits and LogDuration, and the arithmetic they feed.
        .executableTarget(name: "FuzzOptions", dependencies: ["FuzzDriver", .product(name: "FlipAuditTestSupport", package: "flipaudit")]),
        /// Raw bytes through the gzip/plain input reader and the line splitter.
        .executableTarget(name: "FuzzGzip", dependencies: ["FuzzDriver", .product(name: "FlipAuditTestSupport", package: "flipaudit")]),
        /// What flipaudit reads back: checkpoints, spilled events and rows.
        .executableTarget(name: "FuzzReadBack", dependencies: ["FuzzDriver", .product(name: "FlipAuditTestSupport", package: "flipaudit")]),
    ]
)
