import StuntDoubleGraphQL
import Testing

/// What two queries mean alike: written by hand here, then generated (GeneratedQueryTests).
@Suite struct GraphQLOperationTests {
    static let hero = """
        query Hero($episode: Episode = JEDI, $withFriends: Boolean!) {
          hero(episode: $episode) {
            name
            id
            friends @include(if: $withFriends) { name }
          }
        }
        """

    @Test(arguments: [
        // Layout: one line, commas, comments.
        "query Hero($withFriends: Boolean!, $episode: Episode = JEDI) { hero(episode: $episode) { id, name, "
            + "friends @include(if: $withFriends) { name } } }",
        """
        # the hero
        query Hero(
          $episode: Episode = JEDI   # the film
          $withFriends: Boolean!
        ) {
          hero(episode: $episode) { friends @include(if: $withFriends) { name }, id name }
        }
        """,
        // A named fragment spread, and the same written inline.
        """
        query Hero($episode: Episode = JEDI, $withFriends: Boolean!) { hero(episode: $episode) { ...Parts } }
        fragment Parts on Character { id ... { name } friends @include(if: $withFriends) { name } }
        """,
        // A field asked for twice is asked for once; an inline fragment without a condition is its fields.
        "query Hero($episode: Episode = JEDI, $withFriends: Boolean!) { hero(episode: $episode) { name ... { id } "
            + "friends @include(if: $withFriends) { name } name } }",
    ])
    func theSameOperationInAnotherLayoutIsEqual(_ text: String) throws {
        // The fragment case spreads `Parts on Character`: equal to its inline `... on Character`.
        let expected =
            text.contains("fragment Parts")
            ? try GraphQLOperation(
                "query Hero($episode: Episode = JEDI, $withFriends: Boolean!) { hero(episode: $episode) { "
                    + "... on Character { id name friends @include(if: $withFriends) { name } } } }")
            : try GraphQLOperation(Self.hero)
        let actual = try GraphQLOperation(text)
        #expect(actual == expected, "\(actual)")
    }

    @Test func argumentsAndInputObjectsInAnyOrder() throws {
        let one = try GraphQLOperation(#"{ search(text: "r2", filter: {kind: DROID, from: 1977}, first: 3) { id } }"#)
        let two = try GraphQLOperation(#"{ search(first: 3, filter: {from: 1977, kind: DROID}, text: "r2") { id } }"#)
        #expect(one == two)
        #expect(one.description == #"query { search(filter: {from: 1977, kind: DROID}, first: 3, text: "r2") { id } }"#)
    }

    @Test(arguments: [
        ("an alias", "{ hero { name } }", "{ hero { heroName: name } }"),
        ("an argument's value", #"{ hero(episode: JEDI) { name } }"#, #"{ hero(episode: EMPIRE) { name } }"#),
        ("a field more", "{ hero { name } }", "{ hero { name id } }"),
        ("__typename", "{ hero { name } }", "{ hero { name __typename } }"),
        ("the operation type", "query { hero { name } }", "subscription { hero { name } }"),
        ("a type condition", "{ hero { ... on Droid { name } } }", "{ hero { ... on Human { name } } }"),
        ("a fragment's condition and plain fields", "{ hero { ... on Droid { name } } }", "{ hero { name } }"),
        ("a directive", "{ hero { name @skip(if: true) } }", "{ hero { name } }"),
        (
            "a variable's type", "query ($id: ID) { hero(id: $id) { name } }",
            "query ($id: ID!) { hero(id: $id) { name } }"
        ),
        ("list order in a value", "{ hero(ids: [1, 2]) { name } }", "{ hero(ids: [2, 1]) { name } }"),
    ])
    func aDifferentOperationIsNotEqual(_ what: String, _ first: String, _ second: String) throws {
        #expect(try GraphQLOperation(first) != GraphQLOperation(second), "\(what)")
    }

    @Test func aDocumentOfSeveralOperationsIsReadByName() throws {
        let document = "query A { a } query B { b } mutation C { c }"
        #expect(try GraphQLOperation(document, operationName: "B") == GraphQLOperation("{ b }").renamed("B"))
        #expect(throws: GraphQLQueryError.self) { try GraphQLOperation(document) }
        let missing = #expect(throws: GraphQLQueryError.self) { try GraphQLOperation(document, operationName: "D") }
        #expect(missing?.message == "the query has no operation named D (it has A, B, C)")
    }

    @Test func syntaxErrorsSayWhere() {
        let error = #expect(throws: GraphQLQueryError.self) { try GraphQLOperation("{\n  hero {\n    name(\n  }\n}") }
        #expect(error?.line == 4)
        #expect(error?.column == 3)
        #expect(error?.message.hasPrefix("the query is not GraphQL:") == true)
    }

    @Test func hostileQueriesAreRefusedNotCrashedOn() throws {
        // 100,000 levels of nesting: GraphQLSwift's parser recurses once per level.
        let deep = String(repeating: "{ a ", count: 100_000) + String(repeating: "}", count: 100_000)
        let nested = #expect(throws: GraphQLQueryError.self) { try GraphQLOperation(deep) }
        #expect(nested?.message == "the query nests deeper than 128 levels")
        // Braces in strings and comments do not count.
        let quoted =
            "{ a(text: \"" + String(repeating: "{", count: 500) + "\") # " + String(repeating: "[", count: 500)
            + "\n}"
        #expect(throws: Never.self) { try GraphQLOperation(quoted) }
        // Twenty fragments that each spread the next twice: a million selections.
        var bomb = "{ ...F0 }\n"
        for level in 0..<20 {
            bomb += "fragment F\(level) on Q { ...F\(level + 1) ...F\(level + 1) }\n"
        }
        bomb += "fragment F20 on Q { a }"
        let expanded = #expect(throws: GraphQLQueryError.self) { try GraphQLOperation(bomb) }
        #expect(expanded?.message.contains("more than 100000 selections") == true)
        let cycle = #expect(throws: GraphQLQueryError.self) {
            try GraphQLOperation("{ ...A } fragment A on Q { ...B } fragment B on Q { ...A }")
        }
        #expect(cycle?.message == "the fragment A spreads itself (A → B → A)")
        #expect(throws: GraphQLQueryError.self) { try GraphQLOperation("{ ...Missing }") }
        // GraphQLSwift's lexer read past the end after a short `\u` escape, and crashed (found by FuzzGraphQL).
        for short in [#"{ a(x: "\u00"#, #"{ a(x: "\u0"#, #"{ a(x: "\u"#, #"{ a(x: "\uZZ") }"#] {
            let escape = #expect(throws: GraphQLQueryError.self) { try GraphQLOperation(short) }
            #expect(escape?.message.contains("escape") == true, "\(short): \(String(describing: escape))")
        }
        #expect(try GraphQLOperation(#"{ a(x: "\u00e9") }"#) == (try GraphQLOperation(#"{ a(x: "é") }"#)))
        #expect(throws: GraphQLQueryError.self) { try GraphQLOperation("type Query { a: Int }") }
        // A comment ends at a carriage return for GraphQLSwift's lexer: what follows is checked too.
        #expect(throws: GraphQLQueryError.self) { try GraphQLOperation("#\r\"\\u") }
        let deepAfterComment = "#\r" + String(repeating: "{a", count: 200_000)
        #expect(throws: GraphQLQueryError.self) { try GraphQLOperation(deepAfterComment) }
        // A chain of fragments that each spread the next nests without a bracket.
        var chain = "query { ...F0 }\n"
        for level in 0..<5_000 {
            chain += "fragment F\(level) on Q { ...F\(level + 1) }\n"
        }
        chain += "fragment F5000 on Q { a }"
        let chained = #expect(throws: GraphQLQueryError.self) { try GraphQLOperation(chain) }
        #expect(chained?.message == "the query nests deeper than 128 levels with its fragments spread")
    }
}

extension GraphQLOperation {
    /// The same operation as `query NAME`.
    fileprivate func renamed(_ name: String) throws -> GraphQLOperation {
        try GraphQLOperation(description.replacingOccurrences(of: "query {", with: "query \(name) {"))
    }
}
