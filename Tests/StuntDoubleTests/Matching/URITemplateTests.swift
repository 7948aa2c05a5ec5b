import Testing

@testable import StuntDouble

@Suite struct URITemplateTests {
    static let variables: [String: URITemplate.Value] = [
        "var": "value", "hello": "Hello World!", "empty": "", "path": "/foo/bar", "x": "1024", "y": "768",
        "list": ["red", "green", "blue"],
        "keys": .associative([
            .init(key: "comma", value: ","), .init(key: "dot", value: "."), .init(key: "semi", value: ";"),
        ]),
    ]

    /// The examples of RFC 6570 (levels 1 to 4), with associative arrays in the order given above.
    static let examples: [(String, String)] = [
        ("{var}", "value"), ("{hello}", "Hello%20World%21"),
        ("{+var}", "value"), ("{+hello}", "Hello%20World!"), ("{+path}/here", "/foo/bar/here"),
        ("here?ref={+path}", "here?ref=/foo/bar"),
        ("map?{x,y}", "map?1024,768"), ("{x,hello,y}", "1024,Hello%20World%21,768"),
        ("{+x,hello,y}", "1024,Hello%20World!,768"), ("{+path,x}/here", "/foo/bar,1024/here"),
        ("{#x,hello,y}", "#1024,Hello%20World!,768"), ("{#path,x}/here", "#/foo/bar,1024/here"),
        ("X{.var}", "X.value"), ("X{.x,y}", "X.1024.768"), ("{/var}", "/value"), ("{/var,x}/here", "/value/1024/here"),
        ("{;x,y}", ";x=1024;y=768"), ("{;x,y,empty}", ";x=1024;y=768;empty"), ("{?x,y}", "?x=1024&y=768"),
        ("{?x,y,empty}", "?x=1024&y=768&empty="), ("?fixed=yes{&x}", "?fixed=yes&x=1024"),
        ("{&x,y,empty}", "&x=1024&y=768&empty="),
        ("{var:3}", "val"), ("{var:30}", "value"), ("{list}", "red,green,blue"), ("{list*}", "red,green,blue"),
        ("{keys}", "comma,%2C,dot,.,semi,%3B"), ("{keys*}", "comma=%2C,dot=.,semi=%3B"),
        ("{+path:6}/here", "/foo/b/here"), ("{+list}", "red,green,blue"), ("{+list*}", "red,green,blue"),
        ("{+keys}", "comma,,,dot,.,semi,;"), ("{+keys*}", "comma=,,dot=.,semi=;"), ("{#path:6}/here", "#/foo/b/here"),
        ("{#list}", "#red,green,blue"), ("{#list*}", "#red,green,blue"), ("{#keys}", "#comma,,,dot,.,semi,;"),
        ("{#keys*}", "#comma=,,dot=.,semi=;"), ("X{.var:3}", "X.val"), ("X{.list}", "X.red,green,blue"),
        ("X{.list*}", "X.red.green.blue"), ("X{.keys}", "X.comma,%2C,dot,.,semi,%3B"), ("{/var:1,var}", "/v/value"),
        ("{/list}", "/red,green,blue"), ("{/list*}", "/red/green/blue"), ("{/list*,path:4}", "/red/green/blue/%2Ffoo"),
        ("{/keys}", "/comma,%2C,dot,.,semi,%3B"), ("{/keys*}", "/comma=%2C/dot=./semi=%3B"),
        ("{;hello:5}", ";hello=Hello"), ("{;list}", ";list=red,green,blue"),
        ("{;list*}", ";list=red;list=green;list=blue"),
        ("{;keys}", ";keys=comma,%2C,dot,.,semi,%3B"), ("{;keys*}", ";comma=%2C;dot=.;semi=%3B"),
        ("{?var:3}", "?var=val"), ("{?list}", "?list=red,green,blue"), ("{?list*}", "?list=red&list=green&list=blue"),
        ("{?keys}", "?keys=comma,%2C,dot,.,semi,%3B"), ("{?keys*}", "?comma=%2C&dot=.&semi=%3B"),
        ("{&var:3}", "&var=val"), ("{&list}", "&list=red,green,blue"), ("{&list*}", "&list=red&list=green&list=blue"),
        ("{&keys}", "&keys=comma,%2C,dot,.,semi,%3B"), ("{&keys*}", "&comma=%2C&dot=.&semi=%3B"),
    ]

    @Test(arguments: examples)
    func expandsTheRFCExamples(template: String, expected: String) throws {
        #expect(try URITemplate(template).expand(Self.variables) == expected)
    }

    @Test(arguments: examples)
    func matchingReversesExpansion(template: String, expanded: String) throws {
        let parsed = try URITemplate(template)
        let found = try #require(parsed.match(expanded), "\(template) should match \(expanded)")
        #expect(parsed.expand(found) == expanded, "variables \(found)")
    }

    @Test func extractsVariables() throws {
        #expect(try URITemplate("/users/{id}").match("/users/42") == ["id": "42"])
        #expect(try URITemplate("/users/{id}/posts/{post}").match("/users/7/posts/x-1") == ["id": "7", "post": "x-1"])
        #expect(try URITemplate("{hello}").match("Hello%20World%21") == ["hello": "Hello World!"])
        #expect(try URITemplate("{+path}/here").match("/foo/bar/here") == ["path": "/foo/bar"])
        #expect(try URITemplate("/files{/segments*}").match("/files/a/b/c") == ["segments": ["a", "b", "c"]])
        #expect(try URITemplate("/search{?q,page}").match("/search?page=2&q=swift") == ["q": "swift", "page": "2"])
        #expect(try URITemplate("/search{?q,page}").match("/search?q=swift") == ["q": "swift"])
        #expect(try URITemplate("/search{?q,page}").match("/search") == [:])
        #expect(
            try URITemplate("{?filter*}").match("?a=1&b=2") == [
                "filter": .associative([.init(key: "a", value: "1"), .init(key: "b", value: "2")])
            ])
    }

    @Test func aRepeatedVariableMustAgreeWithItself() throws {
        #expect(try URITemplate("/compare/{id}/{id}").match("/compare/abc/abc") == ["id": "abc"])
        #expect(try URITemplate("/compare/{id}/{id}").match("/compare/abc/a") == nil)
        #expect(try URITemplate("/{v:3}/{v}").match("/abc/abcdef") == ["v": "abcdef"])
        #expect(try URITemplate("/{v:3}/{v}").match("/ab/abcdef") == nil)
        #expect(try URITemplate("/{v}/{v:3}").match("/abcdef/abc") == ["v": "abcdef"])
    }

    @Test func anExplodedListIsNotReplacedByOtherParameters() throws {
        #expect(try URITemplate("{?ids*}").match("?ids=1&ids=2") == ["ids": ["1", "2"]])
        #expect(try URITemplate("{?ids*}").match("?ids=1&ids=2&page=3") == nil, "strict matching rejects page")
    }

    @Test func rejectsStringsTheTemplateCannotProduce() throws {
        #expect(
            try URITemplate("/users/{id}").match("/users/") == nil, "a plain variable matches at least one character")
        #expect(try URITemplate("/users/{id}").match("/users/4/2") == nil, "a plain variable stops at '/'")
        #expect(try URITemplate("/users/{id}").match("/members/4") == nil)
        #expect(try URITemplate("{var:3}").match("value") == nil, "a prefix limits the length")
        #expect(try URITemplate("{/var}").match("/a/b") == nil)
        #expect(try URITemplate("{?x}").match("?y=1") == nil, "strict matching rejects unknown parameters")
        #expect(try URITemplate("X{.var}").match("Y.value") == nil)
    }

    @Test func listsItsVariables() throws {
        #expect(try URITemplate("https://{host}/users/{id}{?fields*,id}").variableNames == ["host", "id", "fields"])
    }

    @Test(arguments: [
        ("/users/{id", "offset 7 is not closed"),
        ("/users/id}", "'}' at offset 9 closes no expression"),
        ("/users/{}", "offset 7 is empty"),
        ("/users/{=id}", "operator '=' at offset 8 is reserved"),
        ("/users/{id:0}", "prefix ':0'"),
        ("/users/{id:10000}", "prefix ':10000'"),
        ("/users/{first name}", "'first name' at offset 8 is not a variable name"),
        ("/users/{a,}", "an empty name"),
        ("/users/{{id}}", "opens an expression inside another"),
        ("/my files/{id}", "a space at offset 3"),
        ("/users/%zz", "'%' at offset 7"),
        ("/users/%\u{FF21}\u{FF22}", "'%' at offset 7"),
    ])
    func reportsSyntaxErrors(template: String, reason: String) {
        #expect {
            _ = try URITemplate(template)
        } throws: { error in
            guard let error = error as? HTTPStubberError else { return false }
            return error.code == .invalidURITemplate && error.message.contains("\"\(template)\"")
                && error.message.contains(reason)
        }
    }
}
