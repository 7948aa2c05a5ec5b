import Foundation

/// Where SwiftPM put what it built: the test bundle, the probes and the `stuntdouble` command.
public enum BuiltProducts {
    /// The products folder (`.build/debug`, say), or `nil` when it cannot be found.
    public static var directory: URL? {
        #if canImport(Darwin)
        // The test process is Xcode's or the toolchain's runner: the `.xctest` bundle is in the products folder.
        return Bundle.allBundles.first { $0.bundlePath.hasSuffix(".xctest") }?.bundleURL.deletingLastPathComponent()
        #else
        return Bundle.main.executableURL?.deletingLastPathComponent()
        #endif
    }
}
