import Foundation
import StuntDouble
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Seed 002: hide URLSession behind `URLSessionProtocol`, inject a session that plays back chosen conditions.
// The seed's protocols, and URLSession's conformance, are StuntDouble's; its `APIService` is written here as
// the seed describes it (the seed omits the body of its request method), and its mock compiles as written but
// for where it reads its fixture. Adapted for Swift 6: the service's completion is `@Sendable` and its decoded
// type `Sendable`, as the session's completion handler runs on another thread. The mock reads `content.json`
// from `Bundle.module` (a package has no `Bundle.main` resources), in the `Fixtures` folder, with
// `String(contentsOfFile:encoding:)` (the form without an encoding is deprecated).

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The seed's error cases (its `status_200` names the condition, not an error the service returns).
enum APIError: Error, Equatable {
    case invalidURLRequest
    case sessionError
    case responseIsNil
    case unexpectedData
    case unexpectedResponse
    case decodeError
    case status_200
    case status_400
    case status_500
}

struct Photo: Decodable, Equatable {
    let id: String
    let width: Int
    let height: Int
}

/// The seed's service: it depends on the abstract `URLSessionProtocol`, `URLSession.shared` by default.
final class APIService {
    var urlSession: URLSessionProtocol

    init(urlSession: URLSessionProtocol = URLSession.shared) {
        self.urlSession = urlSession
    }

    func request<T: Decodable & Sendable>(
        url: String, dataType: T.Type, completion: @escaping @Sendable (Result<T, APIError>) -> Void
    ) {
        guard let url = URL(string: url) else {
            completion(.failure(.invalidURLRequest))
            return
        }
        urlSession.dataTask(with: URLRequest(url: url)) { data, response, error in
            if error != nil {
                completion(.failure(.sessionError))
                return
            }
            guard let httpResponse = response as? HTTPURLResponse else {
                completion(.failure(.responseIsNil))
                return
            }
            switch httpResponse.statusCode {
            case 200...299:
                guard let data else {
                    completion(.failure(.unexpectedData))
                    return
                }
                do {
                    completion(.success(try JSONDecoder().decode(T.self, from: data)))
                } catch {
                    completion(.failure(.decodeError))
                }
            case 400...499:
                completion(.failure(.status_400))
            case 500...599:
                completion(.failure(.status_500))
            default:
                completion(.failure(.unexpectedResponse))
            }
        }
        .resume()
    }

    /// The request, awaited.
    func photos() async -> Result<[Photo], APIError> {
        await withCheckedContinuation { continuation in
            request(url: "https://test.com/photos", dataType: [Photo].self) { continuation.resume(returning: $0) }
        }
    }
}

/// The seed's hand-written mock, as written but for its fixture's location: it still compiles against
/// StuntDouble's protocols, so a suite can move to `HTTPStubSession` one test at a time.
final class MockURLSession: URLSessionProtocol {
    let dummyData: Data
    let url = URL(string: "https://test.com")!

    var condition: APIError?

    init() {
        let path = Bundle.module.path(forResource: "content", ofType: "json", inDirectory: "Fixtures")!
        let jsonString = try! String(contentsOfFile: path, encoding: .utf8)
        dummyData = jsonString.data(using: .utf8)!
    }

    private func makeResultValues(of condition: APIError?) -> (Data?, HTTPURLResponse?, APIError?) {
        switch condition {
        case .sessionError:
            return (nil, nil, .sessionError)
        case .responseIsNil:
            return (nil, nil, nil)
        case .unexpectedResponse:
            return (nil, HTTPURLResponse(url: url, statusCode: 300, httpVersion: "2", headerFields: nil), nil)
        case .unexpectedData:
            return (nil, HTTPURLResponse(url: url, statusCode: 200, httpVersion: "2", headerFields: nil), nil)
        case .status_200:
            return (dummyData, HTTPURLResponse(url: url, statusCode: 200, httpVersion: "2", headerFields: nil), nil)
        case .status_400:
            return (nil, HTTPURLResponse(url: url, statusCode: 404, httpVersion: "2", headerFields: nil), nil)
        case .status_500:
            return (nil, HTTPURLResponse(url: url, statusCode: 501, httpVersion: "2", headerFields: nil), nil)
        default:
            return (nil, nil, nil)
        }
    }

    func dataTask(
        with urlReqeust: URLRequest,
        completionHandler: @escaping (Data?, URLResponse?, Error?) -> Void
    )
        -> URLSessionDataTaskProtocol
    {
        let dataTask = MockURLSessionDataTask()
        dataTask.resumDidCall = {
            let resultValue = self.makeResultValues(of: self.condition)
            completionHandler(resultValue.0, resultValue.1, resultValue.2)
        }
        return dataTask
    }
}

final class MockURLSessionDataTask: URLSessionDataTaskProtocol {
    var resumDidCall: () -> Void = {}

    func resume() {
        resumDidCall()
    }
}

@Suite struct SeedSessionTests {
    /// A seed condition, as one line of StuntDouble, and what the service makes of it.
    struct Condition: Sendable, CustomTestStringConvertible {
        let name: String
        let stub: @Sendable (HTTPStubRequest) throws -> Void
        let expected: Result<Int, APIError>  // the number of photos, or the error
        var testDescription: String { name }
    }

    static let conditions: [Condition] = [
        Condition(
            name: "session error", stub: { $0.stub(for: .get, error: URLError(.notConnectedToInternet)) },
            expected: .failure(.sessionError)),
        Condition(
            name: "no response", stub: { $0.stub(for: .get, response: .noResponse()) },
            expected: .failure(.responseIsNil)),
        Condition(
            name: "unexpected status 300", stub: { $0.stub(for: .get, code: 300) },
            expected: .failure(.unexpectedResponse)),
        Condition(
            name: "unexpected data", stub: { $0.stub(for: .get, response: .noData()) },
            expected: .failure(.unexpectedData)),
        Condition(
            name: "200 with a JSON fixture",
            stub: {
                $0.stub(
                    for: .get,
                    response: try .file(named: "content", withExtension: "json", subdirectory: "Fixtures", in: .module))
            }, expected: .success(2)),
        Condition(
            name: "200 that does not decode", stub: { $0.stub(for: .get, json: #"{"photos": []}"#) },
            expected: .failure(.decodeError)),
        Condition(name: "404", stub: { $0.stub(for: .get, code: .notFound) }, expected: .failure(.status_400)),
        Condition(name: "501", stub: { $0.stub(for: .get, code: .notImplemented) }, expected: .failure(.status_500)),
    ]

    /// A stubber with the condition's stub, and that stub.
    func stubber(for condition: Condition) throws -> (HTTPStubber, HTTPStubRequest) {
        let stubber = HTTPStubber()
        let stub = HTTPStubRequest().match(URL: "https://test.com/photos")
        try condition.stub(stub)
        stubber.add(stub: stub)
        return (stubber, stub)
    }

    @Test(arguments: conditions)
    func eachConditionThroughTheStubSession(_ condition: Condition) async throws {
        let (stubber, stub) = try stubber(for: condition)
        let service = APIService(urlSession: stubber.stubSession())

        let result = await service.photos()
        #expect(result.map(\.count) == condition.expected)
        #expect(stubber.hitCount(of: stub) == 1)
    }

    /// The same lines through a real URLSession, which cannot deliver "no response" nor "no data": there the
    /// request fails (the service reports a session error) or the data is empty (it does not decode).
    @Test(arguments: conditions)
    func eachConditionThroughURLSession(_ condition: Condition) async throws {
        let (stubber, _) = try stubber(for: condition)
        let service = APIService(urlSession: stubber.session())

        let expected: Result<Int, APIError> =
            switch condition.expected {
            case .failure(.responseIsNil): .failure(.sessionError)
            case .failure(.unexpectedData): .failure(.decodeError)
            default: condition.expected
            }
        #expect(await service.photos().map(\.count) == expected)
    }

    @Test func theSeedsOwnMockStillWorks() async {
        let urlSession = MockURLSession()
        urlSession.condition = .status_400
        let service = APIService(urlSession: urlSession)
        #expect(await service.photos() == .failure(.status_400))
        urlSession.condition = .status_200
        #expect(await service.photos().map(\.count) == .success(2))
    }

    @Test func urlSessionSharedIsTheDefault() {
        #expect(APIService().urlSession as? URLSession === URLSession.shared)
    }

    @Test func aMissingFixtureSaysWhatToCheck() {
        #expect {
            try HTTPStubResponse.file(named: "contents", withExtension: "json", subdirectory: "Fixtures", in: .module)
        } throws: { error in
            let error = error as? HTTPStubberError
            return error?.code == .missingResource && error?.message.contains("\"Fixtures/contents.json\"") == true
        }
    }
}
