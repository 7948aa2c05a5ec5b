import Foundation
import PackagePlugin

/// `swift package stuntdouble check|serve|record|import-har ...`: the `stuntdouble` command, built and run from
/// the package that depends on StuntDouble, with the arguments as given.
@main
struct StuntDoublePlugin: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        // The plugin builds the product rather than naming the executable target as a dependency: SwiftPM 6.3
        // cannot give a plugin a tool whose target and product are named differently (swift-package-manager#6524).
        let built = try packageManager.build(.product("stuntdouble"), parameters: .init(configuration: .debug))
        guard built.succeeded else {
            print(built.logText)
            Diagnostics.error("stuntdouble did not build; the build log is above.")
            exit(1)
        }
        guard let tool = built.builtArtifacts.first(where: { $0.kind == .executable }) else {
            Diagnostics.error("the build of stuntdouble made no executable")
            exit(1)
        }
        let process = Process()
        process.executableURL = tool.url
        process.arguments = arguments
        // Paths in the arguments are the package's, as with `swift run stuntdouble`.
        process.currentDirectoryURL = context.package.directoryURL
        // SwiftPM ends a plugin on Ctrl-C without signalling what it runs, and leaves it running when it is
        // terminated itself. So a server stops when this process is gone (it watches the process named here),
        // is told to stop when this process is, and when SwiftPM is gone.
        var environment = ProcessInfo.processInfo.environment
        environment["STUNTDOUBLE_PARENT_PID"] = String(getpid())
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        let queue = DispatchQueue(label: "StuntDoublePlugin.signals")
        var sources: [any DispatchSourceProtocol] = []
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                // Not before it runs: `kill(0, ...)` would signal the whole process group, SwiftPM too.
                if process.isRunning { kill(process.processIdentifier, number) }
            }
            source.resume()
            sources.append(source)
        }
        let swiftPM = getppid()
        let watch = DispatchSource.makeTimerSource(queue: queue)
        watch.schedule(deadline: .now() + .milliseconds(250), repeating: .milliseconds(250))
        watch.setEventHandler {
            if getppid() != swiftPM, process.isRunning { kill(process.processIdentifier, SIGTERM) }
        }
        watch.resume()
        sources.append(watch)
        try process.run()
        process.waitUntilExit()
        for source in sources { source.cancel() }
        if process.terminationReason == .uncaughtSignal {
            exit(128 + process.terminationStatus)
        } else if process.terminationStatus != 0 {
            exit(process.terminationStatus)
        }
    }
}
