// swift-tools-version:6.0
import PackageDescription

// Layers import downward only:
// tdl → TDLSession / TDLRPC / TDLTerminal / TDLTransfer / TDLStore → TDLCore; CCurl and CNcursesw are
// reached by exactly one module each. TDLSession is a running session seen from outside the
// list: its control socket, the requests other tdl commands send it, hooks, input files.
// TDLBenchmarks (`tdl debug bench-*`) sits beside them, over TDLCore and TDLStore.
// Every module of ours reaches concrete generic types by metadata accessor: reached by mangled
// name, the first use of each (a Set<String>, a Dictionary keyed by an enum) demangles the name
// and scans every protocol conformance in the binary, at run time: about 1.3 ms of a one-file
// `get` and 4 ms of CPU of 500 files. The million tasks' first frame did not move (40 pairs).
// `make release` passes the flag to the packages' modules too (Makefile).
let byAccessor: [SwiftSetting] = [.unsafeFlags(["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"])]

let staticArchives = ["libnghttp2.a", "libssh2.a", "libpsl.a", "libidn2.a", "libunistring.a", "libssl.a",
                       "libcrypto.a", "libzstd.a", "libbrotlidec.a", "libbrotlicommon.a", "libz.a"]
let staticLibcurl = ["-Xlinker", "--whole-archive", "-Xlinker", "-l:libcurl.a", "-Xlinker", "--no-whole-archive"]
    + staticArchives.flatMap { ["-Xlinker", "-l:\($0)"] }
    + ["-Xlinker", "--exclude-libs=" + (["libcurl.a"] + staticArchives).joined(separator: ":")]

let package = Package(
    name: "tdl",
    products: [
        .executable(name: "tdl", targets: ["tdl"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        // aria2's JSON-RPC (HTTP and WebSocket): small, pure Swift over epoll, no SwiftNIO.
        .package(url: "https://github.com/swhitty/FlyingFox", exact: "0.27.1"),
        // Property tests (swift-testing): random text into every parser of outside input.
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        // libcurl (libcurl4-openssl-dev) and what it needs, linked in from their static archives:
        // opening the shared libcurl and its 30-odd libraries took 4-7 ms of each transferring
        // command's start (a one-file `get` 15.3 -> 10.5 ms linked in; docs/measurements.md). Its whole
        // archive, so that no curl_* symbol binds to the shared libcurl that FoundationNetworking's
        // link entries name; every archive's symbols hidden, so that a shared libcurl loaded
        // beside (FoundationNetworking's, in a debug build) keeps its own.
        .target(name: "CCurl", linkerSettings: [.unsafeFlags(staticLibcurl)]),
        .systemLibrary(
            name: "CNcursesw",
            pkgConfig: "ncursesw",
            providers: [.apt(["libncursesw5-dev"])]
        ),
        .target(name: "TDLCore", swiftSettings: byAccessor),
        .target(
            name: "TDLStore",
            dependencies: ["TDLCore", .product(name: "GRDB", package: "GRDB.swift"),
                           .product(name: "GRDBSQLite", package: "GRDB.swift")],
            swiftSettings: byAccessor
        ),
        .target(
            name: "TDLTransfer",
            dependencies: ["TDLCore", "CCurl", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: byAccessor
        ),
        .target(name: "TDLTerminal", dependencies: ["TDLCore", "CNcursesw"], swiftSettings: byAccessor),
        .target(name: "TDLSession", dependencies: ["TDLCore"], swiftSettings: byAccessor),
        // aria2's JSON-RPC: the method table over the manager, and its HTTP/WebSocket server.
        .target(name: "TDLRPC", dependencies: ["TDLCore", .product(name: "FlyingFox", package: "FlyingFox")],
                swiftSettings: byAccessor),
        .executableTarget(
            name: "tdl",
            dependencies: [
                "TDLCore", "TDLSession", "TDLStore", "TDLTransfer", "TDLTerminal", "TDLBenchmarks", "TDLRPC",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            // The toolchain's lld packs the relative relocations (the loader reads 19 KB of them
            // instead of 2.4 MB), and tdl exports none of its own symbols, which every symbol
            // lookup of the libraries loaded after it and every `dladdr` would search: about
            // 1 ms of every start. Packed relocations need glibc 2.36 or later.
            swiftSettings: byAccessor,
            linkerSettings: [.unsafeFlags(["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
                                           "-Xlinker", "--no-export-dynamic"])]
        ),
        // `tdl debug bench-list` and `bench-session`: timings at scale, kept out of the libraries.
        .target(name: "TDLBenchmarks", dependencies: ["TDLCore", "TDLStore"], swiftSettings: byAccessor),
        .target(name: "TDLTestSupport", dependencies: ["TDLCore"], path: "Tests/TDLTestSupport"),
        .testTarget(name: "TDLCoreTests", dependencies: ["TDLCore", .product(name: "PropertyBased", package: "swift-property-based")]),
        .testTarget(name: "TDLStoreTests", dependencies: ["TDLStore", "TDLCore", .product(name: "GRDB", package: "GRDB.swift")],
                    exclude: ["Fixtures"]),
        .testTarget(name: "TDLSessionTests", dependencies: ["TDLSession", "TDLCore", .product(name: "PropertyBased", package: "swift-property-based")]),
        .testTarget(name: "TDLRPCTests", dependencies: ["TDLRPC", "TDLCore", "TDLTestSupport"]),
        .testTarget(name: "TDLTerminalTests", dependencies: ["TDLTerminal", "TDLCore"]),
        .testTarget(name: "TDLBenchmarksTests", dependencies: ["TDLBenchmarks", "TDLStore"]),
        .testTarget(name: "TDLTransferTests", dependencies: ["TDLTransfer", "TDLCore", "TDLTestSupport"]),
        .testTarget(name: "EndToEndTests", dependencies: ["TDLTestSupport", "TDLCore"]),
    ],
    swiftLanguageModes: [.v6]
)
