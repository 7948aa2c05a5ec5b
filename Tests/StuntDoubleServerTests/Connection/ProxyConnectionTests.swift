import Foundation
import StuntDouble
import StuntDoubleServer
import Testing

/// Forwards waiting on their upstream at once: each gets a connection of its own, up to WireMock's 1,000. (The
/// proxy's connection pool allowed 64 and waited for a free one no longer than its 5-second connect timeout: the
/// 65th forward to a slow upstream was answered 500, "getConnectionFromPoolTimeout", as a forward in the response
/// matrix was on a loaded machine.)
@Suite struct ProxyConnectionTests {
    @Test(.timeLimit(.minutes(2))) func seventyForwardsToASlowUpstreamAreAllAnswered() async throws {
        let upstream = HTTPStubber()
        // Longer than the old wait for a connection, so that a forward beyond the old limit could not have had one.
        upstream.add(stub: HTTPStubRequest().stub(for: .get, delay: 6, body: "from the upstream"))
        try await withStubServer(stubber: upstream) { upstreamURL in
            var configuration = HTTPStubServer.Configuration()
            configuration.upstream = upstreamURL
            try await withStubServer(stubber: HTTPStubber(), configuration: configuration) { proxyURL in
                let statuses = try await withThrowingTaskGroup(of: (Int, String).self) { group in
                    for number in 0..<70 {
                        group.addTask {
                            // Sent as the connection opens: the forwards are all in progress at once.
                            let connection = try await RawConnection.connect(
                                to: proxyURL, sending: "GET /slow/\(number) HTTP/1.1\r\nHost: x\r\n\r\n")
                            let response = try await connection.readResponse(timeout: .seconds(90))
                            await connection.close()
                            return (response?.status ?? 0, response?.text ?? "no response")
                        }
                    }
                    return try await group.reduce(into: [(Int, String)]()) { $0.append($1) }
                }
                let failed = statuses.filter { $0.0 != 200 }
                #expect(statuses.count == 70)
                #expect(failed.isEmpty, "\(failed.count) of 70 failed, the first: \(failed.first?.1 ?? "")")
            }
        }
    }
}
