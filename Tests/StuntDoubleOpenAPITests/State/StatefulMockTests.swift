import Foundation
import StuntDouble
import Testing

@testable import StuntDoubleOpenAPI

/// `OpenAPIAnswering(isStateful: true)`: a document's collections keep what requests make, and everything is
/// still checked against the document.
@Suite("A stateful OpenAPI mock")
struct StatefulMockTests {
    static let kennel: OpenAPIContract = {
        do {
            return try OpenAPIContract(contentsOf: Documents.url("kennel.yaml"))
        } catch {
            fatalError("\(error)")
        }
    }()

    static let base = "https://kennel.test/v1"

    /// A stubber with the kennel loaded statefully, and a way to send it requests.
    struct Kennel {
        let stubber = HTTPStubber()
        let document: LoadedOpenAPIDocument

        init(fromExamples: Bool = false) {
            document = stubber.load(
                StatefulMockTests.kennel,
                answering: OpenAPIAnswering(isStateful: true, startsFromExamples: fromExamples))
        }

        @discardableResult
        func send(
            _ method: HTTPMethod, _ path: String, json: String? = nil, contentType: String? = nil
        ) throws -> HTTPResponsePlan {
            var headers: [String: String] = [:]
            if let contentType { headers["Content-Type"] = contentType }
            return try stubber.response(
                for: try request(method, StatefulMockTests.base + path, headers: headers, json: json))
        }
    }

    @Test func aDogIsMadeReadListedChangedAndRemoved() throws {
        let kennel = Kennel()
        let made = try kennel.send(.post, "/dogs", json: #"{"name": "Bolt", "secret": "s3cret"}"#)
        #expect(made.status == 201)
        let dog = try #require(made.json as? [String: Any])
        #expect(dog["id"] as? Int == 1)
        #expect(dog["name"] as? String == "Bolt")
        #expect(dog["status"] as? String == "available", "the schema's default for a required member left out")
        #expect(dog["joined"] is String)
        #expect(dog["secret"] == nil, "write-only members are kept, never answered")
        #expect(made.response?.headers[.location] == "/v1/dogs/1")
        #expect(made.response?.headers["StuntDouble-Violations"] == nil)

        let read = try kennel.send(.get, "/dogs/1")
        #expect(read.status == 200)
        #expect(read.text == made.text)
        let listed = try kennel.send(.get, "/dogs")
        #expect((listed.json as? [[String: Any]])?.map { $0["name"] as? String } == ["Bolt"])

        let replaced = try kennel.send(.put, "/dogs/1", json: #"{"name": "Bolt II", "status": "adopted"}"#)
        #expect(replaced.status == 200)
        #expect((replaced.json as? [String: Any])?["id"] as? Int == 1, "the path names the dog, not the body")
        #expect((replaced.json as? [String: Any])?["status"] as? String == "adopted")

        let merged = try kennel.send(
            .patch, "/dogs/1", json: #"{"name": "Bolt III"}"#, contentType: "application/merge-patch+json")
        #expect(merged.status == 200)
        #expect((merged.json as? [String: Any])?["name"] as? String == "Bolt III")
        #expect((merged.json as? [String: Any])?["status"] as? String == "adopted")

        let patched = try kennel.send(
            .patch, "/dogs/1",
            json:
                #"[{"op": "test", "path": "/name", "value": "Bolt III"}, {"op": "replace", "path": "/status", "value": "available"}]"#,
            contentType: "application/json-patch+json")
        #expect(patched.status == 200)
        #expect((patched.json as? [String: Any])?["status"] as? String == "available")

        let removed = try kennel.send(.delete, "/dogs/1")
        #expect(removed.status == 204)
        let gone = try kennel.send(.get, "/dogs/1")
        #expect(gone.status == 404)
        #expect(gone.response?.headers[.contentType] == "application/json", "the document's own 404 response")
        #expect(gone.response?.headers["StuntDouble-Violations"]?.contains("/dogs has no 1") == true)
        #expect(try kennel.send(.delete, "/dogs/1").status == 404)
        #expect(try kennel.send(.get, "/dogs").text == "[]")
    }

    @Test func idsFollowTheLargestNumberAndAGivenIdIsKeptOrRefusedWhenTaken() throws {
        let kennel = Kennel()
        for name in ["A", "B"] { try kennel.send(.post, "/dogs", json: #"{"name": "\#(name)"}"#) }
        let chosen = try kennel.send(.post, "/dogs", json: #"{"id": 10, "name": "C"}"#)
        #expect((chosen.json as? [String: Any])?["id"] as? Int == 10)
        let next = try kennel.send(.post, "/dogs", json: #"{"name": "D"}"#)
        #expect((next.json as? [String: Any])?["id"] as? Int == 11)
        let taken = try kennel.send(.post, "/dogs", json: #"{"id": 10, "name": "E"}"#)
        #expect(taken.status == 409)
        #expect(taken.response?.headers["StuntDouble-Violations"]?.contains("has 10 already") == true)
        let ids = (try kennel.send(.get, "/dogs").json as? [[String: Any]])?.compactMap { $0["id"] as? Int }
        #expect(ids == [1, 2, 10, 11])
    }

    @Test func aListIsFilteredAndPagedByTheParametersTheDocumentDeclares() throws {
        let kennel = Kennel()
        for index in 1...25 {
            let status = index.isMultiple(of: 5) ? "adopted" : "available"
            try kennel.send(.post, "/dogs", json: #"{"name": "Dog \#(index)", "status": "\#(status)"}"#)
        }
        func ids(_ query: String) throws -> [Int] {
            (try kennel.send(.get, "/dogs" + query).json as? [[String: Any]])?.compactMap { $0["id"] as? Int } ?? []
        }
        #expect(try ids("").count == 20, "limit's default in the document")
        #expect(try ids("?limit=5&offset=20") == [21, 22, 23, 24, 25])
        #expect(try ids("?status=adopted") == [5, 10, 15, 20, 25])
        #expect(try ids("?status=adopted&limit=2&offset=1") == [10, 15])
        #expect(try ids("?offset=30").isEmpty)
    }

    @Test func nestedCollectionsKeepTheirOwnItemsInTheDocumentsEnvelopes() throws {
        let kennel = Kennel()
        let made = try kennel.send(.post, "/kennels/north/visits", json: #"{"visitor": "Ann"}"#)
        #expect(made.status == 201)
        let visit = try #require((made.json as? [String: Any])?["visit"] as? [String: Any])
        let id = try #require(visit["visitId"] as? String)
        #expect(UUID(uuidString: id) != nil, "an id made to the schema's format")
        #expect(visit["visitor"] as? String == "Ann")
        #expect(made.response?.headers["StuntDouble-Violations"] == nil)

        let read = try kennel.send(.get, "/kennels/north/visits/\(id)")
        #expect(read.status == 200)
        #expect(((read.json as? [String: Any])?["visit"] as? [String: Any])?["visitId"] as? String == id)
        #expect(try kennel.send(.get, "/kennels/south/visits/\(id)").status == 404, "another kennel's visits")

        try kennel.send(.post, "/kennels/north/visits", json: #"{"visitor": "Bob"}"#)
        let page = try #require(try kennel.send(.get, "/kennels/north/visits?per_page=1&page=2").json as? [String: Any])
        #expect(page["total"] as? Int == 2)
        #expect((page["data"] as? [[String: Any]])?.map { $0["visitor"] as? String } == ["Bob"])
        #expect(kennel.document.resources(at: "/kennels/north/visits").count == 2)
    }

    @Test func theDocumentsExamplesCanBeTheStartAndAResetGoesBackToIt() throws {
        let kennel = Kennel(fromExamples: true)
        let names = { () throws -> [String] in
            (try kennel.send(.get, "/dogs").json as? [[String: Any]])?.compactMap { $0["name"] as? String } ?? []
        }
        #expect(try names() == ["Rex", "Fido"])
        #expect((try kennel.send(.get, "/dogs/2").json as? [String: Any])?["name"] as? String == "Fido")
        let made = try kennel.send(.post, "/dogs", json: #"{"name": "Luna"}"#)
        #expect((made.json as? [String: Any])?["id"] as? Int == 3)
        try kennel.send(.delete, "/dogs/1")
        #expect(try names() == ["Fido", "Luna"])
        kennel.stubber.resetState()
        #expect(try names() == ["Rex", "Fido"])
        try kennel.send(.delete, "/dogs/1")
        kennel.document.resetState()
        #expect(try names() == ["Rex", "Fido"])
    }

    @Test func requestsAreStillCheckedAndARefusedOneChangesNothing() throws {
        let kennel = Kennel()
        let refused = try kennel.send(.post, "/dogs", json: #"{"name": ""}"#)
        #expect(refused.status == 400 || refused.status == 422)
        #expect(try kennel.send(.get, "/dogs").text == "[]")
        try kennel.send(.post, "/dogs", json: #"{"name": "Rex"}"#)
        #expect(try kennel.send(.get, "/dogs/0").status == 400, "dogId's minimum is 1: the document says so first")
        // A merge patch that would leave the dog without a name: the document's 422, and the dog as it was.
        let broken = try kennel.send(
            .patch, "/dogs/1", json: #"{"name": null}"#, contentType: "application/merge-patch+json")
        #expect(broken.status == 422)
        #expect(broken.response?.headers["StuntDouble-Violations"]?.contains("name") == true)
        let failedTest = try kennel.send(
            .patch, "/dogs/1", json: #"[{"op": "test", "path": "/name", "value": "Max"}]"#,
            contentType: "application/json-patch+json")
        #expect(failedTest.status == 409)
        #expect((try kennel.send(.get, "/dogs/1").json as? [String: Any])?["name"] as? String == "Rex")
    }

    @Test func eachStubberKeepsItsOwnResources() throws {
        let first = Kennel()
        let second = Kennel()
        try first.send(.post, "/dogs", json: #"{"name": "Rex"}"#)
        #expect(try second.send(.get, "/dogs/1").status == 404)
        #expect(first.document.resources(at: "/dogs").count == 1)
        #expect(second.document.resources(at: "/dogs").isEmpty)
    }

    @Test func preferAsksForTheDocumentsAnswersAsAStatelessMockGivesThem() throws {
        let kennel = Kennel()
        let plan = try kennel.stubber.response(
            for: try request(.get, StatefulMockTests.base + "/dogs/5", headers: ["Prefer": "code=200"]))
        #expect(plan.status == 200, "an example of a dog that was never made, because the request asks for it")
        #expect(kennel.document.statefulCollections.contains { $0.hasPrefix("/dogs and /dogs/{dogId} (id: id)") })
        #expect(kennel.document.statefulCollections.count == 2)
    }

    @Test func extensionsNameACollectionsPathAndIdOrLeaveAPathAlone() throws {
        let folder = try Documents.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("extensions.yaml")
        try Data(
            """
            openapi: 3.0.3
            info: { title: Extensions, version: "1" }
            paths:
              /pet:
                post:
                  requestBody:
                    content: { application/json: { schema: { $ref: "#/components/schemas/Pet" } } }
                  responses: { "200": { description: ok, content: { application/json: { schema: { $ref: "#/components/schemas/Pet" } } } } }
              /pet/findByTag:
                x-stuntdouble-collection: /pet
                get:
                  parameters: [{ name: tag, in: query, schema: { type: string } }]
                  responses: { "200": { description: ok, content: { application/json: { schema: { type: array, items: { $ref: "#/components/schemas/Pet" } } } } } }
              /pet/{name}:
                x-stuntdouble-id: code
                get:
                  parameters: [{ name: name, in: path, required: true, schema: { type: string } }]
                  responses: { "200": { description: ok, content: { application/json: { schema: { $ref: "#/components/schemas/Pet" } } } } }
              /reports/{day}:
                x-stuntdouble-collection: false
                get:
                  parameters: [{ name: day, in: path, required: true, schema: { type: string } }]
                  responses: { "200": { description: ok, content: { application/json: { schema: { type: object } } } } }
            components:
              schemas:
                Pet:
                  type: object
                  properties: { code: { type: string }, tag: { type: string } }
            """.utf8
        ).write(to: file)
        let stubber = HTTPStubber()
        let document = try stubber.load(openAPIAt: file, answering: OpenAPIAnswering(isStateful: true))
        #expect(document.statefulCollections == ["/pet and /pet/{name} (id: code)"])
        for (code, tag) in [("a1", "red"), ("b2", "blue"), ("c3", "red")] {
            let made = try stubber.response(
                for: try request(.post, "https://x.test/pet", json: #"{"code": "\#(code)", "tag": "\#(tag)"}"#))
            #expect(made.status == 200)
        }
        let found = try stubber.response(for: try request(.get, "https://x.test/pet/findByTag?tag=red"))
        #expect((found.json as? [[String: Any]])?.compactMap { $0["code"] as? String } == ["a1", "c3"])
        #expect(try stubber.response(for: try request(.get, "https://x.test/pet/b2")).status == 200)
        #expect(try stubber.response(for: try request(.get, "https://x.test/pet/zz")).status == 404)
        #expect(try stubber.response(for: try request(.get, "https://x.test/reports/monday")).status == 200)
    }
}
