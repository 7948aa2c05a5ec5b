import Foundation
import Testing

@testable import StuntDoubleServer

/// The admin API's route table: every endpoint reachable, none shadowed by another, and a clear 404 or 405 (with
/// `Allow`) for what is not there.
@Suite struct AdminRoutesTests {
    /// A route's path with each `{name}` segment filled in.
    private func samplePath(_ route: AdminRoute) -> String {
        "/" + route.segments.map { $0 ?? "value-\(UUID().uuidString.prefix(4))" }.joined(separator: "/")
    }

    @Test func everyRouteIsTheOneItsOwnPathFinds() throws {
        for route in AdminRoute.all {
            let path = samplePath(route)
            let (found, parameters) = try #require(try? AdminRoute.find(method: route.method, path: path).get())
            #expect(found.method == route.method && found.segments == route.segments, "\(route.method) \(path)")
            #expect(parameters.count == route.segments.count { $0 == nil })
        }
    }

    @Test func aLiteralSegmentWinsOverAParameter() throws {
        let (route, parameters) = try #require(try? AdminRoute.find(method: "GET", path: "/requests/unmatched").get())
        #expect(route.segments == ["requests", "unmatched"])
        #expect(parameters.isEmpty)
        let (byID, values) = try #require(try? AdminRoute.find(method: "GET", path: "/requests/42").get())
        #expect(byID.segments == ["requests", nil])
        #expect(values == ["42"])
    }

    @Test func aKnownPathWithAnotherMethodIs405NamingTheAllowedOnes() {
        guard case .failure(let failure) = AdminRoute.find(method: "PATCH", path: "/mappings/abc") else {
            Issue.record("PATCH on a mapping found a route")
            return
        }
        #expect(failure.response.status == 405)
        let allow = failure.response.headers.first { $0.0 == "Allow" }?.1
        #expect(allow == "GET, PUT, DELETE")
        #expect(String(decoding: failure.response.body, as: UTF8.self).contains("use GET, PUT, DELETE"))
    }

    @Test(arguments: ["/nothing", "/mappings/a/b", "/requests/unmatched/near-misses/x", "/scenarios/s"])
    func anUnknownPathIs404NamingIt(path: String) {
        guard case .failure(let failure) = AdminRoute.find(method: "GET", path: path) else {
            Issue.record("GET \(path) found a route")
            return
        }
        #expect(failure.response.status == 404)
        #expect(String(decoding: failure.response.body, as: UTF8.self).contains("/__admin\(path)"))
    }

    @Test func theDescriptionNamesEveryRouteWithWhatItDoes() throws {
        let json = try #require(
            try JSONSerialization.jsonObject(with: AdminDocs.description().body) as? [String: Any])
        let paths = try #require(json["paths"] as? [String: [String: Any]])
        #expect(paths.values.reduce(0) { $0 + $1.count } == AdminRoute.all.count, "one operation per route")
        for route in AdminRoute.all {
            let path = "/__admin/" + route.path.replacingOccurrences(of: "*}", with: "}")
            let operation = paths[path]?[route.method.lowercased()] as? [String: Any]
            let summary = operation?["summary"] as? String
            #expect(summary?.isEmpty == false, "\(route.method) \(path) is described with what it does")
            #expect((operation?["requestBody"] != nil) == (route.takes != .none), "\(route.method) \(path)'s body")
        }
        #expect((paths["/__admin/files/{name}"]?["put"] as? [String: Any])?["requestBody"] != nil)
        let traffic = paths["/__admin/"]?["get"] as? [String: Any]
        let answers = (traffic?["responses"] as? [String: Any])?["200"] as? [String: Any]
        #expect((answers?["content"] as? [String: Any])?["text/html"] != nil, "the traffic page answers HTML")
    }

    @Test func theRootAndItsSlashAreTheTrafficPage() throws {
        for path in ["", "/"] {
            let (route, _) = try #require(try? AdminRoute.find(method: "GET", path: path).get())
            #expect(route.segments.isEmpty)
        }
    }
}
