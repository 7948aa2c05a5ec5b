// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "StuntDouble",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .library(name: "StuntDouble", targets: ["StuntDouble"])
    ],
    targets: [
        .target(name: "StuntDouble"),
        .testTarget(name: "StuntDoubleTests", dependencies: ["StuntDouble", "SharedSessionProbe"]),
        // Runs in its own process for SharedSessionProcessTests (URLSession.shared needs a fresh process).
        .executableTarget(name: "SharedSessionProbe", dependencies: ["StuntDouble"], path: "Tests/SharedSessionProbe"),
    ]
)
