// Input: a GraphQL document, a NUL byte, then an operation name (none when empty). The document is read as a stub's
// query and as a request's; properties: an error says where within the text; an operation's canonical text reads
// back as the same operation; a matcher made from the document matches a request that sends it.

import Foundation
import FuzzSupport

@testable import StuntDouble
@testable import StuntDoubleGraphQL

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// libFuzzer's entry point: checks one input; a violated property aborts.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let parts = FuzzInput(data, size).parts(2, separator: 0)
    let text = parts[0]
    let name = parts[1].isEmpty ? nil : parts[1]
    let operation: GraphQLOperation
    do {
        operation = try GraphQLOperation(text, operationName: name)
    } catch {
        if let line = error.line, let column = error.column {
            require(line >= 1 && column >= 1, "the error's place is not a place")
            require(line <= text.utf8.count + 1, "the error is after the text")
        }
        return 0
    }
    // The canonical text is GraphQL that means the same.
    let again = try? GraphQLOperation(operation.description)
    require(again == operation, "the canonical text reads back differently: \(operation.description)")
    // A stub of the document matches a request that sends it, with the name it was read by.
    var members: [String: Any] = ["query": text]
    if let name { members["operationName"] = name }
    guard JSONSerialization.isValidJSONObject(members),
        let body = try? JSONSerialization.data(withJSONObject: members),
        let request = try? HTTPIncomingRequest(
            method: .post, url: URL(string: "http://localhost/graphql")!, headers: ["Content-Type": "application/json"],
            body: body)
    else { return 0 }
    let stub = HTTPStubRequest().graphQL(operationName: name, query: text)
    var variables: [String: URITemplate.Value] = [:]
    let matcher = stub.matchers.compactMap { $0 as? GraphQLMatcher }.first
    require(matcher?.problem == nil, "the matcher refuses a document that reads")
    require(
        matcher?.evaluate(request, source: stub, variables: &variables) == true,
        "a stub of the document does not match a request that sends it")
    return 0
}
