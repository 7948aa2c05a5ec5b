import Foundation
import StuntDouble
import StuntDoubleServer
import Testing

/// WireMock 3's `--supported-proxy-encodings`: what a forwarded request's `Accept-Encoding` keeps, seen from
/// the upstream's journal.
@Suite struct ProxyEncodingTests {
    /// The `Accept-Encoding` the upstream got for each value a client sent, through a proxy configured so.
    static func forwarded(_ sent: [String], supported: Set<String>?) async throws -> [String?] {
        let upstream = HTTPStubber()
        upstream.add(stub: HTTPStubRequest().stub(for: .get, body: "ok"))
        return try await withStubServer(stubber: upstream) { upstreamURL in
            var configuration = HTTPStubServer.Configuration()
            configuration.upstream = upstreamURL
            configuration.supportedProxyEncodings = supported
            try await withStubServer(configuration: configuration) { proxy in
                for value in sent {
                    let connection = try await RawConnection.connect(
                        to: proxy, sending: "GET /x HTTP/1.1\r\nHost: x\r\nAccept-Encoding: \(value)\r\n\r\n")
                    #expect(try await connection.readResponse()?.status == 200)
                    await connection.close()
                }
            }
            return upstream.journal.map { $0.request.headers["Accept-Encoding"] }
        }
    }

    @Test func onlyTheSupportedCodingsAreAskedFor() async throws {
        let sent = ["gzip, deflate, br", "br", "gzip;q=1.0, deflate"]
        #expect(try await Self.forwarded(sent, supported: ["gzip", "deflate"]) == ["gzip,deflate", nil, "deflate"])
        #expect(try await Self.forwarded(sent, supported: nil) == sent, "by default, as the client sent it")
    }
}
