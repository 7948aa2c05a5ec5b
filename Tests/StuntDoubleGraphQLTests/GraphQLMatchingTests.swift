import Foundation
import StuntDouble
import StuntDoubleGraphQL
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Several operations on one URL, told apart by the Swift matcher, for requests shaped as Apollo and other
/// clients send them.
@Suite struct GraphQLMatchingTests {
    static let url = "https://api.test/graphql"

    /// Three operations on one URL: by name, by query, by variables.
    static func stubber() -> HTTPStubber {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest(name: "hero").match(URL: url).graphQL(operationName: "Hero")
                .stub(for: .post, json: #"{"data": {"hero": {"name": "R2-D2"}}}"#))
        stubber.add(
            stub: HTTPStubRequest(name: "luke").match(URL: url)
                .graphQL(
                    query: "query Human($id: ID!) { human(id: $id) { name, height(unit: METER) } }",
                    variables: #"{"id": "1000"}"#
                )
                .stub(for: .post, json: #"{"data": {"human": {"name": "Luke"}}}"#))
        stubber.add(
            stub: HTTPStubRequest(name: "leia").match(URL: url)
                .graphQL(
                    query: "query Human($id: ID!) { human(id: $id) { name, height(unit: METER) } }",
                    variables: #"{"id": "1003"}"#
                )
                .stub(for: .post, json: #"{"data": {"human": {"name": "Leia"}}}"#))
        stubber.add(
            stub: HTTPStubRequest(name: "review").match(URL: url)
                .graphQL(
                    operationName: "CreateReview",
                    variables: #"{"review": {"stars": 5, "commentary": "${json-unit.any-string}"}}"#
                )
                .stub(for: .post, json: #"{"data": {"createReview": {"stars": 5}}}"#))
        return stubber
    }

    /// A POST as Apollo iOS sends it: operationName, query, variables (when any), and extensions.
    static func apollo(_ name: String?, query: String?, variables: String? = nil, hash: String? = nil) -> Data {
        var members: [String] = []
        if let name { members.append(#""operationName": "\#(name)""#) }
        if let query {
            let escaped = query.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(
                of: "\"", with: "\\\""
            )
            .replacingOccurrences(of: "\n", with: "\\n")
            members.append(#""query": "\#(escaped)""#)
        }
        if let variables { members.append(#""variables": \#(variables)"#) }
        var extensions = [#""clientLibrary": {"name": "apollo-ios", "version": "1.25.7"}"#]
        if let hash { extensions.append(#""persistedQuery": {"sha256Hash": "\#(hash)", "version": 1}"#) }
        members.append(#""extensions": {\#(extensions.joined(separator: ", "))}"#)
        return Data(("{" + members.joined(separator: ", ") + "}").utf8)
    }

    static func answer(_ stubber: HTTPStubber, _ body: Data, contentType: String = "application/json") -> String? {
        stubber.bodyText("POST", url, headers: ["Content-Type": contentType], body: body)
    }

    @Test func eachOperationGetsItsOwnStubWhateverTheQuerysLayout() {
        let stubber = Self.stubber()
        let layouts = [
            "query Human($id: ID!) { human(id: $id) { name height(unit: METER) } }",
            "query Human(\n  $id: ID!\n) {\n  human(id: $id) {\n    height(unit: METER)\n    name\n  }\n}\n",
            "query Human($id: ID!) { human(id: $id) { ...HumanParts } } fragment HumanParts on Human { height(unit: METER) name }"
                .replacingOccurrences(of: "{ ...HumanParts }", with: "{ ... { name height(unit: METER) } }"),
        ]
        for query in layouts {
            #expect(
                Self.answer(stubber, Self.apollo("Human", query: query, variables: #"{"id": "1003"}"#))
                    == #"{"data": {"human": {"name": "Leia"}}}"#, "\(query)")
            #expect(
                Self.answer(stubber, Self.apollo("Human", query: query, variables: #"{"id": "1000"}"#))
                    == #"{"data": {"human": {"name": "Luke"}}}"#, "\(query)")
        }
        // A name alone is enough, whatever the query.
        #expect(
            Self.answer(stubber, Self.apollo("Hero", query: "{ hero { name } }"))
                == #"{"data": {"hero": {"name": "R2-D2"}}}"#)
        // Variables with a placeholder.
        let review = Self.apollo(
            "CreateReview",
            query: "mutation CreateReview($review: ReviewInput!) { createReview(review: $review) { stars } }",
            variables: #"{"review": {"commentary": "Great!", "stars": 5}}"#)
        #expect(Self.answer(stubber, review) == #"{"data": {"createReview": {"stars": 5}}}"#)
    }

    @Test func aFragmentSpreadMatchesAQueryWrittenInline() {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URL: Self.url)
                .graphQL(query: "{ hero { ...HeroParts } } fragment HeroParts on Character { name friends { name } }")
                .stub(for: .post, json: #"{"data": {}}"#))
        let inline = Self.apollo(nil, query: "{ hero { ... on Character { friends { name } name } } }")
        #expect(Self.answer(stubber, inline) == #"{"data": {}}"#)
        let different = Self.apollo(nil, query: "{ hero { ... on Droid { friends { name } name } } }")
        #expect(Self.answer(stubber, different) == nil)
    }

    @Test func apolloRequestShapes() {
        let stubber = Self.stubber()
        // A persisted query's first try: the hash, no query. The name alone matches it.
        let hashOnly = Self.apollo(
            "Hero", query: nil, hash: "ecf4edb46db40b5132295c0291d62fb65d6759a9eedfa4d5d612dd5ec54a6b38")
        #expect(Self.answer(stubber, hashOnly) == #"{"data": {"hero": {"name": "R2-D2"}}}"#)
        // The hash only, for an operation stubbed by its query: no match, and the report says why.
        let humanHash = Self.apollo("Human", query: nil, variables: #"{"id": "1000"}"#, hash: "abc")
        #expect(Self.answer(stubber, humanHash) == nil)
        // A GET, as `useGETForQueries` sends it: each field a query parameter, JSON with sorted keys.
        var components = URLComponents(string: Self.url)!
        components.queryItems = [
            URLQueryItem(name: "extensions", value: #"{"clientLibrary":{"name":"apollo-ios","version":"1.25.7"}}"#),
            URLQueryItem(name: "operationName", value: "Human"),
            URLQueryItem(name: "query", value: "query Human($id: ID!) { human(id: $id) { height(unit: METER) name } }"),
            URLQueryItem(name: "variables", value: #"{"id":"1003"}"#),
        ]
        #expect(
            stubber.bodyText("GET", components.url!.absoluteString, headers: ["Apollo-Require-Preflight": "true"])
                == nil, "the stubs answer POST only")
        let anyMethod = HTTPStubber()
        anyMethod.add(
            stub: HTTPStubRequest().match(URL: Self.url, options: .ignoreQueryParameters).graphQL(
                operationName: "Human", variables: #"{"id": "1003"}"#
            )
            .stub(for: .get, json: #"{"data": {"human": {"name": "Leia"}}}"#))
        #expect(anyMethod.bodyText("GET", components.url!.absoluteString) == #"{"data": {"human": {"name": "Leia"}}}"#)
        // A form's `+` is a space (URLSearchParams writes them so).
        let form =
            Self.url + "?operationName=Human&query=query+Human(%24id%3A+ID!)+%7B+human(id%3A+%24id)+%7B+name+%7D+%7D"
            + "&variables=%7B%22id%22%3A%221003%22%7D"
        #expect(anyMethod.bodyText("GET", form) == #"{"data": {"human": {"name": "Leia"}}}"#)
        // `application/graphql`: the body is the query.
        let plain = HTTPStubber()
        plain.add(
            stub: HTTPStubRequest().match(URL: Self.url).graphQL(query: "{ hero { name } }")
                .stub(for: .post, json: #"{"data": {}}"#))
        #expect(
            Self.answer(plain, Data("{\n hero {\n name\n }\n}".utf8), contentType: "application/graphql")
                == #"{"data": {}}"#)
    }

    @Test func anUnmatchedOperationsReportNamesItAndTheClosestStubsByOperation() throws {
        let stubber = Self.stubber()
        let request = makeRequest(
            "POST", Self.url, headers: ["Content-Type": "application/json"],
            body: Self.apollo(
                "Human", query: "query Human($id: ID!) { human(id: $id) { name height(unit: FOOT) } }",
                variables: #"{"id": "1000"}"#))
        let report = try #require(try stubber.decision(for: request).report)
        let text = report.description
        #expect(text.contains(#"graphql: query Human, variables {"id":"1000"}"#), "\(text)")
        // The closest stub is Luke's (same name and variables; the query asks for the height in another unit).
        #expect(report.candidates.first?.stub.name == "luke", "\(text)")
        #expect(text.contains("only the stub asks for human(id: $id).height(unit: METER)"), "\(text)")
        #expect(text.contains("only the request asks for human(id: $id).height(unit: FOOT)"), "\(text)")
    }

    @Test func anEmptyOperationNameIsNotNoOperationName() {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URL: Self.url).graphQL(query: "query A { a }")
                .stub(for: .post, json: #"{"data": {}}"#))
        // Read once with no name, then with "": a document's only operation runs either way, but a name that is
        // not the operation's is not read from memory as if none were given.
        #expect(Self.answer(stubber, Data(#"{"query": "query A { a } query B { b }"}"#.utf8)) == nil)
        #expect(Self.answer(stubber, Data(#"{"query": "query A { a }"}"#.utf8)) == #"{"data": {}}"#)
        #expect(Self.answer(stubber, Data(#"{"query": "query A { a }", "operationName": ""}"#.utf8)) == nil)
    }

    @Test func variablesFromAnEncodableValue() {
        struct Variables: Encodable {
            let id: String
            let first: Int
        }
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URL: Self.url)
                .graphQL(operationName: "Friends", variablesObject: Variables(id: "1000", first: 2))
                .stub(for: .post, json: #"{"data": {}}"#))
        let request = Self.apollo("Friends", query: nil, variables: #"{"first": 2, "id": "1000"}"#, hash: "h")
        #expect(Self.answer(stubber, request) == #"{"data": {}}"#)
        let other = Self.apollo("Friends", query: nil, variables: #"{"first": 3, "id": "1000"}"#, hash: "h")
        #expect(Self.answer(stubber, other) == nil)
    }

    @Test func stubsThatCanNeverMatchSayWhy() {
        let stubber = HTTPStubber()
        let broken = HTTPStubRequest().match(URL: Self.url).graphQL(query: "{ hero { name }").stub(
            for: .post, json: "{}")
        stubber.add(stub: broken)
        let problems = broken.problems.map(\.message)
        #expect(problems.count == 1)
        #expect(
            problems.first?.contains("The GraphQL matcher can never match: the query is not GraphQL") == true,
            "\(problems)")
        #expect(
            HTTPStubRequest().graphQL(variables: "[1]").problems.first?.message.contains("not a JSON object") == true)
        #expect(HTTPStubRequest().graphQL().problems.first?.message.contains("give at least one") == true)
    }

    @Test func batchesAreAnsweredOperationByOperation() throws {
        let stubber = Self.stubber()
        stubber.answerGraphQLBatches(at: Self.url)
        let batch =
            "["
            + [
                String(decoding: Self.apollo("Hero", query: "{ hero { name } }"), as: UTF8.self),
                String(
                    decoding: Self.apollo(
                        "Human", query: "query Human($id: ID!) { human(id: $id) { name height(unit: METER) } }",
                        variables: #"{"id": "1003"}"#), as: UTF8.self),
                String(decoding: Self.apollo("Villain", query: "{ villain { name } }"), as: UTF8.self),
            ].joined(separator: ",") + "]"
        let text = try #require(Self.answer(stubber, Data(batch.utf8)))
        let answers = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
        #expect(answers.count == 3)
        #expect((answers[0]["data"] as? [String: Any])?["hero"] != nil)
        #expect(((answers[1]["data"] as? [String: Any])?["human"] as? [String: Any])?["name"] as? String == "Leia")
        let error = (answers[2]["errors"] as? [[String: Any]])?.first?["message"] as? String
        #expect(error?.contains("No stub matched POST https://api.test/graphql") == true, "\(text)")
        let operations = stubber.journal.filter { $0.path == .graphQLBatch }
        #expect(operations.count == 3)
        #expect(operations.map(\.isUnmatched) == [false, false, true])
        #expect(operations.first?.stub?.name == "hero")
        // A single operation is not a batch.
        #expect(
            Self.answer(stubber, Self.apollo("Hero", query: "{ hero { name } }"))
                == #"{"data": {"hero": {"name": "R2-D2"}}}"#)
    }
}
