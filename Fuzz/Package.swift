// swift-tools-version: 6.0
import PackageDescription

// libFuzzer targets, one per parser that a user's string reaches. Each is an executable whose entry point is
// libFuzzer's; build and run them with `Fuzz/run` (see its header), never with `swift run`.
let fuzzers = [
    "FuzzURITemplate", "FuzzURLMatcher", "FuzzRegexPrefix", "FuzzJSON", "FuzzPercentEncoding", "FuzzHeaders",
    "FuzzStubFiles", "FuzzTemplate", "FuzzOpenAPI", "FuzzJSONPath", "FuzzXML", "FuzzMessageMappings",
    "FuzzRequestHead", "FuzzGraphQL",
]

let package = Package(
    name: "StuntDoubleFuzz",
    platforms: [.macOS(.v13)],
    products: fuzzers.map { .executable(name: $0, targets: [$0]) },
    dependencies: [
        .package(name: "StuntDouble", path: ".."),
        // SwiftNIO's decoder, which the server's own HTTP/1.1 parser is held to (FuzzRequestHead).
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
    ],
    targets: [
        .target(
            name: "FuzzSupport",
            dependencies: [
                .product(name: "StuntDouble", package: "StuntDouble"),
                .product(name: "StuntDoubleWireMock", package: "StuntDouble"),
            ]
        )
    ]
        + fuzzers.map {
            .executableTarget(
                name: $0,
                dependencies: [
                    "FuzzSupport", .product(name: "StuntDouble", package: "StuntDouble"),
                    .product(name: "StuntDoubleWireMock", package: "StuntDouble"),
                ]
                    + ($0 == "FuzzOpenAPI" ? [.product(name: "StuntDoubleOpenAPI", package: "StuntDouble")] : [])
                    + ($0 == "FuzzGraphQL" ? [.product(name: "StuntDoubleGraphQL", package: "StuntDouble")] : [])
                    // The server's request parser and request builder, compiled here from their files (links in
                    // Sources/FuzzRequestHead/Server): the server's module would bring TLS, HTTP/2 and an HTTP
                    // client, minutes of CI's build for code this fuzzer never reaches.
                    + ($0 == "FuzzRequestHead"
                        ? [
                            .product(name: "NIOCore", package: "swift-nio"),
                            .product(name: "NIOEmbedded", package: "swift-nio"),
                            .product(name: "NIOHTTP1", package: "swift-nio"),
                        ] : []),
                // The builder's file reads the engine's package-wide API, as it does in the server's module; here,
                // from another package, only with access control off (the engine is built for testing).
                swiftSettings: $0 == "FuzzRequestHead" ? [.unsafeFlags(["-Xfrontend", "-disable-access-control"])] : []
            )
        }
)
