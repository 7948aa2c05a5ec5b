import Foundation
import StuntDouble
import StuntDoubleServer
import TestSupport
import Testing

/// The admin API driven by a client no one here wrote: WireMock's own Python admin client (PyPI `wiremock`
/// 2.7.0, installed by CI), in a Python process.
@Suite struct PythonAdminClientTests {
    static let clientInstalled = runsWithOutsideProgram(
        ChildProcess.succeeds("python3", ["-c", "import wiremock.client"]))

    static let script = """
        import sys, urllib.request, urllib.error
        from wiremock.constants import Config
        from wiremock.client import (Mappings, Mapping, MappingRequest, MappingResponse, HttpMethods, Requests,
            NearMissMatchPatternRequest, Scenarios, GlobalSettings, GlobalSetting)

        base = sys.argv[1]
        Config.base_url = base + "/__admin"
        if len(sys.argv) > 2:
            Config.headers = dict(Config.headers, Authorization="Bearer " + sys.argv[2])

        def get(path, headers={}):
            try:
                with urllib.request.urlopen(urllib.request.Request(base + path, headers=headers)) as response:
                    return response.status, response.read().decode()
            except urllib.error.HTTPError as error:
                return error.code, error.read().decode()

        mapping = Mapping(
            priority=1,
            request=MappingRequest(method=HttpMethods.GET, url="/py/hello", headers={"X-Team": {"equalTo": "python"}}),
            response=MappingResponse(status=200, body="hi from python", headers={"Content-Type": "text/plain"}),
            persistent=False)
        created = Mappings.create_mapping(mapping)
        print("created", created.id is not None)
        print("total", Mappings.retrieve_all_mappings().meta.total)
        print("retrieved", Mappings.retrieve_mapping(created.id).request.url)
        print("served", get("/py/hello", {"X-Team": "python"}))
        print("without the header", get("/py/hello")[0])
        pattern = NearMissMatchPatternRequest(url="/py/hello", method="GET")
        print("count", Requests.get_matching_request_count(pattern).count)
        print("found", len(Requests.get_matching_requests(pattern).requests))
        print("unmatched", [r.url for r in Requests.get_unmatched_requests().requests])
        near = Requests.get_unmatched_requests_near_misses().near_misses
        print("near misses", len(near), near[0].match_result.distance < 1)
        journal = Requests.get_all_received_requests()
        print("journal", journal.meta.total, journal.requests[0].request.url)
        created.response.body = "changed"
        Mappings.update_mapping(created)
        print("after the update", get("/py/hello", {"X-Team": "python"})[1])
        GlobalSettings.update_global_settings(GlobalSetting(fixed_delay=0))
        Scenarios.reset_all_scenarios()
        Mappings.delete_mapping(created.id)
        print("after the delete", get("/py/hello", {"X-Team": "python"})[0])
        Requests.reset_request_journal()
        print("journal after the reset", Requests.get_all_received_requests().meta.total)
        Mappings.reset_mappings()
        print("mappings after the reset", Mappings.retrieve_all_mappings().meta.total)
        """

    @Test(
        .enabled(
            if: clientInstalled, "WireMock's Python client is not installed (pip install wiremock==2.7.0; CI does)"))
    func wireMocksPythonClientDrivesTheServer() async throws {
        let stubber = HTTPStubber()
        try await withStubServer(stubber: stubber) { baseURL in
            let result = try await ChildProcess.run("python3", ["-c", Self.script, baseURL.absoluteString])
            #expect(result.status == 0, "\(result.error)")
            #expect(
                result.output.split(separator: "\n").map(String.init) == [
                    "created True", "total 1", "retrieved /py/hello", "served (200, 'hi from python')",
                    "without the header 404", "count 2", "found 2", "unmatched ['/py/hello']", "near misses 1 True",
                    "journal 2 /py/hello", "after the update changed", "after the delete 404",
                    "journal after the reset 0", "mappings after the reset 0",
                ], "\(result.output)\(result.error)")
        }
    }

    @Test(
        .enabled(
            if: clientInstalled, "WireMock's Python client is not installed (pip install wiremock==2.7.0; CI does)"))
    func theClientCarriesTheAdminToken() async throws {
        var configuration = HTTPStubServer.Configuration()
        configuration.adminToken = "python-token"
        try await withStubServer(configuration: configuration) { baseURL in
            let refused = try await ChildProcess.run("python3", ["-c", Self.script, baseURL.absoluteString])
            #expect(refused.status != 0, "without the token the first call fails")
            #expect(refused.error.contains("RequiresLoginException"), "the client's own 401 error: \(refused.error)")
            let allowed = try await ChildProcess.run(
                "python3", ["-c", Self.script, baseURL.absoluteString, "python-token"])
            #expect(allowed.status == 0, "\(allowed.error)")
        }
    }
}
