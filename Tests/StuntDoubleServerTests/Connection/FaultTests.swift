import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import StuntDouble
import StuntDoubleServer
import StuntDoubleWireMock
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// WireMock's faults on the wire: each client reports what a real broken server would make it report, and
/// the server goes on serving other connections.
@Suite struct FaultTests {
    static func stubber() -> HTTPStubber {
        let stubber = HTTPStubber()
        for fault in HTTPStubFault.allCases {
            stubber.add(stub: HTTPStubRequest().match(URI: "/\(fault.rawValue)").stub(for: .get) { $0.fault = fault })
        }
        stubber.add(stub: HTTPStubRequest().match(URI: "/fine").stub(for: .get, body: "fine"))
        return stubber
    }

    /// What URLSession (FoundationNetworking, on libcurl) reports for each fault.
    static let urlSessionErrors: [HTTPStubFault: (URLError.Code, String)] = [
        .connectionResetByPeer: (.networkConnectionLost, "Connection reset by peer"),
        .emptyResponse: (.badServerResponse, "Empty reply from server"),
        .malformedResponseChunk: (.unknown, "chunked-encoding"),
        .randomDataThenClose: (.unsupportedURL, "HTTP/0.9"),
    ]

    @Test(arguments: HTTPStubFault.allCases)
    func urlSessionFailsAsAgainstABrokenServer(_ fault: HTTPStubFault) async throws {
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let (code, text) = try #require(Self.urlSessionErrors[fault])
        try await withStubServer(stubber: Self.stubber()) { baseURL in
            do {
                _ = try await session.data(from: baseURL.appendingPathComponent(fault.rawValue))
                Issue.record("\(fault) must fail the request")
            } catch let error as URLError {
                #expect(error.code == code, "\(error)")
                #expect(error.localizedDescription.contains(text), "\(error.localizedDescription)")
            }
            let (data, _) = try await session.data(from: baseURL.appendingPathComponent("fine"))
            #expect(String(decoding: data, as: UTF8.self) == "fine")
        }
    }

    @Test(arguments: HTTPStubFault.allCases)
    func inProcessDeliveryFailsWithTheSameError(_ fault: HTTPStubFault) async throws {
        let stubber = Self.stubber()
        let (code, _) = try #require(Self.urlSessionErrors[fault])
        for session in [stubber.session() as any AsyncURLSessionProtocol, stubber.stubSession()] {
            do {
                _ = try await session.data(for: URLRequest(url: URL(string: "https://api.test/\(fault.rawValue)")!))
                Issue.record("\(fault) must fail the request")
            } catch let error as URLError {
                #expect(error.code == code)
                #expect(error.localizedDescription.contains("The stub's fault \(fault.rawValue)"))
            }
        }
    }

    @Test func asyncHTTPClientReportsEachFault() async throws {
        try await withStubServer(stubber: Self.stubber()) { baseURL in
            func failure(_ fault: HTTPStubFault) async -> (any Error)? {
                do {
                    let response = try await HTTPClient.shared.execute(
                        HTTPClientRequest(url: baseURL.appendingPathComponent(fault.rawValue).absoluteString),
                        timeout: .seconds(120))
                    _ = try await response.body.collect(upTo: 1 << 20)
                    return nil
                } catch {
                    return error
                }
            }
            let reset = await failure(.connectionResetByPeer)
            #expect((reset as? IOError)?.errnoCode == ECONNRESET, "\(String(describing: reset))")
            let empty = await failure(.emptyResponse)
            #expect(empty as? HTTPClientError == .remoteConnectionClosed, "\(String(describing: empty))")
            let malformed = await failure(.malformedResponseChunk)
            #expect(malformed as? HTTPParserError == .invalidChunkSize, "\(String(describing: malformed))")
            let random = await failure(.randomDataThenClose)
            #expect(random as? HTTPParserError == .invalidConstant, "\(String(describing: random))")
        }
    }

    @Test(
        .enabled(
            if: runsWithOutsideProgram(ServerClientTests.installed("curl")), "curl is not installed (CI installs it)"))
    func curlReportsEachFault() async throws {
        try await withStubServer(stubber: Self.stubber()) { baseURL in
            let expected: [(HTTPStubFault, Int32, String)] = [
                (.connectionResetByPeer, 56, "Connection reset by peer"),
                (.emptyResponse, 52, "Empty reply from server"),
                (.malformedResponseChunk, 56, "chunked-encoding"), (.randomDataThenClose, 1, "HTTP/0.9"),
            ]
            for (fault, status, text) in expected {
                let result = try await ChildProcess.run(
                    "curl", ["-sS", baseURL.appendingPathComponent(fault.rawValue).absoluteString])
                #expect(result.status == status, "\(fault): \(result.error)")
                #expect(result.error.contains(text), "\(fault): \(result.error)")
            }
        }
    }

    @Test func faultsFromStubFilesAndTheJournal() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("faults-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("mappings"), withIntermediateDirectories: true)
        try Data(
            #"{"request": {"urlPath": "/reset"}, "response": {"fault": "CONNECTION_RESET_BY_PEER", "fixedDelayMilliseconds": 100}}"#
                .utf8
        ).write(to: root.appendingPathComponent("mappings/fault.json"))
        let stubber = HTTPStubber()
        try stubber.load(stubFilesAt: root)
        try await withStubServer(stubber: stubber) { baseURL in
            let connection = try await RawConnection.connect(to: baseURL)
            let start = ContinuousClock.now
            try await connection.send("GET /reset HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await connection.readToClose())
            #expect(ContinuousClock.now - start >= .milliseconds(100), "the fault comes after the delay")
            #expect(connection.received.isEmpty)
        }
        let entry = try #require(stubber.journal.first)
        #expect((entry.completion?.error as? URLError)?.code == .networkConnectionLost)
        #expect(entry.decision.plan?.fault == .connectionResetByPeer)
    }

    @Test func anUnknownFaultIsAnErrorInFilesAndInSwift() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("faults-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("mappings"), withIntermediateDirectories: true)
        try Data(#"{"request": {"urlPath": "/x"}, "response": {"fault": "CONNECTION_RESET"}}"#.utf8)
            .write(to: root.appendingPathComponent("mappings/fault.json"))
        let message = StubFiles(root: root).errors.first?.message ?? ""
        #expect(message.contains(#""CONNECTION_RESET" is not a fault"#), "\(message)")
        #expect(message.contains("did you mean CONNECTION_RESET_BY_PEER?"), "\(message)")

        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URI: "/x").stub(for: .get) { $0.fault = HTTPStubFault(rawValue: "NOPE") })
        let plan = try #require(try stubber.decision(for: URLRequest(url: URL(string: "http://h/x")!)).plan)
        #expect((plan.error as? HTTPStubberError)?.code == .invalidResponse)
    }
}
