import Foundation
import StuntDouble

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends the requests of a ``TargetType``: for real, or stubbed with the target's sample responses.
///
/// ```swift
/// let provider = APIProvider<GitHub>()                                             // real requests
/// let stubbing = APIProvider<GitHub>(stubClosure: APIProvider.immediatelyStub)    // sample data, at once
/// let repos = try await stubbing.request(.userRepositories("mark")).map([Repo].self)
/// ```
///
/// Stubbed and real results go through the same plugins and the same status validation. The closures are
/// called one at a time (they need not be `@Sendable`: you may store one in a `let` first, as the seed does),
/// so keep them fast and never make them wait for another thread.
public final class APIProvider<Target: TargetType>: Sendable {
    /// Maps a target to its endpoint.
    public typealias EndpointClosure = (Target) -> Endpoint
    /// Decides whether and how a target's requests are stubbed.
    public typealias StubClosure = (Target) -> StubBehavior

    /// The closures, handed over (`sending`) at initialization and only ever called under `lock`: they cannot
    /// run concurrently, whatever they capture.
    private struct Closures: @unchecked Sendable {
        let endpoint: EndpointClosure
        let stub: StubClosure
    }

    private let closures: Closures
    private let lock = NSRecursiveLock()
    /// The session real requests use: a `URLSession`, or any `AsyncURLSessionProtocol` such as
    /// an `HTTPStubSession`.
    public let session: any AsyncURLSessionProtocol
    /// The plugins, in order.
    public let plugins: [any PluginType]
    /// The queue completion handlers run on, or `nil` for any queue.
    public let callbackQueue: DispatchQueue?

    /// Creates a provider.
    /// - Parameters:
    ///   - endpointClosure: Maps a target to its endpoint; ``defaultEndpointMapping(for:)`` by default.
    ///   - stubClosure: Decides whether a target is stubbed; ``neverStub(_:)`` (real requests) by default.
    ///   - session: The session for real requests; `URLSession.shared` by default. In tests, a session made
    ///     from an `HTTPStubber` stubs at the transport level: `stubber.stubSession()` (fastest, no URLSession)
    ///     or `stubber.session()` (a real `URLSession`).
    ///   - plugins: Plugins, called in order.
    ///   - callbackQueue: The queue completion handlers run on, or `nil` for any queue.
    public init(
        endpointClosure: sending @escaping EndpointClosure = APIProvider.defaultEndpointMapping,
        stubClosure: sending @escaping StubClosure = APIProvider.neverStub,
        session: any AsyncURLSessionProtocol = URLSession.shared,
        plugins: [any PluginType] = [],
        callbackQueue: DispatchQueue? = nil
    ) {
        self.closures = Closures(endpoint: endpointClosure, stub: stubClosure)
        self.session = session
        self.plugins = plugins
        self.callbackQueue = callbackQueue
    }

    /// The endpoint of a target.
    /// - Parameter target: The target.
    /// - Returns: The endpoint.
    public func endpoint(_ target: Target) -> Endpoint {
        lock.withLock { closures.endpoint(target) }
    }

    /// How a target's requests are stubbed.
    /// - Parameter target: The target.
    /// - Returns: The behavior.
    public func stubBehavior(for target: Target) -> StubBehavior {
        lock.withLock { closures.stub(target) }
    }

    // MARK: - Defaults

    /// The endpoint of a target as it describes itself, whose sample response is
    /// `.networkResponse(200, target.sampleData)`.
    /// - Parameter target: The target.
    /// - Returns: The endpoint.
    public static func defaultEndpointMapping(for target: Target) -> Endpoint {
        let sampleData = target.sampleData
        return Endpoint(
            url: URL(target: target).absoluteString, sampleResponseClosure: { .networkResponse(200, sampleData) },
            method: target.method, task: target.task, httpHeaderFields: target.headers)
    }

    /// Never stubs: every request is real.
    /// - Parameter target: The target.
    /// - Returns: ``StubBehavior/never``.
    public static func neverStub(_ target: Target) -> StubBehavior { .never }

    /// Stubs every request, at once.
    /// - Parameter target: The target.
    /// - Returns: ``StubBehavior/immediate``.
    public static func immediatelyStub(_ target: Target) -> StubBehavior { .immediate }

    /// Stubs every request, after a delay.
    /// - Parameter seconds: The delay.
    /// - Returns: A stub closure.
    public static func delayedStub(_ seconds: TimeInterval) -> @Sendable (Target) -> StubBehavior {
        { _ in .delayed(seconds: seconds) }
    }
}

/// A request that can be cancelled.
public protocol Cancellable: Sendable {
    /// Whether the request was cancelled.
    var isCancelled: Bool { get }
    /// Cancels the request: a completion that has not started yet reports the cancellation.
    func cancel()
}
