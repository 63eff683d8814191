// swift-tools-version:6.2
// 6.2: the parser keeps its parameter slots in InlineArrays (`[7 of T]`).
import PackageDescription

let package = Package(
    name: "flipaudit",
    // Linux only (docs/install.md): inotify, Glibc, /proc. The macOS line
    // states what the Swift 6.2 types need there; no macOS build is made.
    platforms: [.macOS(.v26)],
    products: [
        .executable(name: "flipaudit", targets: ["flipaudit"]),
        .library(name: "FlipAuditTestSupport", targets: ["FlipAuditTestSupport"]),
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
        /// libsodium (`libsodium-dev`) behind one small C interface: the
        /// keyed fingerprint of states, codes and record lines (SipHash-2-4),
        /// SHA-256, HMAC-SHA256 and random bytes.
        .target(name: "CSodium", linkerSettings: [.linkedLibrary("sodium")]),
        /// `flipaudit follow --listen`: a GET-only HTTP server on a thread of
        /// its own, libmicrohttpd (`libmicrohttpd-dev`) behind one C interface,
        /// loaded when a server starts: a run that serves nothing loads
        /// neither it nor GnuTLS.
        .target(name: "CHTTP", linkerSettings: [.linkedLibrary("dl")]),
        /// Line ends and plain lines found in one pass over decoded bytes
        /// (AVX2 where the CPU has it, a byte loop elsewhere).
        .target(name: "CLines"),
        /// bytes → lines: inputs found, opened and inflated, cut into lines;
        /// the threads that read, and the one way they meet (`HandOff`).
        .target(
            name: "Reading",
            dependencies: [
                "CInflate",
                "CLines",
                "CSodium",
                .product(name: "DequeModule", package: "swift-collections"),
            ]
        ),
        /// bytes out: descriptors written in full, standard output and error
        /// as outputs, each output's target and the atomic commit that puts
        /// them all in place (staged temporary files, renamed last).
        .target(name: "Writing", dependencies: ["Reading"]),
        /// lines → records: the combined, JSON and nginx parsers, query
        /// strings, URLs and times, on bytes.
        .target(name: "Parsing", dependencies: ["Reading"]),
        /// records → flip events → sessions → findings and statistics:
        /// every rule, the checkpoint, and the line schemas of what is
        /// carried between runs and steps.
        .target(
            name: "Rules",
            dependencies: [
                "Reading",
                "Parsing",
                "CSodium",
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "DequeModule", package: "swift-collections"),
            ]
        ),
        /// The drivers: feeds that read inputs on threads, the time-ordered
        /// merge, the rules run in one process (`Analyzer`) or as
        /// distributed steps, rows put in order, `explain`.
        .target(
            name: "Audit",
            dependencies: [
                "Reading",
                "Writing",
                "Parsing",
                "Rules",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "HeapModule", package: "swift-collections"),
            ]
        ),
        /// What an audit is written as: CSV, JSON, HTML, metrics, the
        /// summary, an explanation.
        .target(
            name: "Reports",
            dependencies: [
                "Reading", "Writing", "Parsing", "Rules", "Audit",
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ]),
        /// A run's life, for every driver (the audit, `stage merge`,
        /// `explain`, `follow`): prepare (outputs checked, the checkpoint
        /// locked and loaded), audit, deliver (outputs staged and committed,
        /// the exit status chosen); signals and the progress line.
        .target(
            name: "Run",
            dependencies: [
                "Reading", "Writing", "Parsing", "Rules", "Audit", "Reports",
                // `flipaudit follow --listen`: /metrics and /healthz.
                "CHTTP",
            ]),
        /// The command line: options, `--config`, subcommands, completions;
        /// each command builds a run from its options and exits with its status.
        .target(
            name: "Command",
            dependencies: [
                "Reading", "Writing", "Parsing", "Rules", "Audit", "Reports", "Run",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // --config files (TOML).
                .product(name: "TOMLKit", package: "TOMLKit"),
            ]
        ),
        /// jemalloc's settings for the executable: freed pages are returned
        /// at once for blocks of 1 MiB or more, after 100 ms for others
        /// (see malloc_conf.c).
        .target(name: "CMallocConf"),
        /// The thin executable: `Command` run on jemalloc (Linux). Events are
        /// made on one thread and freed on another, which glibc's malloc
        /// pays for in locks and free-list work (a twelfth of the run);
        /// the libraries and their tests do not care which allocator they
        /// get.
        .executableTarget(
            name: "flipaudit",
            dependencies: [
                "Command",
                .target(name: "CMallocConf", condition: .when(platforms: [.linux])),
            ],
            linkerSettings: [.linkedLibrary("jemalloc", .when(platforms: [.linux]))]
        ),
        /// What the fuzz targets (the `Fuzz/` package) call: the only
        /// public API, so the layers keep theirs to the package.
        .target(
            name: "FlipAuditTestSupport", dependencies: ["Reading", "Parsing", "Rules", "Audit", "Reports", "Command", "CLines"]),
        .testTarget(
            name: "FlipAuditTests",
            dependencies: [
                "Reading", "Writing", "Parsing", "Rules", "Audit", "Reports", "Run", "Command", "CLines",
            ],
            resources: [.copy("Fixtures")]
        ),
    ]
)

// Each file imports what it uses, members included: an extension's method
// does not come in through another file's import.
for target in package.targets where !target.name.hasPrefix("C") {
    target.swiftSettings = (target.swiftSettings ?? []) + [.enableUpcomingFeature("MemberImportVisibility")]
}
