import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPStubResponse {
    /// A response with a status code and an optional body, for sequences and one-line stubs.
    ///
    /// ```swift
    /// stub.stub(for: .get, sequence: [.status(500), .status(500), .json(#"{"ok": true}"#)])
    /// ```
    /// - Parameters:
    ///   - code: The status code.
    ///   - body: The body, or `nil`.
    ///   - contentType: The `Content-Type`, or `nil`.
    /// - Returns: The response.
    public static func status(
        _ code: HTTPStatusCode, body: Data? = nil, contentType: HTTPContentType? = nil
    ) -> HTTPStubResponse {
        HTTPStubResponse(statusCode: code, contentType: contentType, body: body)
    }

    /// A JSON response: the text as UTF-8, with `Content-Type: application/json`.
    /// - Parameters:
    ///   - json: The JSON text, sent as is.
    ///   - code: The status code; `200 OK` by default.
    /// - Returns: The response.
    public static func json(_ json: String, code: HTTPStatusCode = .ok) -> HTTPStubResponse {
        HTTPStubResponse(statusCode: code, contentType: .json, body: Data(json.utf8))
    }

    /// A JSON response with the given bytes, with `Content-Type: application/json`.
    /// - Parameters:
    ///   - json: The JSON bytes, sent as is.
    ///   - code: The status code; `200 OK` by default.
    /// - Returns: The response.
    public static func json(_ json: Data, code: HTTPStatusCode = .ok) -> HTTPStubResponse {
        HTTPStubResponse(statusCode: code, contentType: .json, body: json)
    }

    /// A response that fails the request with an error, such as `URLError(.notConnectedToInternet)`.
    /// - Parameter error: The error.
    /// - Returns: The response.
    public static func failure(_ error: any Error) -> HTTPStubResponse {
        HTTPStubResponse(error: error)
    }

    /// No response at all: the "no response" condition of hand-written URLSession mocks.
    ///
    /// A real server cannot do this, so each API delivers the closest thing it can:
    /// - the completion handler of an ``HTTPStubSession`` data task receives `(nil, nil, nil)`, as such mocks
    ///   deliver it;
    /// - APIs that must return a response (`async` `data(for:)`, and every `URLSession`, whose protocol
    ///   clients cannot finish without one) fail with `URLError(.badServerResponse)`, as URLSession does for a
    ///   server that answers without a valid HTTP response.
    /// - Returns: The response.
    public static func noResponse() -> HTTPStubResponse {
        let response = HTTPStubResponse()
        response.storage.withLock { $0.absence = .response }
        return response
    }

    /// A response with no data at all, not even an empty body: the "unexpected data" condition of hand-written
    /// URLSession mocks (`(nil, response, nil)`).
    ///
    /// The completion handler of an ``HTTPStubSession`` data task receives `nil` data with the response. APIs
    /// that always return data (`async` `data(for:)`, `URLSession`) return empty data, as URLSession does for
    /// an empty body.
    /// - Parameter code: The status code; `200 OK` by default.
    /// - Returns: The response.
    public static func noData(statusCode code: HTTPStatusCode = .ok) -> HTTPStubResponse {
        let response = HTTPStubResponse(statusCode: code)
        response.storage.withLock { $0.absence = .data }
        return response
    }

    /// A response whose body is a file, such as a JSON fixture in your test bundle.
    ///
    /// ```swift
    /// let ok = try HTTPStubResponse.file(named: "content.json", in: .module)
    /// let photos = try HTTPStubResponse.file(named: "photos.json", subdirectory: "Fixtures", in: .module)
    /// ```
    /// The file is read once, now. Its `Content-Type` follows its extension (`json`, `xml`, `html`, `txt`,
    /// `png`, `jpg`, `gif`, `pdf`), unless you give one.
    /// - Parameters:
    ///   - name: The resource's file name, with its extension (`content.json`), or without it if `withExtension`
    ///     gives it.
    ///   - withExtension: The extension, or `nil` when `name` has it.
    ///   - subdirectory: The folder inside the bundle, for resources copied as a folder
    ///     (`resources: [.copy("Fixtures")]`), or `nil`.
    ///   - bundle: The bundle; in a Swift package, `.module` of the target that declares the resource.
    ///   - code: The status code; `200 OK` by default.
    ///   - contentType: The `Content-Type`, or `nil` to infer it from the extension.
    /// - Returns: The response.
    /// - Throws: ``HTTPStubberError`` with code ``HTTPStubberError/Code/missingResource`` naming the resource,
    ///   the bundle and what to check.
    public static func file(
        named name: String, withExtension: String? = nil, subdirectory: String? = nil, in bundle: Bundle,
        statusCode code: HTTPStatusCode = .ok, contentType: HTTPContentType? = nil
    ) throws(HTTPStubberError) -> HTTPStubResponse {
        guard let url = bundle.url(forResource: name, withExtension: withExtension, subdirectory: subdirectory) else {
            let file = withExtension.map { "\(name).\($0)" } ?? name
            let resource = subdirectory.map { "\($0)/\(file)" } ?? file
            throw HTTPStubberError(
                code: .missingResource,
                message: "The bundle \(bundle.bundleURL.path) has no resource \"\(resource)\". Check the file name, "
                    + "its extension and its folder, and that the test target declares it in Package.swift "
                    + "(resources: [.copy(\"\(resource)\")], or .copy of its folder with subdirectory:), then pass "
                    + "Bundle.module.")
        }
        return try file(at: url, statusCode: code, contentType: contentType)
    }

    /// A response whose body is the file at a URL.
    /// - Parameters:
    ///   - url: The file's URL.
    ///   - code: The status code; `200 OK` by default.
    ///   - contentType: The `Content-Type`, or `nil` to infer it from the extension.
    /// - Returns: The response.
    /// - Throws: ``HTTPStubberError`` with code ``HTTPStubberError/Code/missingResource`` when the file cannot
    ///   be read.
    public static func file(at url: URL, statusCode code: HTTPStatusCode = .ok, contentType: HTTPContentType? = nil)
        throws(HTTPStubberError) -> HTTPStubResponse
    {
        let data = try HTTPStubberError.readFile(
            at: url, as: "The fixture", advice: "Check that the file exists and is readable.")
        return HTTPStubResponse(
            statusCode: code, contentType: contentType ?? HTTPContentType(fileExtension: url.pathExtension),
            body: data)
    }

    /// What a response sequence answers once every response was given.
    public enum SequenceEnd: Hashable, Sendable {
        /// The last response answers every further request (the default): `500, 500, 200, 200, 200 ...`.
        case repeatLast
        /// The sequence starts again: `500, 200, 500, 200 ...`.
        case cycle
    }
}
