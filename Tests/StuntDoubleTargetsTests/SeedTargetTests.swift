import Foundation
import StuntDoubleTargets
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The examples of the seed's testing guide (seed 000), with APIProvider in place of MoyaProvider. The seed
// calls its target type both `GitHub` and `APIService`: the typealias below lets its code compile as written.

/// The seed's GitHub API.
public enum GitHub {
    case userRepositories(String)
    case zen
}

typealias APIService = GitHub

extension GitHub: TargetType {
    /// The API's base URL.
    public var baseURL: URL { URL(string: "https://api.github.com")! }

    /// The endpoint's path.
    public var path: String {
        switch self {
        case .userRepositories(let name): "/users/\(name)/repos"
        case .zen: "/zen"
        }
    }

    /// What the endpoint answers in tests.
    public var sampleData: Data {
        switch self {
        case .userRepositories(let name):
            return "[{\"name\": \"Repo Name\", \"owner\": \"\(name)\"}]".data(using: String.Encoding.utf8)!
        case .zen:
            return "Half measures are as bad as nothing at all.".data(using: String.Encoding.utf8)!
        }
    }
}

struct Repository: Decodable, Equatable {
    let name: String
}

@Suite struct SeedTargetTests {
    @Test func aStubbingProviderAnswersWithSampleDataAnd200() async throws {
        let stubbingProvider = APIProvider<GitHub>(stubClosure: APIProvider.immediatelyStub)

        let response = try await stubbingProvider.request(.userRepositories("mark"))
        #expect(response.statusCode == 200)
        #expect(response.data == GitHub.userRepositories("mark").sampleData)
        #expect(try response.map([Repository].self) == [Repository(name: "Repo Name")])
        #expect(response.request?.url == URL(string: "https://api.github.com/users/mark/repos"))
    }

    @Test func theDefaultSampleResponseIs200WithSampleData() throws {
        let endpoint = APIProvider<GitHub>.defaultEndpointMapping(for: .zen)
        guard case .networkResponse(let status, let data) = endpoint.sampleResponseClosure() else {
            Issue.record("expected .networkResponse")
            return
        }
        #expect(status == 200)
        #expect(data == GitHub.zen.sampleData)
        #expect(endpoint.url == "https://api.github.com/zen")
        #expect(endpoint.method == .get)
    }

    @Test func aCustomEndpointClosureStubs401() async throws {
        let authErrorData = Data(#"{"message": "Bad credentials"}"#.utf8)

        let customEndpointClosure = { (target: APIService) -> Endpoint in
            return Endpoint(
                url: URL(target: target).absoluteString,
                sampleResponseClosure: { .networkResponse(401, authErrorData /* data relevant to the auth error */) },
                method: target.method,
                task: target.task,
                httpHeaderFields: target.headers)
        }

        let stubbingProvider = APIProvider<GitHub>(
            endpointClosure: customEndpointClosure, stubClosure: APIProvider.immediatelyStub)

        let response = try await stubbingProvider.request(.zen)
        #expect(response.statusCode == 401)
        #expect(response.data == authErrorData)
        #expect(throws: APIError.self) { try response.filterSuccessfulStatusCodes() }
    }

    @Test func delayedStubsWaitAndTheStubClosuresSayWhatTheyDo() async throws {
        let delayed = APIProvider<GitHub>(stubClosure: APIProvider.delayedStub(0.2))
        let start = ContinuousClock.now
        let response = try await delayed.request(.zen)
        #expect(String(decoding: response.data, as: UTF8.self) == "Half measures are as bad as nothing at all.")
        #expect(ContinuousClock.now - start >= .milliseconds(200))

        #expect(APIProvider<GitHub>.neverStub(.zen) == .never)
        #expect(APIProvider<GitHub>.delayedStub(3)(.zen) == .delayed(seconds: 3))
    }

    @Test func sampleResponsesCanBeFullResponsesOrErrors() async throws {
        let url = URL(string: "https://api.github.com/zen")!
        let full = APIProvider<GitHub>(
            endpointClosure: { target in
                Endpoint(
                    url: URL(target: target).absoluteString,
                    sampleResponseClosure: {
                        .response(
                            HTTPURLResponse(
                                url: url, statusCode: 203, httpVersion: nil, headerFields: ["X-Cache": "hit"])!,
                            Data("cached".utf8))
                    },
                    method: target.method, task: target.task, httpHeaderFields: target.headers)
            }, stubClosure: APIProvider.immediatelyStub)
        let response = try await full.request(.zen)
        #expect(response.statusCode == 203)
        #expect(response.response?.value(forHTTPHeaderField: "X-Cache") == "hit")

        let failing = APIProvider<GitHub>(
            endpointClosure: { target in
                Endpoint(
                    url: URL(target: target).absoluteString,
                    sampleResponseClosure: {
                        .networkError(NSError(domain: NSURLErrorDomain, code: URLError.timedOut.rawValue))
                    },
                    method: target.method, task: target.task, httpHeaderFields: target.headers)
            }, stubClosure: APIProvider.immediatelyStub)
        do {
            _ = try await failing.request(.zen)
            Issue.record("expected the stubbed error")
        } catch {
            #expect(error.code == .underlying)
            #expect((error.underlyingError as? NSError)?.code == URLError.timedOut.rawValue)
        }
    }
}
