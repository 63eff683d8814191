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
    // The gzip decoder: ISA-L (`isal`, the default) or zlib (`--traits zlib`,
    // which leaves the default out); exactly one.
    traits: [
        .trait(name: "isal", description: "Inflate with ISA-L's igzip (libisal-dev)."),
        .trait(name: "zlib", description: "Inflate with zlib (zlib1g-dev), the reference engine."),
        .default(enabledTraits: ["isal"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.0.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
    ],
    targets: [
        /// The gzip decoder behind one small C interface (flipaudit_inflate.h):
        /// ISA-L's igzip by default, zlib with `--traits zlib` (the
        /// reference: CI runs the gzip tests with it too). The Swift side
        /// (GzipInflater) is the same for both. zlib is linked either way:
        /// the ISA-L engine hands it a damaged member to tell the damage in
        /// zlib's words.
        .target(
            name: "CInflate",
            cSettings: [
                .define("FLIPAUDIT_ISAL", .when(traits: ["isal"])),
                .define("FLIPAUDIT_ZLIB", .when(traits: ["zlib"])),
            ],
            linkerSettings: [
                .linkedLibrary("isal", .when(traits: ["isal"])),
                .linkedLibrary("z"),
            ]
        ),
        /// The whole pipeline: bytes → lines → records → flip events → sessions → findings → reports.
        .target(
            name: "FlipAuditCore",
            dependencies: [
                "CInflate",
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
