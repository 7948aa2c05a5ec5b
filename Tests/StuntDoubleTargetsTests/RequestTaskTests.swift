import Foundation
import StuntDoubleTargets
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A target whose every part the test chooses.
struct Configurable: TargetType {
    var baseURL = URL(string: "https://api.example.com/v1")!
    var path = "/items"
    var method: HTTPMethod = .get
    var task: RequestTask = .requestPlain
    var headers: [String: String]? = nil
    var sampleData = Data()
    var validationType: ValidationType = .none
}

@Suite struct RequestTaskTests {
    func request(_ task: RequestTask, method: HTTPMethod = .post, headers: [String: String]? = nil) throws -> URLRequest
    {
        let target = Configurable(method: method, task: task, headers: headers)
        return try APIProvider<Configurable>.defaultEndpointMapping(for: target).urlRequest()
    }

    func text(_ data: Data?) -> String {
        String(decoding: data ?? Data(), as: UTF8.self)
    }

    @Test func plainAndData() throws {
        let plain = try request(.requestPlain, method: .get, headers: ["Accept": "application/json"])
        #expect(plain.url?.absoluteString == "https://api.example.com/v1/items")
        #expect(plain.httpMethod == "GET")
        #expect(plain.httpBody == nil)
        #expect(plain.value(forHTTPHeaderField: "accept") == "application/json")
        #expect(try request(.requestData(Data("raw".utf8))).httpBody == Data("raw".utf8))
    }

    @Test func encodableBodiesAreJSON() throws {
        struct Item: Encodable, Sendable {
            let name: String
            let createdAt: Date
        }
        let item = Item(name: "pen", createdAt: Date(timeIntervalSince1970: 0))
        let plain = try request(.requestJSONEncodable(item))
        #expect(plain.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(text(plain.httpBody).contains(#""name":"pen""#))

        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let custom = try request(.requestCustomJSONEncodable(item, encoder: encoder))
        #expect(text(custom.httpBody).contains(#""createdAt":"1970-01-01T00:00:00Z""#))
    }

    @Test func parametersInTheQueryInAFormOrAsJSON() throws {
        let parameters: [String: any Sendable] = ["q": "a b&c", "page": 2, "tags": ["x", "y"], "exact": true]
        let query = try request(.requestParameters(parameters: parameters, encoding: .queryString))
        #expect(query.url?.query == "exact=true&page=2&q=a%20b%26c&tags%5B%5D=x&tags%5B%5D=y")
        #expect(query.httpBody == nil)

        let form = try request(.requestParameters(parameters: parameters, encoding: .httpBody))
        #expect(text(form.httpBody) == "exact=true&page=2&q=a%20b%26c&tags%5B%5D=x&tags%5B%5D=y")
        #expect(form.value(forHTTPHeaderField: "Content-Type") == "application/x-www-form-urlencoded; charset=utf-8")

        let json = try request(.requestParameters(parameters: ["name": "pen", "count": 3], encoding: .json))
        #expect(text(json.httpBody) == #"{"count":3,"name":"pen"}"#)
        #expect(json.value(forHTTPHeaderField: "Content-Type") == "application/json")

        let nested = try request(
            .requestParameters(
                parameters: ["filter": ["kind": "pen", "max": 3] as [String: any Sendable], "none": String?.none],
                encoding: .queryString))
        #expect(nested.url?.query == "filter%5Bkind%5D=pen&filter%5Bmax%5D=3", "nil values are left out")

        let get = try request(.requestParameters(parameters: ["q": "x"], encoding: .methodDependent), method: .get)
        #expect(get.url?.query == "q=x")
        let post = try request(.requestParameters(parameters: ["q": "x"], encoding: .methodDependent), method: .post)
        #expect(text(post.httpBody) == "q=x")
    }

    @Test func optionalParametersAreUnwrapped() throws {
        let cursor: String? = "abc"
        let limit: Int? = 3
        let missing: Int? = nil
        let parameters: [String: any Sendable] = [
            "cursor": cursor, "limit": limit, "missing": missing, "ids": [1, nil, 3] as [Int?],
        ]
        let query = try request(.requestParameters(parameters: parameters, encoding: .queryString))
        #expect(query.url?.query == "cursor=abc&ids%5B%5D=1&ids%5B%5D=3&limit=3")
        let json = try request(.requestParameters(parameters: parameters, encoding: .json))
        #expect(text(json.httpBody) == #"{"cursor":"abc","ids":[1,3],"limit":3}"#)
        let empty = try request(.requestParameters(parameters: [:], encoding: .json))
        #expect(text(empty.httpBody) == "{}", "a JSON API gets a JSON body even without parameters")
        #expect(empty.value(forHTTPHeaderField: "Content-Type") == "application/json")
    }

    @Test func queriesMergeWithTheBaseURLsAndThePaths() throws {
        let target = Configurable(
            baseURL: URL(string: "https://api.example.com/v1?key=k")!, path: "/search?q=swift",
            task: .requestParameters(parameters: ["page": 2], encoding: .queryString))
        let request = try APIProvider<Configurable>.defaultEndpointMapping(for: target).urlRequest()
        #expect(request.url?.absoluteString == "https://api.example.com/v1/search?key=k&q=swift&page=2")
        let emptyQuery = Configurable(
            baseURL: URL(string: "https://api.example.com/v1?")!,
            task: .requestParameters(parameters: ["a": 1], encoding: .queryString))
        #expect(try APIProvider<Configurable>.defaultEndpointMapping(for: emptyQuery).urlRequest().url?.query == "a=1")
    }

    @Test(arguments: [
        (HTTPMethod.get, true), (.head, true), (.delete, true), (.post, false), (.put, false), (.patch, false),
    ])
    func methodDependentEncodingFollowsTheMethod(method: HTTPMethod, inQuery: Bool) throws {
        let request = try request(
            .requestParameters(parameters: ["q": "x"], encoding: .methodDependent), method: method)
        #expect((request.url?.query == "q=x") == inQuery)
        #expect((request.httpBody == Data("q=x".utf8)) == !inQuery)
    }

    @Test func queryAndBodyTogether() throws {
        let data = try request(.requestCompositeData(bodyData: Data("body".utf8), urlParameters: ["v": 2]))
        #expect(data.url?.query == "v=2")
        #expect(data.httpBody == Data("body".utf8))

        let parameters = try request(
            .requestCompositeParameters(
                bodyParameters: ["name": "pen"], bodyEncoding: .json, urlParameters: ["dry": true]))
        #expect(parameters.url?.query == "dry=true")
        #expect(text(parameters.httpBody) == #"{"name":"pen"}"#)
    }

    @Test func multipartFormDataWithFiles() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("stuntdouble-\(UUID().uuidString).txt")
        try Data("file contents".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let parts = [
            MultipartFormBodyPart(provider: .data(Data("Mark".utf8)), name: "author"),
            MultipartFormBodyPart(
                provider: .file(file), name: "attachment", fileName: "notes.txt", mimeType: "text/plain"),
        ]
        let multipart = try request(.uploadCompositeMultipart(parts, urlParameters: ["draft": 1]))
        let contentType = try #require(multipart.value(forHTTPHeaderField: "Content-Type"))
        #expect(contentType.hasPrefix("multipart/form-data; boundary="))
        let boundary = String(contentType.dropFirst("multipart/form-data; boundary=".count))
        #expect(multipart.url?.query == "draft=1")
        #expect(
            text(multipart.httpBody) == """
                --\(boundary)\r
                Content-Disposition: form-data; name="author"\r
                \r
                Mark\r
                --\(boundary)\r
                Content-Disposition: form-data; name="attachment"; filename="notes.txt"\r
                Content-Type: text/plain\r
                \r
                file contents\r
                --\(boundary)--\r

                """)
    }

    @Test func aFilePartIsAnUploadEvenWithoutAFileName() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("avatar-\(UUID().uuidString).png")
        try Data([0x89, 0x50]).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let request = try request(
            .uploadMultipart([
                MultipartFormBodyPart(provider: .file(file), name: "avatar", mimeType: "image/png\r\nX-Evil: 1")
            ]))
        let body = text(request.httpBody)
        #expect(body.contains("name=\"avatar\"; filename=\"\(file.lastPathComponent)\""))
        #expect(body.contains("Content-Type: image/png%0D%0AX-Evil: 1\r\n"), "a header value cannot break the part")

        let guessed = try self.request(.uploadMultipart([MultipartFormBodyPart(provider: .file(file), name: "avatar")]))
        #expect(text(guessed.httpBody).contains("Content-Type: image/png\r\n"))
    }

    @Test func badInputGetsAClearError() throws {
        let missing = URL(fileURLWithPath: "/nonexistent/stuntdouble/file")
        #expect {
            try request(.uploadMultipart([MultipartFormBodyPart(provider: .file(missing), name: "f")]))
        } throws: { error in
            (error as? APIError)?.code == .requestMapping
                && (error as? APIError)?.message.contains("/nonexistent/stuntdouble/file") == true
        }
        #expect {
            try request(.requestParameters(parameters: ["date": Date()], encoding: .json))
        } throws: { error in
            (error as? APIError)?.code == .encoding
        }
        struct NotANumber: Encodable, Sendable {
            let value = Double.nan
        }
        #expect(throws: APIError.self) { try request(.requestJSONEncodable(NotANumber())) }
        let endpoint = Endpoint(
            url: "not a url", sampleResponseClosure: { .networkResponse(200, Data()) }, method: .get,
            task: .requestPlain,
            httpHeaderFields: nil)
        #expect {
            try endpoint.urlRequest()
        } throws: { error in
            (error as? APIError)?.code == .requestMapping
                && (error as? APIError)?.message.contains("\"not a url\"") == true
        }
    }

    @Test func endpointHelpers() throws {
        let endpoint = APIProvider<Configurable>.defaultEndpointMapping(
            for: Configurable(headers: ["Accept": "text/html"])
        )
        .adding(newHTTPHeaderFields: ["accept": "application/json", "X-Trace": "1"])
        .replacing(task: .requestData(Data("new".utf8)))
        let request = try endpoint.urlRequest()
        #expect(request.value(forHTTPHeaderField: "Accept") == "application/json")
        #expect(endpoint.httpHeaderFields?.count == 2, "the same field in another case replaces the old one")
        #expect(request.value(forHTTPHeaderField: "X-Trace") == "1")
        #expect(request.httpBody == Data("new".utf8))
    }
}
