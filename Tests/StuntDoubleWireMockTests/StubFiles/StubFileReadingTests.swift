import Foundation
import TestSupport
import Testing

@testable import StuntDouble
@testable import StuntDoubleWireMock

/// Reading WireMock's mapping files: what is read, in what order, and every diagnostic with its place.
@Suite struct StubFileReadingTests {
    @Test func readsEveryJSONFileUnderMappingsInPathOrderAndSkipsOthers() throws {
        let root = try StubRoot([
            "mappings/b.json": #"{"request": {"url": "/b"}, "response": {"body": "b"}}"#,
            "mappings/a.json": #"{"mappings": [{"request": {"url": "/a1"}}, {"request": {"url": "/a2"}}]}"#,
            "mappings/nested/c.json": #"{"request": {"url": "/c"}}"#,
            "mappings/.gitkeep": "",
            "mappings/README.md": "# notes, not JSON",
            "mappings/old.json.bak": "{ not json",
        ])
        let files = root.files
        #expect(files.diagnostics.isEmpty, "\(files.diagnostics)")
        #expect(files.mappingCount == 4)
        let root2 = root.url.path
        #expect(files.files == ["a.json", "b.json", "nested/c.json"].map { "\(root2)/mappings/\($0)" })
        #expect(files.specs.map(\.line) == [1, 1, 1, 1])
    }

    @Test func readsLikeWireMockCommentsSingleQuotesDuplicatesAndTrailingText() throws {
        let root = try StubRoot(
            mapping: """
                // a comment, as WireMock allows
                {
                  'request': { "method": "GET", "url": "/old", "url": "/new" }, /* block */
                  "response": { "status": "201", "body": 'it\\'s "here"' }
                } trailing text that WireMock never reads
                """)
        let stubber = try root.stubber()
        #expect(stubber.bodyText("GET", "http://localhost/new") == #"it's "here""#)
        #expect(stubber.plan("GET", "http://localhost/new")?.response?.statusCode == .created)
        #expect(stubber.plan("GET", "http://localhost/old") == nil, "the last duplicate wins")
        #expect(
            root.problems == [
                "5:3: warning: text after the mapping is ignored (as WireMock ignores it); remove it",
                "3:48: warning: request.url: written twice; the last one wins (as in WireMock): remove the other",
            ])
    }

    @Test func diagnosticsNameTheFileLineColumnAndField() throws {
        let root = try StubRoot(
            mapping: """
                {
                  "request": {"method": "GET", "url": "/x"},
                  "response": {"status": 200, "bodee": "hello"}
                }
                """)
        let diagnostic = try #require(root.files.diagnostics.first)
        #expect(
            diagnostic.description
                == "\(root.url.path)/mappings/stub.json:3:31: warning: response.bodee: unknown field; WireMock 2.35.1 "
                + #"refuses the file, StuntDouble ignores the field; did you mean "body"?"#)
        #expect(root.files.errors.isEmpty, "a warning: the file is still served")
        #expect(try root.stubber().plan("GET", "http://h/x") != nil)
    }

    @Test(arguments: [
        (
            #"{"request": {"url": "/x"}, "response": {"fault": "RESET"}}"#,
            #"response.fault: "RESET" is not a fault"#
        ),
        (
            #"{"request": {"url": "/x"}, "response": {"proxyBaseUrl": "ftp://up"}}"#,
            #"response.proxyBaseUrl: "ftp://up" is not an http or https URL with a host"#
        ),
        (
            #"{"request": {"url": "/x"}, "response": {"transformers": ["an-extension"]}}"#,
            #"response.transformers[0]: the transformer "an-extension" is not supported"#
        ),
        (
            #"{"request": {"url": "/x"}, "postServeActions": [{"name": "webhook"}]}"#,
            "postServeActions[0].parameters: a webhook needs parameters: at least a url"
        ),
        (
            #"{"request": {"url": "/x", "multipartPatterns": [{}]}}"#,
            "request.multipartPatterns: multipart matching is not supported yet"
        ),
        (
            #"{"request": {"url": "/x", "bodyPatterns": [{"equalToXml": "<a/>"}]}}"#,
            "request.bodyPatterns[0].equalToXml: the equalToXml operator is not supported yet"
        ),
        (#"{"request": {"url": "/x", "headers": {"A": {"wat": "b"}}}}"#, "request.headers.A: no match operator"),
        (
            #"{"request": {"url": "/x", "headers": {"A": {"equalTo": 5}}}}"#,
            "request.headers.A.equalTo: the equalTo operand must be a string"
        ),
        (
            #"{"request": {"urlPattern": "/x(("}}"#,
            #"request.urlPattern: the regular expression "/x((" does not compile"#
        ),
        (#"{"id": "nope", "request": {"url": "/x"}}"#, #"id: "nope" is not a UUID"#),
        (#"{"request": {"url": "/x"}, "response": {"headers": {"N": 5}}}"#, "response.headers.N: a header value"),
        (
            #"{"request": {"url": "/x"}, "response": {"body": {"a": 1}}}"#,
            "response.body: body (a JSON value goes in jsonBody) must be a string"
        ),
        (
            #"{"request": {"url": "/x"}, "response": {"status": 999}}"#,
            "response.status: 999 is not an HTTP status code"
        ),
        (#"{"request": {"url": "/x", "bodyPatterns": [{"matchesJsonPath": "$.a[?(@.b =="}]}}"#, "does not parse"),
        (#"{"request": {"urlPathTemplate": "/x/{id"}}"#, "request.urlPathTemplate"),
        (#"[1, 2]"#, "a stub file holds one mapping object"),
        (#"{"request": {"url": "/x"},}"#, "the file is not valid JSON: expected a key in quotes"),
        ("  ", "the file is empty"),
    ])
    func errorsStopTheFilesFromLoading(json: String, expected: String) throws {
        let root = try StubRoot(mapping: json)
        let errors = root.files.errors.map(\.description)
        #expect(errors.contains { $0.contains(expected) }, "\(errors)")
        #expect {
            try root.stubber()
        } throws: { error in
            (error as? HTTPStubberError)?.code == .invalidStubFile
                && (error as? HTTPStubberError)?.diagnostics.isEmpty == false
        }
    }

    @Test func warningsForWhatWireMockSilentlyDrops() throws {
        let root = try StubRoot(
            mapping: """
                {"request": {"urlPath": "/x", "urlPathPattern": "/y", "queryParameters": {"q": {"equalTo": "a", "contains": "z"}}},
                 "response": {"body": "b", "jsonBody": {"j": 1}, "headers": {"Content-Length": "999"}}}
                """)
        let problems = root.problems
        #expect(
            problems.contains { $0.contains("request.urlPathPattern: ignored: WireMock uses only the first of url") })
        #expect(
            problems.contains {
                $0.contains("request.queryParameters.q.contains: ignored: WireMock uses only the first operator")
            })
        #expect(problems.contains { $0.contains("response.jsonBody: ignored: WireMock uses only the first of body") })
        #expect(
            problems.contains { $0.contains("response.headers.Content-Length: 999 does not match the body's 1 bytes") })
        #expect(root.files.errors.isEmpty)
        let stubber = try root.stubber()
        let plan = try #require(stubber.plan("GET", "http://h/x?q=a"))
        #expect(plan.response?.headers[.contentLength] == "1", "the body's length is sent")
        #expect(stubber.plan("GET", "http://h/x?q=az") == nil, "equalTo decided, as in WireMock")
    }

    @Test func aBodyFileOutsideFilesIsNeverReadAndAnswers500() throws {
        let root = try StubRoot([
            "mappings/files.json": """
            {"mappings": [
              {"request": {"url": "/ok"}, "response": {"bodyFileName": "users/list.json"}},
              {"request": {"url": "/dotdot"}, "response": {"bodyFileName": "../secret.txt"}},
              {"request": {"url": "/absolute"}, "response": {"bodyFileName": "/etc/hostname"}},
              {"request": {"url": "/link"}, "response": {"bodyFileName": "link.txt"}},
              {"request": {"url": "/missing"}, "response": {"bodyFileName": "nope.txt"}}
            ]}
            """,
            "__files/users/list.json": #"[{"name": "mark"}]"#,
            "secret.txt": "the secret",
        ])
        try FileManager.default.createSymbolicLink(
            atPath: root.url.appendingPathComponent("__files/link.txt").path,
            withDestinationPath: root.url.appendingPathComponent("secret.txt").path)
        let warnings = root.files.warnings.map(\.description)
        #expect(warnings.count == 4, "\(warnings)")
        #expect(warnings.allSatisfy { $0.contains("the stub answers 500, as WireMock does") })
        let stubber = try root.stubber()
        #expect(stubber.bodyText("GET", "http://h/ok") == #"[{"name": "mark"}]"#)
        for path in ["/dotdot", "/absolute", "/link", "/missing"] {
            let plan = try #require(stubber.plan("GET", "http://h\(path)"))
            #expect(plan.response?.statusCode == .internalServerError, "\(path)")
            #expect(!String(decoding: plan.body, as: UTF8.self).contains("the secret"))
        }
    }

    @Test func aMissingRootOrMappingsFolderIsAnError() throws {
        let missing = StubFiles(path: "/no/such/folder")
        #expect(missing.errors.first?.description.contains("/no/such/folder:1:1: error: no such folder") == true)
        let root = try StubRoot([:])
        try FileManager.default.removeItem(at: root.url.appendingPathComponent("mappings"))
        #expect(root.files.errors.first?.message.contains("no mappings/ folder here") == true)
    }

    @Test func idsAreKeptOrDerivedTheSameOnEveryLoad() throws {
        let root = try StubRoot(
            mapping: """
                {"mappings": [
                  {"id": "8c5db8b0-2db4-4ad7-a99f-38c9b00da3f7", "uuid": "8c5db8b0-2db4-4ad7-a99f-38c9b00da3f7",
                   "request": {"url": "/a"}},
                  {"request": {"url": "/b"}}
                ]}
                """)
        let first = try HTTPStubber().load(root.files)
        let second = try HTTPStubber().load(root.files)
        #expect(first[0].id == UUID(uuidString: "8c5db8b0-2db4-4ad7-a99f-38c9b00da3f7"))
        #expect(first[1].id == second[1].id)
        #expect(first[1].id != first[0].id)
        #expect(first[0].stub.mappingID == first[0].id)
        #expect(first[1].description.hasSuffix("/mappings/stub.json:4)"))
    }

    @Test func checkReadsFilesOneByOneAndFindsTheirBodies() throws {
        let root = try StubRoot([
            "mappings/a.json": #"{"request": {"url": "/a"}, "response": {"bodyFileName": "a.txt"}}"#,
            "__files/a.txt": "A",
        ])
        let path = root.url.appendingPathComponent("mappings/a.json").path
        #expect(StubFiles.check(files: [path]).isEmpty)
        #expect(StubFiles.check(files: ["/no/such.json"]).first?.message.contains("no such file") == true)
    }
}
