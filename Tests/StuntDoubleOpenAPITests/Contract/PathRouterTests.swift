import StuntDouble
import Testing

@testable import StuntDoubleOpenAPI

/// `PathRouter` alone: which operation a method and a path reach, with the path variables as sent; which
/// methods a path has when the request's is not one; and no path at all.
@Suite struct PathRouterTests {
    static let contract: OpenAPIContract = {
        let paths = [
            ("/pets", ["get", "post"]), ("/pets/{id}", ["get", "delete"]), ("/pets/mine", ["get"]),
            ("/files/{name}.{ext}", ["get"]), ("/files/{name}", ["get"]),
            ("/users/{userId}/orders/{orderId}", ["get"]), ("/", ["get"]),
        ]
        .map { path, methods in
            #""\#(path)": {"# + methods.map { #""\#($0)": \#(Self.operation(path))"# }.joined(separator: ", ") + "}"
        }
        .joined(separator: ", ")
        let document = #"""
            {"openapi": "3.1.0", "info": {"title": "T", "version": "1"}, "servers": [{"url": "https://api.test/v1"}],
             "paths": {\#(paths)}}
            """#
        do {
            return try OpenAPIContract(text: document)
        } catch {
            fatalError("\(error)")
        }
    }()

    /// An operation on `path`, declaring its path variables.
    static func operation(_ path: String) -> String {
        let parameters = PathTemplate.variables(in: path).map {
            #"{"name": "\#($0)", "in": "path", "required": true, "schema": {"type": "string"}}"#
        }
        return #"{"parameters": [\#(parameters.joined(separator: ", "))], "responses": {"204": {"description": "ok"}}}"#
    }

    /// What routing a request finds, in a line: `GET /pets/{id} id=7`, `405 /pets/{id} allows DELETE GET`,
    /// `404`.
    static func route(_ method: HTTPMethod, _ path: String) -> String {
        switch contract.router.route(method: method, path: path[...]) {
        case .found(let match):
            let operation = contract.operations[match.operation]
            let variables = match.variables.map { " \($0.0)=\($0.1)" }.joined()
            return "\(operation.method.rawValue) \(operation.path)\(variables)"
        case .methodNotAllowed(let template, let allowed):
            return "405 \(template) allows " + allowed.map(\.rawValue).joined(separator: " ")
        case .noPath:
            return "404"
        }
    }

    @Test(arguments: [
        ("GET", "/pets", "GET /pets"),
        ("POST", "/pets", "POST /pets"),
        ("GET", "/pets/7", "GET /pets/{id} id=7"),
        // The servers' base path may come first, or not.
        ("GET", "/v1/pets/7", "GET /pets/{id} id=7"),
        ("GET", "/v1", "GET /"),
        ("GET", "/", "GET /"),
        ("GET", "/v2/pets", "404"),
        // A literal segment wins over a template; a method it lacks falls through to the template.
        ("GET", "/pets/mine", "GET /pets/mine"),
        ("DELETE", "/pets/mine", "DELETE /pets/{id} id=mine"),
        // HEAD is answered as GET.
        ("HEAD", "/pets/7", "GET /pets/{id} id=7"),
        ("PUT", "/pets/7", "405 /pets/{id} allows DELETE GET"),
        ("PATCH", "/pets", "405 /pets allows GET POST"),
        // Variables are taken as sent: percent-encoding stays, an encoded slash stays in one segment.
        ("GET", "/pets/a%2Fb", "GET /pets/{id} id=a%2Fb"),
        ("GET", "/pets/a/b", "404"),
        // An empty segment is no value.
        ("GET", "/pets/", "404"),
        // More literal text first: {name}.{ext} before {name}; the first dot ends the name.
        ("GET", "/files/report.tar.gz", "GET /files/{name}.{ext} name=report ext=tar.gz"),
        ("GET", "/files/readme", "GET /files/{name} name=readme"),
        ("GET", "/files/.env", "GET /files/{name} name=.env"),
        ("GET", "/users/1/orders/2", "GET /users/{userId}/orders/{orderId} userId=1 orderId=2"),
        ("GET", "/users/1/orders", "404"),
        ("GET", "/users//orders/2", "404"),
    ])
    func aRequestReachesItsOperation(method: String, path: String, expected: String) {
        #expect(Self.route(HTTPMethod(rawValue: method), path) == expected)
    }

    @Test func tenThousandOperationsRouteAsOneDoes() throws {
        let operation = Self.operation("/{id}/items/{item}")
        let paths = (0..<10_000).map { #""/r\#($0)/{id}/items/{item}": {"get": \#(operation)}"# }.joined(
            separator: ", ")
        let contract = try OpenAPIContract(
            text: #"{"openapi": "3.1.0", "info": {"title": "T", "version": "1"}, "paths": {\#(paths)}}"#)
        guard case .found(let match) = contract.router.route(method: .get, path: "/r9999/5/items/6") else {
            Issue.record("not found")
            return
        }
        #expect(contract.operations[match.operation].path == "/r9999/{id}/items/{item}")
        #expect(match.variables.map { "\($0.0)=\($0.1)" } == ["id=5", "item=6"])
    }
}
