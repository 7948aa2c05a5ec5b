import Foundation
import StuntDouble
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite struct HTTPTypesTests {
    @Test func headerNamesCompareIgnoringCase() {
        var headers: HTTPHeaders = ["Content-Type": "text/plain", "Set-Cookie": "a=1"]
        headers.add(name: "set-cookie", value: "b=2")
        #expect(headers["content-type"] == "text/plain")
        #expect(headers[.contentType] == "text/plain")
        #expect(headers.values(for: .setCookie) == ["a=1", "b=2"])
        #expect(headers.dictionary["Set-Cookie"] == "a=1, b=2")
        headers[.setCookie] = "c=3"
        #expect(headers.values(for: "SET-COOKIE") == ["c=3"])
        #expect(headers.map(\.name.rawValue) == ["Content-Type", "Set-Cookie"], "order is kept")
        headers[.contentType] = nil
        #expect(!headers.contains(.contentType))
        #expect(HTTPHeaders.Name("ETAG") == .eTag)
    }

    @Test func openSetsAcceptAnyValue() {
        #expect(HTTPMethod("purge") == HTTPMethod(rawValue: "PURGE"))
        let code: HTTPStatusCode = 299
        #expect(code.description == "299")
        #expect(HTTPStatusCode.unauthorized.description == "401 Unauthorized")
        #expect(HTTPStatusCode.permanentRedirect.isRedirect)
        let type: HTTPContentType = "application/vnd.api+json"
        #expect(type.rawValue == "application/vnd.api+json")
    }
}
