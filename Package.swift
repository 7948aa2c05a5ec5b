// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "StuntDouble",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .library(name: "StuntDouble", targets: ["StuntDouble"]),
        .library(name: "StuntDoubleWireMock", targets: ["StuntDoubleWireMock"]),
        .library(name: "StuntDoubleTesting", targets: ["StuntDoubleTesting"]),
        .library(name: "StuntDoubleTargets", targets: ["StuntDoubleTargets"]),
        .library(name: "StuntDoubleServer", targets: ["StuntDoubleServer"]),
        .library(name: "StuntDoubleOpenAPI", targets: ["StuntDoubleOpenAPI"]),
        .library(name: "StuntDoubleAsyncHTTPClient", targets: ["StuntDoubleAsyncHTTPClient"]),
        .library(name: "StuntDoubleGraphQL", targets: ["StuntDoubleGraphQL"]),
        .executable(name: "stuntdouble", targets: ["StuntDoubleCommand"]),
        // `swift package stuntdouble ...` in packages that depend on StuntDouble.
        .plugin(name: "StuntDoublePlugin", targets: ["StuntDoublePlugin"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        // The server only: StuntDouble, StuntDoubleTesting and StuntDoubleTargets never compile SwiftNIO.
        // 2.101.3 is the first with configurable HTTP header limits.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // The server's upstream client (proxying, recording), and a real HTTP client for the server's tests.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        // The server's HTTPS (the version AsyncHTTPClient resolves). Its BoringSSL also makes the server's
        // certificates and digests: swift-crypto and swift-certificates would compile a second BoringSSL.
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.36.0"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.35.0"),
        // Test-only: a real client that no one here wrote (swift-openapi-generator's URLSession transport), run
        // over stubbed sessions.
        .package(url: "https://github.com/apple/swift-openapi-urlsession", from: "1.4.0"),
        // Test-only: swift-openapi-generator's AsyncHTTPClient transport, which takes only a concrete HTTPClient
        // (its seam is internal): a generated client over it is tested through the loopback server.
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client", from: "1.5.0"),
        // StuntDoubleOpenAPI's ClientTransport for generated clients (HTTPStubTransport), and its tests.
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // StuntDoubleOpenAPI: documents read with Yams (YAML, with lines) and checked with OpenAPIKit. Its
        // external loading is asynchronous and slow to build; $refs across files are resolved here instead.
        .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
        .package(url: "https://github.com/mattpolzin/OpenAPIKit", from: "6.4.0", traits: []),
        // StuntDoubleGraphQL: queries parsed by a maintained GraphQL parser (its only dependency is
        // swift-collections), in a product of its own.
        .package(url: "https://github.com/GraphQLSwift/GraphQL", from: "4.3.0"),
    ],
    targets: [
        // Foundation only, and nothing that runs before it is asked: a process that links StuntDouble (an app that
        // ships StuntDoubleTargets, as apps ship Moya) registers no URLProtocol until a stubber is enabled.
        .target(name: "StuntDouble"),
        // WireMock's format: stub files, response templates, JSONPath, recordings written as stub files. Only
        // those who use them compile and link them (the server and the command do).
        .target(name: "StuntDoubleWireMock", dependencies: ["StuntDouble"]),
        // The recording trait and helpers write stub files: StuntDoubleTesting links WireMock's format.
        .target(
            name: "StuntDoubleTesting", dependencies: ["StuntDouble", "StuntDoubleWireMock", "CStuntDoubleTesting"]),
        // Code that runs when a test process loads StuntDoubleTesting, before any test (see its load.c): StuntDouble's
        // global URLProtocol class registered before anything can create URLSession.shared, and test failures
        // reported to the running test.
        .target(name: "CStuntDoubleTesting"),
        .target(
            name: "StuntDoubleTargets",
            dependencies: ["StuntDouble", .product(name: "Logging", package: "swift-log")]
        ),
        // zlib, for the server's gzip (WireMock gzips answers, and reads gzipped requests); AsyncHTTPClient's
        // decompression links it already.
        .target(name: "CStuntDoubleZlib", linkerSettings: [.linkedLibrary("z")]),
        .target(
            name: "StuntDoubleServer",
            dependencies: [
                "StuntDouble", "StuntDoubleWireMock", "CStuntDoubleZlib",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                // WebSocket frames, after the server's own upgrade.
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                // Proxying and recording: the upstream, over HTTP or HTTPS, streamed.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                // HTTPS: TLS, HTTP/2, and a certificate authority made for localhost with NIOSSL's BoringSSL
                // (AsyncHTTPClient builds them anyway).
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
            ]
        ),
        // AsyncHTTPClient answered in process: a product of its own, so that only those who call AsyncHTTPClient
        // compile it.
        .target(
            name: "StuntDoubleAsyncHTTPClient",
            dependencies: [
                "StuntDouble",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // GraphQL operations matched as GraphQL: only those who match GraphQL compile GraphQLSwift.
        .target(
            name: "StuntDoubleGraphQL",
            dependencies: ["StuntDouble", "StuntDoubleWireMock", .product(name: "GraphQL", package: "GraphQL")]
        ),
        .target(
            name: "StuntDoubleOpenAPI",
            dependencies: [
                "StuntDouble", "StuntDoubleWireMock",
                .product(name: "Yams", package: "Yams"),
                .product(name: "OpenAPIKit", package: "OpenAPIKit"),
                .product(name: "OpenAPIKit30", package: "OpenAPIKit"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .executableTarget(
            name: "StuntDoubleCommand",
            dependencies: [
                "StuntDoubleServer", "StuntDouble", "StuntDoubleWireMock", "StuntDoubleOpenAPI", "StuntDoubleGraphQL",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("Examples")]
        ),
        // The `stuntdouble` command as a SwiftPM command plugin. It declares no permissions: SwiftPM asks for
        // declared ones before every verb (`check` too, which fails where nothing can answer, as in CI), and its
        // macOS sandbox cannot grant listening on a port at all. What needs more says which flag to pass.
        .plugin(
            name: "StuntDoublePlugin",
            capability: .command(
                intent: .custom(
                    verb: "stuntdouble",
                    description: "Check, serve, record or import stub files with the stuntdouble command")
            )
        ),
        .testTarget(
            name: "StuntDoubleTests", dependencies: ["StuntDouble", "SharedSessionProbe", "TestSupport"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "StuntDoubleWireMockTests", dependencies: ["StuntDoubleWireMock", "StuntDouble", "TestSupport"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "StuntDoubleTestingTests",
            dependencies: ["StuntDoubleTesting", "StuntDouble", "StuntDoubleWireMock", "TestSupport"]
        ),
        .testTarget(
            name: "StuntDoubleTargetsTests",
            dependencies: [
                // The probe is a dependency so that the tests' build builds it: RegistrationTests run it.
                "StuntDoubleTargets", "StuntDouble", "TestSupport", "TargetsOnlyProbe",
                .product(name: "InMemoryLogging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "StuntDoubleIntegrationTests",
            dependencies: [
                "StuntDouble",
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .testTarget(
            name: "StuntDoubleOpenAPITests",
            dependencies: [
                "StuntDoubleOpenAPI", "StuntDouble", "StuntDoubleWireMock", "StuntDoubleServer",
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            resources: [.copy("Documents")]
        ),
        .testTarget(
            name: "StuntDoubleAsyncHTTPClientTests",
            dependencies: [
                // The server plays the same faults to a real HTTPClient: the errors the stub client must report.
                "StuntDoubleAsyncHTTPClient", "StuntDouble", "StuntDoubleServer", "StuntDoubleWireMock", "TestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "StuntDoubleGraphQLTests",
            dependencies: [
                "StuntDoubleGraphQL", "StuntDouble", "StuntDoubleWireMock", "StuntDoubleServer", "TestSupport",
            ]
        ),
        .testTarget(
            name: "StuntDoubleServerTests",
            dependencies: [
                // The command is a dependency so that `swift test` builds it: CommandTests run it.
                // The probe fetches the server's HTTPS with URLSession in a process of its own.
                "StuntDoubleServer", "StuntDouble", "StuntDoubleWireMock", "TestSupport", "StuntDoubleCommand",
                "SharedSessionProbe", "StuntDoubleOpenAPI",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
            ]
        ),
        // Loopback servers for tests that reach a network: one that answers, one that never does.
        .target(name: "TestSupport", dependencies: ["StuntDouble"], path: "Tests/TestSupport"),
        // Runs in its own process for SharedSessionProcessTests (URLSession.shared needs a fresh process).
        .executableTarget(name: "SharedSessionProbe", dependencies: ["StuntDouble"], path: "Tests/SharedSessionProbe"),
        // A process that links StuntDoubleTargets alone, as an app does: StuntDoubleTargetsTests check that it
        // registers no URLProtocol.
        .executableTarget(
            name: "TargetsOnlyProbe", dependencies: ["StuntDoubleTargets"], path: "Tests/TargetsOnlyProbe"),
    ]
)
