// What an OpenAPI document costs at scale: loading (YAML and JSON) with thousands of operations and deep
// schemas, loading one split over 2,850 files as DigitalOcean's is (its operations `$ref`s to files of their own),
// finding an operation as the operations grow (flat: a tree of path segments), and checking a request
// (parameters, and a body nested eight levels deep).
//
//   swift run -c release --package-path Benchmarks OpenAPIBenchmark [--quick]
import Foundation
import StuntDouble
import StuntDoubleOpenAPI

/// A document of `operations` operations (half GET with a path and a query parameter, half PUT with a body),
/// over 50 item schemas that each hold an eight-level chain of nested schemas.
func document(operations: Int, json: Bool) -> String {
    var paths: [String] = []
    for index in 0..<(operations / 2) {
        let item = "#/components/schemas/Item\(index % 50)"
        paths.append(
            """
            "/resource\(index)/items/{itemId}": {
              "get": {"operationId": "getItem\(index)",
                "parameters": [
                  {"name": "itemId", "in": "path", "required": true, "schema": {"type": "integer", "minimum": 1}},
                  {"name": "expand", "in": "query", "schema": {"type": "array", "items": {"type": "string", "enum": ["owner", "history", "tags"]}}}],
                "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "\(item)"}}}}}},
              "put": {"operationId": "putItem\(index)",
                "parameters": [{"name": "itemId", "in": "path", "required": true, "schema": {"type": "integer", "minimum": 1}}],
                "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "\(item)"}}}},
                "responses": {"204": {"description": "stored"}}}
            }
            """)
    }
    var schemas: [String] = []
    for index in 0..<50 {
        schemas.append(
            """
            "Item\(index)": {"type": "object", "required": ["id", "name", "detail"], "properties": {
              "id": {"type": "integer", "minimum": 1}, "name": {"type": "string", "minLength": 1, "maxLength": 80},
              "state": {"type": "string", "enum": ["draft", "live", "gone"]},
              "detail": {"$ref": "#/components/schemas/Level0"}}}
            """)
    }
    for depth in 0..<8 {
        let child = depth < 7 ? ##", "child": {"$ref": "#/components/schemas/Level\##(depth + 1)"}"## : ""
        schemas.append(
            """
            "Level\(depth)": {"type": "object", "required": ["value"], "properties": {
              "value": {"type": "number", "minimum": 0}, "code": {"type": "string", "pattern": "^[A-Z]{2}[0-9]{2}$"},
              "tags": {"type": "array", "maxItems": 8, "items": {"type": "string"}}\(child)}}
            """)
    }
    let text = """
        {"openapi": "3.1.0", "info": {"title": "Scale", "version": "1"},
         "paths": {\(paths.joined(separator: ",\n"))},
         "components": {"schemas": {\(schemas.joined(separator: ",\n"))}}}
        """
    return json ? text : blockYAML(text)
}

/// The same document in YAML's block style, as people write it (strings in double quotes, which YAML reads as
/// JSON does).
func blockYAML(_ json: String) -> String {
    // The text is ours: it parses.
    let value = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) ?? [:]
    var output = ""
    func quoted(_ text: String) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: [text])) ?? Data("[\"\"]".utf8)
        return String(decoding: data, as: UTF8.self).dropFirst().dropLast().description
    }
    func scalar(_ value: Any) -> String? {
        switch value {
        case let text as String: quoted(text)
        case let number as NSNumber:
            // JSONSerialization's booleans are NSNumbers of type "c".
            String(cString: number.objCType) == "c" ? (number.boolValue ? "true" : "false") : "\(number)"
        default: nil
        }
    }
    func write(_ value: Any, indent: String) {
        if let object = value as? [String: Any] {
            for key in object.keys.sorted() {
                let member = object[key]!
                if let text = scalar(member) {
                    output += "\(indent)\(quoted(key)): \(text)\n"
                } else if let array = member as? [Any], array.isEmpty {
                    output += "\(indent)\(quoted(key)): []\n"
                } else {
                    output += "\(indent)\(quoted(key)):\n"
                    write(member, indent: indent + "  ")
                }
            }
        } else if let array = value as? [Any] {
            for item in array {
                if let text = scalar(item) {
                    output += "\(indent)- \(text)\n"
                } else {
                    output += "\(indent)-\n"
                    write(item, indent: indent + "  ")
                }
            }
        }
    }
    write(value, indent: "")
    return output
}

func measure(_ label: String, repetitions: Int, _ body: () throws -> Void) rethrows -> Double {
    // One round to warm up, then the best of three.
    try body()
    var best = Double.infinity
    for _ in 0..<3 {
        let start = ContinuousClock.now
        for _ in 0..<repetitions { try body() }
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        best = min(best, seconds / Double(repetitions))
    }
    return best
}

func body(depth: Int) -> String {
    var level = #"{"value": 1.5, "code": "AB12", "tags": ["x", "y"]}"#
    for _ in 1..<depth {
        level = #"{"value": 2, "code": "CD34", "tags": ["z"], "child": \#(level)}"#
    }
    return #"{"id": 7, "name": "Widget", "state": "live", "detail": \#(level)}"#
}

// `OpenAPIBenchmark load N`: load a document of N operations once (for profilers), nothing else.
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "load", let count = Int(CommandLine.arguments[2]) {
    _ = try OpenAPIContract(text: document(operations: count, json: true))
    exit(0)
}

// `OpenAPIBenchmark check N`: check a GET 200,000 times against a document of N operations (for profilers).
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "check", let count = Int(CommandLine.arguments[2]) {
    let contract = try OpenAPIContract(text: document(operations: count, json: true))
    let get = try HTTPIncomingRequest(
        method: .get, url: URL(string: "http://localhost/resource\(count / 2 - 1)/items/42?expand=owner&expand=tags")!)
    let put = try HTTPIncomingRequest(
        method: .put, url: URL(string: "http://localhost/resource\(count / 2 - 1)/items/42")!,
        headers: ["Content-Type": "application/json"], body: Data(body(depth: 8).utf8))
    for _ in 0..<100_000 {
        _ = contract.violations(of: get)
        _ = contract.violations(of: put)
    }
    exit(0)
}

// `--quick` (CI): 100 and 1,000 operations only.
let counts = CommandLine.arguments.contains("--quick") ? [100, 1_000] : [100, 1_000, 10_000]
print("OpenAPI documents: load, route and check (release build, best of 3)")
for count in counts {
    for json in [true, false] {
        let text = document(operations: count, json: json)
        let seconds = try measure("load", repetitions: count >= 10_000 ? 1 : 3) {
            _ = try OpenAPIContract(text: text)
        }
        print(
            String(
                format: "  load %6d operations (%@, %5.1f MB): %8.1f ms", count, json ? "JSON" : "YAML",
                Double(text.utf8.count) / 1e6, seconds * 1000))
    }
}

/// A document split over 2,850 YAML files in the layout of DigitalOcean's public description: a main file whose 1,400
/// operations are each a `$ref` to a file of its own (which the specification does not allow, and which is read
/// with a deviation each), each naming a model file of its own and one of 49 shared parameter files.
func splitDocument(in folder: URL) throws -> URL {
    let fileManager = FileManager.default
    for part in ["resources", "models", "parameters"] {
        try fileManager.createDirectory(at: folder.appendingPathComponent(part), withIntermediateDirectories: true)
    }
    var main = "openapi: 3.0.3\ninfo: {title: Split, version: '1'}\npaths:\n"
    for index in 0..<700 {
        main += "  /v2/things\(index)/{thing_id}:\n"
        for method in ["get", "put"] {
            main += "    \(method):\n      $ref: resources/\(method)_thing\(index).yml\n"
            let operation = """
                operationId: \(method)Thing\(index)
                parameters:
                  - $ref: ../parameters/shared\(index % 49).yml#/thing_id
                \(method == "put" ? "requestBody: {required: true, content: {application/json: {schema: {$ref: ../models/\(method)_thing\(index).yml}}}}" : "")
                responses:
                  '200':
                    description: the thing
                    content: {application/json: {schema: {$ref: ../models/\(method)_thing\(index).yml}}}
                """
            try Data(operation.utf8).write(
                to: folder.appendingPathComponent("resources/\(method)_thing\(index).yml"))
            let model = """
                type: object
                required: [id, name]
                properties:
                  id: {type: integer, minimum: 1}
                  name: {type: string, maxLength: 80}
                  state: {type: string, enum: [draft, live, gone]}
                example: {id: \(index + 1), name: thing \(index), state: live}
                """
            try Data(model.utf8).write(to: folder.appendingPathComponent("models/\(method)_thing\(index).yml"))
        }
    }
    for index in 0..<49 {
        try Data("thing_id: {name: thing_id, in: path, required: true, schema: {type: integer, minimum: 1}}\n".utf8)
            .write(to: folder.appendingPathComponent("parameters/shared\(index).yml"))
    }
    let url = folder.appendingPathComponent("openapi.yaml")
    try Data(main.utf8).write(to: url)
    return url
}

let splitFolder = FileManager.default.temporaryDirectory.appendingPathComponent("split-\(UUID().uuidString)")
defer { try? FileManager.default.removeItem(at: splitFolder) }
let splitMain = try splitDocument(in: splitFolder)
let splitFiles = (FileManager.default.enumerator(atPath: splitFolder.path)?.allObjects.count ?? 0) - 3
var splitContract: OpenAPIContract?
let splitSeconds = try measure("split", repetitions: 1) { splitContract = try OpenAPIContract(contentsOf: splitMain) }
print(
    String(
        format: "  load a document split over %d files (1,400 operations, each a $ref): %8.1f ms, %d deviations read",
        splitFiles, splitSeconds * 1000, splitContract?.deviations.count ?? 0))

for count in counts {
    let contract = try OpenAPIContract(text: document(operations: count, json: true))
    let last = count / 2 - 1
    let get = try HTTPIncomingRequest(
        method: .get, url: URL(string: "http://localhost/resource\(last)/items/42?expand=owner&expand=tags")!)
    let put = try HTTPIncomingRequest(
        method: .put, url: URL(string: "http://localhost/resource\(last)/items/42")!,
        headers: ["Content-Type": "application/json"], body: Data(body(depth: 8).utf8))
    precondition(contract.violations(of: get).isEmpty && contract.violations(of: put).isEmpty)
    let getSeconds = measure("get", repetitions: 20_000) { _ = contract.violations(of: get) }
    let putSeconds = measure("put", repetitions: 5_000) { _ = contract.violations(of: put) }
    let stubber = HTTPStubber(journalCapacity: 0)
    stubber.load(contract)
    let answerSeconds = try measure("answer", repetitions: 5_000) { _ = try stubber.response(for: get) }
    print(
        String(
            format:
                "  %6d operations: check GET (route + 2 parameters) %6.2f µs, PUT (route + body 8 levels deep) %6.2f µs, "
                + "answer GET through a stubber %6.2f µs",
            count, getSeconds * 1e6, putSeconds * 1e6, answerSeconds * 1e6))
}
