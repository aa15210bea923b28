// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "stash",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "StashClient", targets: ["StashClient"]),
        .executable(name: "stashd", targets: ["stashd"]),
        .executable(name: "stash", targets: ["stash"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/groue/GRDB.swift.git", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    ],
    // Each target lists exactly the modules its files import, in the order of the layers of
    // docs/ARCHITECTURE.md (make lint: scripts/check-imports.py).
    targets: [
        // C libraries, each behind a C-prefixed target.
        .systemLibrary(
            name: "CProtobufC", pkgConfig: "libprotobuf-c",
            providers: [.apt(["libprotobuf-c-dev"])]),
        .target(
            name: "CStashProto", dependencies: ["CProtobufC"],
            cSettings: [.headerSearchPath("include")]),
        .target(name: "CCurl", linkerSettings: [.linkedLibrary("curl")]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CLinux"),
        // SQLite's C API, for the registry's hot writes (RowStatement); GRDB holds the connection.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // FFmpeg's demuxers, muxers and subtitle codecs, for `stash export FILE` (StashRemux).
        .systemLibrary(
            name: "CAVFormat", pkgConfig: "libavformat",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev"])]),
        // libxml2's parser for DASH MPDs (StashDASH), entities and network access off.
        .systemLibrary(name: "CLibXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        // sd-bus (libsystemd): D-Bus for the desktop's facts (metered, battery, sleep, notifications).
        .systemLibrary(name: "CSDBus", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),

        .target(name: "StashCore", dependencies: ["CLinux"]),
        // SHA-256, AES-GCM and random bytes from the system's libcrypto, for Fetch, Keys,
        // Engine and the test servers.
        .target(name: "StashCrypto", dependencies: ["CCrypto"]),
        .target(
            name: "StashWire",
            dependencies: ["StashCore", "CStashProto", .product(name: "NIOCore", package: "swift-nio")]),
        .target(
            name: "StashStore",
            dependencies: [
                "StashCore", "CSQLite", .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Logging", package: "swift-log"),
            ]),
        .target(
            name: "StashFetch",
            dependencies: [
                "StashCore", "StashCrypto", "CCurl", "CLinux",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .target(name: "StashHLS", dependencies: ["StashCore"]),
        .target(name: "StashDASH", dependencies: ["StashCore", "CLibXML2"]),
        .target(
            name: "StashKeys",
            dependencies: ["StashCore", "StashCrypto", "CCrypto"]),
        // A package's renditions remuxed into one MP4 or Matroska file (libavformat).
        .target(name: "StashRemux", dependencies: ["StashCore", "CAVFormat"]),
        // What the desktop says over D-Bus: NetworkManager, UPower, logind, notifications.
        .target(
            name: "StashDesktop",
            dependencies: ["StashCore", "CSDBus", "CLinux", .product(name: "Logging", package: "swift-log")]),
        .target(
            name: "StashEngine",
            dependencies: [
                "StashCore", "StashCrypto", "StashStore", "StashFetch", "StashHLS", "StashDASH", "StashKeys", "StashRemux", "CLinux",
                .product(name: "Logging", package: "swift-log"), .product(name: "NIOPosix", package: "swift-nio"),
            ]),
        .target(
            name: "StashDaemon",
            dependencies: [
                "StashCore", "StashDesktop", "StashEngine", "StashWire", "StashStore", "StashFetch", "StashKeys", "CLinux",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .executableTarget(
            name: "stashd",
            dependencies: [
                "StashCore", "StashDaemon", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .target(
            name: "StashClient",
            dependencies: [
                "StashCore", "StashWire",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]),
        .executableTarget(
            name: "stash",
            dependencies: ["StashClient", "StashCore", .product(name: "ArgumentParser", package: "swift-argument-parser")]),

        // Control-plane benchmark for `make bench` (GetDownload latency and throughput).
        .executableTarget(name: "stash-bench", dependencies: ["StashClient"]),

        // The shared scenario of clients/scenario, through the Swift client.
        .executableTarget(name: "stash-scenario", dependencies: ["StashClient"]),

        // A real HTTP/1 server and a daemon launcher for tests and the demo.
        .target(
            name: "StashTestSupport",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                "StashCrypto", "StashDesktop", .product(name: "Logging", package: "swift-log"),
            ]),

        // The fuzz targets (`make fuzz`) and the tool that runs them.
        .target(
            name: "StashFuzz",
            dependencies: [
                "StashCore", "StashWire", "StashHLS", "StashDASH", "StashKeys", "StashFetch", "StashEngine", "StashRemux",
                .product(name: "NIOCore", package: "swift-nio"),
            ]),
        .executableTarget(name: "stash-fuzz", dependencies: ["StashFuzz"]),
        .testTarget(name: "StashCoreTests", dependencies: ["StashCore", "StashTestSupport"]),
        .testTarget(name: "StashCryptoTests", dependencies: ["StashCrypto"]),
        .testTarget(
            name: "StashWireTests",
            dependencies: [
                "StashCore", "StashWire", "StashTestSupport", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ]),
        .testTarget(
            name: "StashStoreTests",
            dependencies: [
                "StashCore", "StashStore", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "StashFetchTests",
            dependencies: ["CCurl", "CLinux", "StashCore", "StashFetch", "StashTestSupport", .product(name: "Logging", package: "swift-log")]),
        // Corpus/ holds playlists the tests read by path (PlaylistCorpusTests).
        .testTarget(name: "StashHLSTests", dependencies: ["StashCore", "StashHLS", "StashTestSupport"], exclude: ["Corpus"]),
        // Corpus/ holds MPDs the tests read by path (MPDCorpusTests).
        .testTarget(name: "StashDASHTests", dependencies: ["StashCore", "StashDASH"], exclude: ["Corpus"]),
        .testTarget(name: "StashKeysTests", dependencies: ["StashKeys", "StashTestSupport"]),
        .testTarget(name: "StashRemuxTests", dependencies: ["StashCore", "StashRemux", "StashTestSupport"]),
        .testTarget(
            name: "StashEngineTests",
            dependencies: [
                "CLinux", "StashCore", "StashEngine", "StashFetch", "StashHLS", "StashKeys", "StashStore", "StashTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "StashDaemonTests",
            dependencies: ["StashCore", "StashDaemon", "StashWire", .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "StashFuzzTests", dependencies: ["StashFuzz"]),
        .testTarget(
            name: "StashDesktopTests",
            dependencies: ["StashCore", "StashDesktop", "StashTestSupport", .product(name: "Logging", package: "swift-log")]),
        // The command line's own logic (what wait and watch show, prompts, suggestions).
        .testTarget(name: "stashTests", dependencies: ["StashClient", "stash"]),
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "StashClient", "StashCore", "StashWire", "StashTestSupport", "StashCrypto",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
