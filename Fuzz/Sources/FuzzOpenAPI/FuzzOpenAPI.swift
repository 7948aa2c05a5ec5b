// Input: an OpenAPI document (YAML or JSON). A document that loads is asked, for each operation, to check a
// request made from its example path and to answer it (statically and dynamically); each answer is checked
// against the document. Nothing may trap, hang or grow without bound; an error names what was wrong.
//
// DocumentRepair's property: a document it repaired needs no more repair: repaired again, nothing changes and no
// deviation is noted that the first repair did not note (some are read as written, not rewritten).

import Foundation
import FuzzSupport

@testable import StuntDouble
@testable import StuntDoubleOpenAPI

/// A folder with nothing in it: `$ref`s to other files fail as missing, never read what is on the machine.
let emptyFolder = URL(fileURLWithPath: "/nonexistent-stuntdouble-fuzz")

/// Requests every document is asked about, whatever its paths.
let probes: [HTTPIncomingRequest] = [
    try! HTTPIncomingRequest(method: .get, url: URL(string: "http://localhost/")!),
    try! HTTPIncomingRequest(
        method: .post, url: URL(string: "http://localhost/a/1?x=1&x=2&f%5Bk%5D=v&p=a|b")!,
        headers: ["Content-Type": "application/json", "Cookie": "s=1; t=", "Authorization": "Bearer t"],
        body: Data(#"{"a": [1, {"b": null}], "c": "d"}"#.utf8)),
    try! HTTPIncomingRequest(
        method: .put, url: URL(string: "http://localhost/a/;x=1,2/.y.z")!,
        headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Data("a=1&a=2&b=".utf8)),
]

/// libFuzzer's entry point: checks one input; a violated property aborts.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let contract: OpenAPIContract
    do {
        contract = try OpenAPIContract(text: text, folder: emptyFolder)
    } catch {
        require(!error.message.isEmpty, "an error without a message")
        return 0
    }
    requireRepairIsFinal(text, isVersion30: contract.version.hasPrefix("3.0"))
    let stubber = HTTPStubber(journalCapacity: 0)
    stubber.load(contract)
    var requests = probes
    for index in contract.operations.indices {
        let path = contract.samplePath(for: index)
        if let url = URL(string: "http://localhost" + path),
            let request = try? HTTPIncomingRequest(method: contract.operations[index].method, url: url)
        {
            requests.append(request)
        }
    }
    for request in requests {
        _ = contract.violations(of: request)
        for dynamic in [false, true] {
            var headers = request.headers
            if dynamic { headers[HTTPHeaders.Name(rawValue: "Prefer")] = "dynamic=true" }
            guard
                let sent = try? HTTPIncomingRequest(
                    method: request.method, url: request.url, headers: headers, body: request.body),
                case .stub(let plan) = stubber.decision(for: sent), let response = plan.response
            else { continue }
            for violation in contract.violations(
                ofResponse: response.statusCode.rawValue, headers: response.headers, body: response.body, to: sent)
            {
                require(!violation.message.isEmpty, "a violation without a message")
                _ = violation.description
            }
        }
    }
    return 0
}

/// Repairs a document's main file twice: the second repair must note nothing and change nothing. On a thread with
/// a large stack, as the contract reads documents (repairing recurses once a level of nesting).
func requireRepairIsFinal(_ text: String, isVersion30: Bool) {
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        defer { done.signal() }
        guard let documents = try? DocumentSet(text: text, name: "openapi", folder: emptyFolder) else { return }
        documents.repairsAsVersion30 = isVersion30
        var first = DocumentRepair(documents: documents, isVersion30: isVersion30)
        guard let once = try? first.repairMain(documents.main) else { return }
        documents.replaceMain(once)
        var second = DocumentRepair(documents: documents, isVersion30: isVersion30)
        do throws(OpenAPIContractError) {
            let twice = try second.repairMain(once)
            // (Some deviations are read as written, not rewritten, and noted again: nothing new may be.)
            let noted = Set(first.deviations.map(\.message))
            require(
                second.deviations.allSatisfy { noted.contains($0.message) },
                "a repaired document has new deviations: \(second.deviations.map(\.message)); first \(noted)")
            require(twice.jsonText == once.jsonText, "a repaired document changes when repaired again")
        } catch {
            require(false, "a repaired document is refused when repaired again: \(error.message)")
        }
    }
    thread.stackSize = 64 << 20
    thread.start()
    done.wait()
}
