import Foundation
import StuntDouble
import Testing

@testable import StuntDoubleOpenAPI

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

enum Documents {
    static func url(_ name: String) -> URL {
        guard let url = Bundle.module.url(forResource: "Documents/\(name)", withExtension: nil) else {
            fatalError("missing test document \(name)")
        }
        return url
    }

    /// The shop document, compiled once for the whole test run.
    static let shop: OpenAPIContract = {
        do {
            return try OpenAPIContract(contentsOf: url("shop.yaml"))
        } catch {
            fatalError("\(error)")
        }
    }()

    static let legacy: OpenAPIContract = {
        do {
            return try OpenAPIContract(contentsOf: url("legacy.json"))
        } catch {
            fatalError("\(error)")
        }
    }()

    /// A folder of its own for a test's documents.
    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("openapi-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }
}

/// A request, as tests write them.
func request(
    _ method: HTTPMethod, _ url: String, headers: [String: String] = [:], json: String? = nil,
    body: String? = nil
) throws -> HTTPIncomingRequest {
    var fields = HTTPHeaders(headers)
    if json != nil, fields[.contentType] == nil { fields[.contentType] = "application/json" }
    return try HTTPIncomingRequest(
        method: method, url: URL(string: url)!, headers: fields, body: (json ?? body).map { Data($0.utf8) })
}

let authorized = ["Authorization": "Bearer token-1"]

extension HTTPResponsePlan {
    var text: String { String(decoding: body, as: UTF8.self) }

    /// The body as JSON.
    var json: Any? { try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) }

    var status: Int { response?.statusCode.rawValue ?? -1 }
}
