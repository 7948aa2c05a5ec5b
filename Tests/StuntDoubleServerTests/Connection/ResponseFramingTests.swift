import Foundation
import StuntDouble
import StuntDoubleServer
import Testing

/// How the server frames what it writes itself (no HTTP encoder of SwiftNIO's): bodies that may not be sent,
/// bodies delimited by chunks or by the connection's end, and many pipelined requests answered in turn.
@Suite struct ResponseFramingTests {
    func stubber() -> HTTPStubber {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().match(URI: "/a").stub(for: .get, body: "A"))
        stubber.add(stub: HTTPStubRequest().match(URI: "/slow").stub(for: .get, delay: 0.2, body: "slow"))
        for digit in 0..<10 {
            stubber.add(stub: HTTPStubRequest().match(URI: "/n/\(digit)").stub(for: .get, body: "\(digit)"))
        }
        // No Content-Length: chunked in HTTP/1.1, until the connection's end in HTTP/1.0.
        for method in [HTTPMethod.get, .head] {
            stubber.add(
                stub: HTTPStubRequest().match(URI: "/te").stub(for: method) {
                    $0.body = Data("chunked!".utf8)
                    $0.headers[.transferEncoding] = "chunked"
                })
        }
        // A body that takes 5 minutes to send.
        stubber.add(
            stub: HTTPStubRequest().match(URI: "/paced").stub(for: .head) {
                $0.body = Data(count: 300_000)
                $0.responseTime = .withSpeed(HTTPConnectionSpeed(bytesPerSecond: 1_000))
            })
        // A body and a length that a 204 may not have.
        stubber.add(
            stub: HTTPStubRequest().match(URI: "/none").stub(for: .get) {
                $0.statusCode = .noContent
                $0.body = Data("dropped".utf8)
            })
        return stubber
    }

    @Test func aBacklogOfPipelinedRequestsIsAnsweredInOrder() async throws {
        try await withStubServer(stubber: stubber()) { baseURL in
            let connection = try await RawConnection.connect(to: baseURL)
            // The first answer is delayed: 300 requests behind it wait, in the order sent.
            var requests = "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n"
            for index in 0..<300 {
                requests += "GET /n/\(index * 7 % 10) HTTP/1.1\r\nHost: x\r\n\r\n"
            }
            try await connection.send(requests)
            #expect(try #require(try await connection.readResponse()).text == "slow")
            var bodies = ""
            for _ in 0..<300 {
                bodies += try #require(try await connection.readResponse()).text
            }
            #expect(bodies == (0..<300).map { "\($0 * 7 % 10)" }.joined())
            // The connection is still good for more.
            try await connection.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try #require(try await connection.readResponse()).text == "A")
            await connection.close()
        }
    }

    @Test func aResponseToHEADHasItsHeadOnly() async throws {
        try await withStubServer(stubber: stubber()) { baseURL in
            let connection = try await RawConnection.connect(to: baseURL)
            try await connection.send("HEAD /te HTTP/1.1\r\nHost: x\r\n\r\nGET /a HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await connection.read { String(decoding: $0, as: UTF8.self).hasSuffix("\r\n\r\nA") })
            let text = String(decoding: connection.received, as: UTF8.self)
            let (head, rest) = try #require(Self.split(text))
            #expect(head.lowercased().contains("transfer-encoding: chunked"), "the head says what GET would get")
            // No chunk, not even the last one, between the HEAD's head and the next response.
            #expect(rest.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(!text.contains("chunked!") && !text.contains("0\r\n\r\n"))
            await connection.close()
        }
    }

    @Test func aResponseToHEADDoesNotWaitForItsBodysPace() async throws {
        try await withStubServer(stubber: stubber()) { baseURL in
            let connection = try await RawConnection.connect(to: baseURL)
            try await connection.send("HEAD /paced HTTP/1.1\r\nHost: x\r\n\r\nGET /a HTTP/1.1\r\nHost: x\r\n\r\n")
            // The body would take 5 minutes: the head alone, then the next answer, come well before.
            #expect(
                try await connection.read(timeout: .seconds(120)) {
                    String(decoding: $0, as: UTF8.self).hasSuffix("\r\n\r\nA")
                })
            let (head, _) = try #require(Self.split(String(decoding: connection.received, as: UTF8.self)))
            #expect(head.lowercased().contains("content-length: 300000"), "the head says what GET would get")
            await connection.close()
        }
    }

    @Test func aBodyWithoutALengthEndsWithTheConnectionInHTTP10() async throws {
        try await withStubServer(stubber: stubber()) { baseURL in
            let connection = try await RawConnection.connect(to: baseURL)
            // Asked to keep the connection, the server cannot: nothing else can tell the client where the body ends.
            try await connection.send("GET /te HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            #expect(try await connection.readToClose())
            let (head, body) = try #require(Self.split(String(decoding: connection.received, as: UTF8.self)))
            #expect(head.hasPrefix("HTTP/1.0 200 OK\r\n"))
            #expect(head.lowercased().contains("connection: close"))
            #expect(!head.lowercased().contains("transfer-encoding"))
            #expect(body == "chunked!")
        }
    }

    @Test func a204HasNoBodyNorLength() async throws {
        try await withStubServer(stubber: stubber()) { baseURL in
            let connection = try await RawConnection.connect(to: baseURL)
            try await connection.send("GET /none HTTP/1.1\r\nHost: x\r\n\r\nGET /a HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await connection.read { String(decoding: $0, as: UTF8.self).hasSuffix("\r\n\r\nA") })
            let (head, rest) = try #require(Self.split(String(decoding: connection.received, as: UTF8.self)))
            #expect(head.hasPrefix("HTTP/1.1 204 No Content\r\n"))
            #expect(!head.lowercased().contains("content-length"))
            #expect(rest.hasPrefix("HTTP/1.1 200 OK\r\n"))
            await connection.close()
        }
    }

    /// A response's head (through its empty line) and what follows it.
    static func split(_ text: String) -> (head: String, rest: String)? {
        guard let end = text.range(of: "\r\n\r\n") else { return nil }
        return (String(text[..<end.upperBound]), String(text[end.upperBound...]))
    }
}
