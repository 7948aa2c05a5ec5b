// swift-tools-version: 6.0
import PackageDescription

// Benchmarks are executables that print numbers; run them in release:
//   swift run -c release --package-path Benchmarks EngineBenchmark
//   swift run -c release --package-path Benchmarks DeliveryBenchmark
//   swift run -c release --package-path Benchmarks JSONBenchmark
//   swift run -c release --package-path Benchmarks OpenAPIBenchmark
//   swift run -c release --package-path Benchmarks StreamBenchmark
//   swift run -c release --package-path Benchmarks WebSocketBenchmark
let package = Package(
    name: "StuntDoubleBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "StuntDouble", path: "..")
    ],
    targets: [
        .executableTarget(
            name: "EngineBenchmark",
            dependencies: [.product(name: "StuntDouble", package: "StuntDouble")]
        ),
        .executableTarget(
            name: "DeliveryBenchmark",
            dependencies: [.product(name: "StuntDouble", package: "StuntDouble")]
        ),
        .executableTarget(
            name: "JSONBenchmark",
            dependencies: [
                .product(name: "StuntDouble", package: "StuntDouble"),
                .product(name: "StuntDoubleWireMock", package: "StuntDouble"),
            ]
        ),
        .executableTarget(
            name: "StreamBenchmark",
            dependencies: [
                .product(name: "StuntDouble", package: "StuntDouble"),
                .product(name: "StuntDoubleServer", package: "StuntDouble"),
            ]
        ),
        .executableTarget(
            name: "WebSocketBenchmark",
            dependencies: [
                .product(name: "StuntDouble", package: "StuntDouble"),
                .product(name: "StuntDoubleServer", package: "StuntDouble"),
            ]
        ),
        .executableTarget(
            name: "OpenAPIBenchmark",
            dependencies: [
                .product(name: "StuntDouble", package: "StuntDouble"),
                .product(name: "StuntDoubleOpenAPI", package: "StuntDouble"),
            ]
        ),
    ]
)
