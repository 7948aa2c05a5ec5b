import Foundation
import StuntDouble
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite struct ResponsePlanTests {
    let url = "https://api.example.com/items"

    func plan(_ configure: (HTTPStubResponse) -> Void, method: String = "GET") throws -> HTTPResponsePlan {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().match(URL: url).stub(for: HTTPMethod(rawValue: method), configure))
        return try stubber.response(for: makeRequest(method, url))
    }

    @Test func writesContentTypeAndLength() throws {
        let plain = try plan { $0.body = Data("12345".utf8) }
        #expect(plain.response?.headers[.contentLength] == "5")
        #expect(plain.response?.headers[.contentType] == nil)

        let typed = try plan {
            $0.headers = ["content-type": "text/html", "X-Trace": "1"]
            $0.contentType = .json
        }
        #expect(typed.response?.headers[.contentType] == "application/json", "contentType wins over the header")
        #expect(typed.response?.headers.values(for: .contentType).count == 1)
        #expect(typed.response?.headers[.contentLength] == "0")
        #expect(typed.response?.headers["x-trace"] == "1")

        let explicitLength = try plan {
            $0.body = Data("abc".utf8)
            $0.headers[.contentLength] = "3"
        }
        #expect(explicitLength.response?.headers.values(for: .contentLength) == ["3"])
    }

    @Test func buildsAnHTTPURLResponse() throws {
        let plan = try plan {
            $0.statusCode = .notFound
            $0.contentType = .json
            $0.body = Data("{}".utf8)
            $0.cachePolicy = .allowedInMemoryOnly
        }
        let response = try #require(plan.response?.httpURLResponse(for: plan.request.url))
        #expect(response.statusCode == 404)
        #expect(response.url == URL(string: url))
        #expect(response.value(forHTTPHeaderField: "content-type") == "application/json")
        #expect(response.expectedContentLength == 2)
        #expect(plan.response?.cachePolicy == .allowedInMemoryOnly)
    }

    @Test func latencyAndResponseTimeAddUp() throws {
        #expect(try plan { _ in }.responseDeadline == .zero)
        #expect(try plan { $0.responseDelay = 0.25 }.responseDeadline == .seconds(0.25))
        #expect(try plan { $0.responseTime = .delayedBy(1.5) }.responseDeadline == .seconds(1.5))
        let both = try plan {
            $0.responseDelay = 0.5
            $0.responseTime = .delayedBy(1)
            $0.body = Data("x".utf8)
        }
        #expect(both.responseDeadline == .seconds(1.5))
        #expect(both.chunks == [.init(range: 0..<1, deadline: .seconds(1.5))])
    }

    @Test func throttlingPacesTheBody() throws {
        let body = Data(repeating: 7, count: 100_000)
        let plan = try plan {
            $0.responseDelay = 0.1
            $0.responseTime = .withSpeed(.speed3G)
            $0.body = body
        }
        #expect(plan.responseDeadline == .seconds(0.1), "headers arrive after the latency")
        // 100,000 bytes at 400,000 bytes per second: 0.25 s after the latency.
        #expect(abs((plan.completionDeadline ?? .zero).seconds - 0.35) < 1e-9)
        #expect(plan.chunks.count == 5, "20,000-byte chunks, 50 ms apart")
        for chunk in plan.chunks {
            let expected = 0.1 + Double(chunk.range.upperBound) / 400_000
            #expect(abs(chunk.deadline.seconds - expected) < 1e-9)
        }
        #expect(plan.chunks.map(\.range.count).reduce(0, +) == body.count)
    }

    @Test func throttlingBoundsTheNumberOfChunks() throws {
        let plan = try plan {
            $0.responseTime = .withSpeed(.speed1kbps)
            $0.body = Data(repeating: 1, count: 1_000_000)
        }
        #expect(plan.chunks.count <= 2000)
        #expect(abs((plan.completionDeadline ?? .zero).seconds - 8000) < 1e-6)
    }

    @Test func failuresAreDelayedToo() throws {
        let plan = try plan {
            $0.failError = URLError(.timedOut)
            $0.responseDelay = 2
            $0.body = Data("ignored".utf8)
        }
        #expect((plan.error as? URLError)?.code == .timedOut)
        #expect(plan.responseDeadline == .seconds(2))
        #expect(plan.chunks.isEmpty)
        #expect(plan.response == nil)
    }

    enum InvalidResponse: String, CaseIterable, Sendable {
        case lowStatus = "statusCode is 42"
        case highStatus = "statusCode is 600"
        case negativeDelay = "responseDelay is -1.0"
        case nanDelay = "responseDelay is nan"
        case infiniteDelay = "responseTime is .delayedBy(inf)"
        case zeroSpeed = "responseTime is .withSpeed(0.0 bytes/s)"
        case hugeDelay = "responseDelay is 1e+300"
        case hugeInterval = "responseTime is .delayedBy(1.7976931348623157e+308)"
        case hugeSpeed = "responseTime is .withSpeed(1.7976931348623157e+308 bytes/s)"
        case endlessThrottle = "delivery would take 3e+300 seconds"
        case longSum = "delivery would take 63072000.0 seconds"

        func apply(to response: HTTPStubResponse) {
            switch self {
            case .lowStatus: response.statusCode = 42
            case .highStatus: response.statusCode = 600
            case .negativeDelay: response.responseDelay = -1
            case .nanDelay: response.responseDelay = .nan
            case .infiniteDelay: response.responseTime = .delayedBy(.infinity)
            case .zeroSpeed: response.responseTime = .withSpeed(HTTPConnectionSpeed(bytesPerSecond: 0))
            case .hugeDelay: response.responseDelay = 1e300
            case .hugeInterval: response.responseTime = .delayedBy(.greatestFiniteMagnitude)
            case .hugeSpeed:
                response.responseTime = .withSpeed(HTTPConnectionSpeed(bytesPerSecond: .greatestFiniteMagnitude))
            case .endlessThrottle:
                response.responseTime = .withSpeed(HTTPConnectionSpeed(bytesPerSecond: 1e-300))
                response.body = Data("abc".utf8)
            case .longSum:
                response.responseDelay = 365 * 24 * 3600
                response.responseTime = .delayedBy(365 * 24 * 3600)
            }
        }
    }

    @Test(arguments: InvalidResponse.allCases)
    func invalidResponsesFailWithAClearError(invalid: InvalidResponse) throws {
        let plan = try plan(invalid.apply)
        let error = try #require(plan.error as? HTTPStubberError)
        #expect(error.code == .invalidResponse)
        #expect(error.message.contains(invalid.rawValue), "\(error.message)")
        #expect(error.message.contains("ResponsePlanTests.swift"), "names the stub by where it was created")
    }

    @Test func speedPresetsHaveTheDocumentedBandwidth() {
        let expected: [(HTTPConnectionSpeed, Double)] = [
            (.speed1kbps, 125), (.speedSlow, 1_500), (.speedGPRS, 7_000), (.speedEdge, 16_000),
            (.speed3G, 400_000), (.speed3GPlus, 900_000), (.speedWiFi, 1_500_000),
        ]
        for (speed, bytesPerSecond) in expected {
            #expect(speed.bytesPerSecond == bytesPerSecond, "\(speed)")
        }
        #expect(HTTPConnectionSpeed.speed3G.description == "3200 kbps (400000 bytes/s)")
        #expect(HTTPConnectionSpeed(bytesPerSecond: .nan).description == "nan kbps (nan bytes/s)")
        #expect(HTTPConnectionSpeed(bytesPerSecond: 1e300).description.contains("1e+300 bytes/s"))
    }

    @Test func jsonConveniencesSetTheContentType() throws {
        struct Item: Encodable {
            let id: Int
        }
        let stubber = HTTPStubber()
        stubber.add(
            stub: try HTTPStubRequest().match(URL: url)
                .stub(for: .get, code: .partialContent, object: [Item(id: 1)])
                .stub(for: .post, code: .created, json: #"{"id":2}"#)
        )
        let get = try #require(stubber.plan("GET", url))
        #expect(get.response?.statusCode == .partialContent)
        #expect(get.response?.headers[.contentType] == "application/json")
        #expect(String(decoding: get.body, as: UTF8.self) == #"[{"id":1}]"#)
        #expect(stubber.bodyText("POST", url) == #"{"id":2}"#)
    }

    @Test func dynamicResponsesSeeTemplateVariables() throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URI: "https://api.example.com/users/{id}{?fields}")
                .stub(
                    for: .get,
                    responseProvider: { request, stub in
                        HTTPStubResponse(
                            statusCode: .ok,
                            body: Data(
                                "\(request[templateVariable: "id"] ?? "-") \(request[templateVariable: "fields"] ?? "-")"
                                    .utf8)
                        )
                    }))
        let plan = try #require(stubber.plan("GET", "https://api.example.com/users/42?fields=name,email"))
        #expect(String(decoding: plan.body, as: UTF8.self) == "42 name,email")
        #expect(plan.request.templateVariables["fields"] == ["name", "email"])
    }
}
