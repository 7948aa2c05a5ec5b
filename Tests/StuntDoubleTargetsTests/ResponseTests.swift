import Foundation
import StuntDoubleTargets
import Testing

@Suite struct ResponseTests {
    let json = Response(
        statusCode: 200, data: Data(#"{"data": {"user": {"name": "Mark", "age": 40}}, "note": "hi"}"#.utf8))

    struct User: Decodable, Equatable {
        let name: String
        let age: Int
    }

    @Test func filtersStatusCodes() throws {
        #expect(try Response(statusCode: 204, data: Data()).filterSuccessfulStatusCodes().statusCode == 204)
        #expect(try Response(statusCode: 302, data: Data()).filterSuccessfulStatusAndRedirectCodes().statusCode == 302)
        #expect(try Response(statusCode: 418, data: Data()).filter(statusCodes: 400...499).statusCode == 418)
        do {
            _ = try Response(statusCode: 500, data: Data()).filterSuccessfulStatusCodes()
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .statusCode)
            #expect(error.response?.statusCode == 500)
            #expect(error.message.contains("500"))
        }
    }

    @Test func decodesAtAKeyPath() throws {
        #expect(try json.map(User.self, atKeyPath: "data.user") == User(name: "Mark", age: 40))
        #expect(try json.mapString(atKeyPath: "note") == "hi")
        #expect(try json.mapString().hasPrefix("{"))
        let object = try json.mapJSON() as? [String: Any]
        #expect(object?["note"] as? String == "hi")
    }

    @Test func keyPathsReadArraysAndSingleCodesFilter() throws {
        let list = Response(
            statusCode: 200, data: Data(#"{"items": [{"name": "a", "age": 1}, {"name": "b", "age": 2}]}"#.utf8))
        #expect(try list.map(User.self, atKeyPath: "items.1") == User(name: "b", age: 2))
        #expect(try list.mapString(atKeyPath: "items.0.name") == "a")
        #expect(try list.filter(statusCode: 200) == list)
        #expect(throws: APIError.self) { try list.filter(statusCode: 201) }
    }

    @Test func decodingErrorsSayWhatFailed() throws {
        do {
            _ = try json.map(User.self, atKeyPath: "data.missing")
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .decoding)
            #expect(error.message.contains("data.missing"))
        }
        do {
            _ = try json.map([User].self)
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .decoding)
            #expect(error.message.contains("Array<User>"))
        }
        #expect { try Response(statusCode: 200, data: Data("not json".utf8)).mapJSON() } throws: { error in
            (error as? APIError)?.code == .jsonMapping
        }
        #expect(try Response(statusCode: 204, data: Data()).mapJSON(failsOnEmptyData: false) is NSNull)
        #expect { try Response(statusCode: 200, data: Data([0xFF, 0xFE])).mapString() } throws: { error in
            (error as? APIError)?.code == .stringMapping
        }
    }
}
