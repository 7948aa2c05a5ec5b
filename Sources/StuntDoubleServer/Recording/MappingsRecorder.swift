import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import StuntDouble

extension HTTPStubServer.Configuration {
    /// WireMock's `--record-mappings`: every proxied exchange (the server's ``upstream``, or a proxying stub's)
    /// whose request was not recorded before is written at once to a root's `mappings/` and `__files/`, as
    /// WireMock's standalone recorder writes it. Serve the root afterwards to replay what was recorded.
    ///
    /// What is written, and when:
    /// - A mapping that matches the request's method and exact URL, the ``matchedHeaders`` it had (their values
    ///   `equalTo`), and its body when it has one (`equalToJson` for JSON, ignoring array order and extra
    ///   elements; `equalTo` for text; `binaryEqualTo` otherwise). It answers the upstream's status and headers
    ///   (without `Content-Length`, `Content-Encoding` and `Transfer-Encoding`) and names a body file in
    ///   `__files/` (an event stream is written as its events, with their pace).
    /// - A gzipped answer is written inflated; the client gets it as the upstream sent it.
    /// - The answer reaches the client once it is whole, after its files are written, as WireMock answers
    ///   (an event stream, which may never end, passes as it comes, and is written when it ends). A request
    ///   that matches one recorded earlier in the server's life is not recorded again; a write that fails is
    ///   logged as an error, and the request is recorded by the next one like it.
    /// - The mappings are not served while the server runs (WireMock's proxy keeps answering): load the root
    ///   to replay them.
    public struct MappingRecording: Sendable {
        /// The folder whose `mappings/` and `__files/` are written (created when missing).
        public var root: URL
        /// Request headers the mappings match (WireMock's `--match-headers`), compared without case.
        public var matchedHeaders: [String]

        /// Records to a folder.
        /// - Parameters:
        ///   - root: The folder whose `mappings/` and `__files/` are written.
        ///   - matchedHeaders: Request headers the mappings match (their values, exactly).
        public init(root: URL, matchedHeaders: [String] = []) {
            self.root = root
            self.matchedHeaders = matchedHeaders
        }
    }
}

/// Writes proxied exchanges as mapping files as they end (``HTTPStubServer/Configuration/MappingRecording``).
final class MappingsRecorder: Sendable {
    private let root: URL
    private let stubs: RecordedStubs
    private let logger: Logger
    /// The requests recorded so far: the SHA-1 of each mapping's request pattern (which holds the body, so a
    /// recorder that runs for days keeps 20 bytes a request, not each body).
    private let recorded = NIOLockedValueBox(Set<[UInt8]>())

    /// The most bytes a gzipped answer is inflated to for its file; a larger one is written as it came.
    static let inflatedLimit = 256 << 20

    init(_ recording: HTTPStubServer.Configuration.MappingRecording, logger: Logger) {
        root = recording.root
        var spec = RecordSpec()
        spec.capturedHeaders = recording.matchedHeaders.map { (name: $0, caseInsensitive: false) }
        // Every body in a file, as WireMock's recorder writes them; no scenarios, each request once.
        spec.textSizeThreshold = 0
        spec.binarySizeThreshold = 0
        spec.persists = false
        spec.repeatsAsScenarios = false
        stubs = RecordedStubs(spec: spec, canExtractBodies: true)
        self.logger = logger
    }

    /// Records an exchange that ended, unless its request was recorded before.
    func record(
        _ request: HTTPIncomingRequest, status: Int, headers: [(name: String, value: String)], body: Data,
        arrivals: [HTTPRecordedExchange.Arrival]
    ) {
        var headers = headers
        var body = body
        var mayBeEncoded = true
        let encodings = headers.filter { $0.name.lowercased() == "content-encoding" }.map { $0.value.lowercased() }
        if encodings == ["gzip"],
            let inflated = Gzip.decompress(ByteBuffer(bytes: body), limit: Self.inflatedLimit)
        {
            body = Data(inflated.readableBytesView)
            headers.removeAll { $0.name.lowercased() == "content-encoding" }
            mayBeEncoded = false
        }
        let exchange = RecordedStubs.Exchange(
            request: request, isBodyTruncated: false, status: status, headers: headers, body: body,
            mayBeEncoded: mayBeEncoded, arrivals: arrivals)
        guard let stub = stubs.stubs(for: [exchange]).first else { return }
        let line = "\(request.method.rawValue) \(request.url.path(percentEncoded: true))"
        let key = sha1((stub.mapping["request"]?.rendered(sortedKeys: true) ?? line).utf8)
        guard recorded.withLockedValue({ $0.insert(key).inserted }) else {
            logger.debug("--record-mappings: not recording \(line), as a request like it was recorded")
            return
        }
        let name = MappingStore.fileName(label: line, id: stub.id)
        do {
            if let file = stub.bodyFile {
                try write(file.data, to: "__files", file.name)
            }
            try write(Data((stub.mapping.rendered(pretty: true, sortedKeys: true) + "\n").utf8), to: "mappings", name)
            logger.info("--record-mappings: recorded \(line) as mappings/\(name)")
        } catch {
            recorded.withLockedValue { _ = $0.remove(key) }
            let message =
                "--record-mappings: \(line) was not recorded: \(error.localizedDescription) (in \(root.path)); make "
                + "the folder writable, and the next request like it is recorded"
            logger.error("\(message)")
        }
    }

    private func write(_ data: Data, to folder: String, _ name: String) throws {
        let folder = root.appendingPathComponent(folder)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try data.write(to: folder.appendingPathComponent(name), options: .atomic)
    }
}
