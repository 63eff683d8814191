// swift-tools-version:6.2
// 6.2: the parser keeps its parameter slots in InlineArrays (`[7 of T]`).
import PackageDescription

let package = Package(
    name: "flipaudit",
    platforms: [.macOS(.v26)],
    products: [
        .executable(name: "flipaudit", targets: ["flipaudit"]),
        .library(name: "FlipAuditCore", targets: ["FlipAuditCore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.0.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
    ],
    targets: [
        /// zlib, through a module map that links `z` and a shim for its macros.
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        /// libdeflate, for its CRC-32 only: zlib inflates, libdeflate checks
        /// each member's CRC about four times faster than zlib's own.
        .systemLibrary(
            name: "CDeflate",
            providers: [.apt(["libdeflate-dev"])]
        ),
        /// The whole pipeline: bytes → lines → records → flip events → sessions → findings → reports.
        .target(
            name: "FlipAuditCore",
            dependencies: [
                "CZlib",
                "CDeflate",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "HeapModule", package: "swift-collections"),
                // --config files (TOML).
                .product(name: "TOMLKit", package: "TOMLKit"),
            ]
        ),
        /// jemalloc's settings for the executable: freed pages are returned
        /// at once (see malloc_conf.c).
        .target(name: "CMallocConf"),
        /// The thin command: options, validation, exit codes. On Linux it
        /// runs on jemalloc: events are made on one thread and freed on
        /// another, which glibc's malloc pays for in locks and free-list
        /// work (a twelfth of the run); the library and its tests do not
        /// care which allocator they get.
        .executableTarget(
            name: "flipaudit",
            dependencies: [
                "FlipAuditCore",
                .target(name: "CMallocConf", condition: .when(platforms: [.linux])),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            linkerSettings: [.linkedLibrary("jemalloc", .when(platforms: [.linux]))]
        ),
        .testTarget(
            name: "FlipAuditCoreTests",
            dependencies: ["FlipAuditCore"],
            resources: [.copy("Fixtures")]
        ),
    ]
)
