import Foundation
import StuntDouble
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// HAR 1.2 files read as stubs and written from a journal or a recording.
@Suite struct HARTests {
    /// A file written by hand from the HAR 1.2 specification: pages, cookies, comments, timings, a base64 body,
    /// a POST with postData, an entry that got no response, and a request made twice.
    static let handWritten = #"""
        {
          "log": {
            "version": "1.2",
            "creator": {"name": "hand", "version": "1.0", "comment": "written from the spec"},
            "browser": {"name": "none", "version": "0"},
            "pages": [{"startedDateTime": "2026-01-02T03:04:05.000Z", "id": "page_1", "title": "Test", "pageTimings": {"onContentLoad": 10, "onLoad": 20}}],
            "entries": [
              {
                "pageref": "page_1", "startedDateTime": "2026-01-02T03:04:05.100Z", "time": 50,
                "request": {"method": "GET", "url": "https://api.test/users/42?fields=name", "httpVersion": "HTTP/1.1",
                  "cookies": [{"name": "session", "value": "abc"}], "headers": [{"name": "Accept", "value": "application/json"}],
                  "queryString": [{"name": "fields", "value": "name"}], "headersSize": -1, "bodySize": 0},
                "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [],
                  "headers": [{"name": "Content-Type", "value": "application/json"}, {"name": "Content-Encoding", "value": "gzip"}],
                  "content": {"size": 15, "compression": 5, "mimeType": "application/json", "text": "{\"name\":\"Mark\"}"},
                  "redirectURL": "", "headersSize": -1, "bodySize": 10},
                "cache": {}, "timings": {"blocked": -1, "dns": -1, "connect": -1, "send": 1, "wait": 48, "receive": 1, "ssl": -1},
                "comment": "the first"
              },
              {
                "startedDateTime": "2026-01-02T03:04:06.000Z", "time": 5,
                "request": {"method": "GET", "url": "https://api.test/logo.png", "httpVersion": "HTTP/2", "cookies": [],
                  "headers": [{"name": ":authority", "value": "api.test"}], "queryString": [], "headersSize": -1, "bodySize": 0},
                "response": {"status": 200, "statusText": "", "httpVersion": "HTTP/2", "cookies": [],
                  "headers": [{"name": ":status", "value": "200"}, {"name": "content-type", "value": "image/png"}],
                  "content": {"size": 4, "mimeType": "image/png", "text": "iVBORw==", "encoding": "base64"},
                  "redirectURL": "", "headersSize": -1, "bodySize": 4},
                "cache": {}, "timings": {"send": 0, "wait": 5, "receive": 0}
              },
              {
                "startedDateTime": "2026-01-02T03:04:07.000Z", "time": 5,
                "request": {"method": "POST", "url": "https://api.test/jobs", "httpVersion": "HTTP/1.1", "cookies": [],
                  "headers": [{"name": "Content-Type", "value": "application/json"}], "queryString": [],
                  "postData": {"mimeType": "application/json", "text": "{\"run\":true}"}, "headersSize": -1, "bodySize": 12},
                "response": {"status": 202, "statusText": "Accepted", "httpVersion": "HTTP/1.1", "cookies": [],
                  "headers": [{"name": "Location", "value": "/jobs/1"}], "content": {"size": 0, "mimeType": ""},
                  "redirectURL": "", "headersSize": -1, "bodySize": 0},
                "cache": {}, "timings": {"send": 0, "wait": 5, "receive": 0}
              },
              {
                "startedDateTime": "2026-01-02T03:04:08.000Z", "time": 5,
                "request": {"method": "GET", "url": "https://api.test/jobs/1", "httpVersion": "HTTP/1.1", "cookies": [],
                  "headers": [], "queryString": [], "headersSize": -1, "bodySize": 0},
                "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [], "headers": [],
                  "content": {"size": 7, "mimeType": "text/plain", "text": "running"}, "redirectURL": "", "headersSize": -1, "bodySize": 7},
                "cache": {}, "timings": {"send": 0, "wait": 5, "receive": 0}
              },
              {
                "startedDateTime": "2026-01-02T03:04:09.000Z", "time": 5,
                "request": {"method": "GET", "url": "https://api.test/jobs/1", "httpVersion": "HTTP/1.1", "cookies": [],
                  "headers": [], "queryString": [], "headersSize": -1, "bodySize": 0},
                "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [], "headers": [],
                  "content": {"size": 4, "mimeType": "text/plain", "text": "done"}, "redirectURL": "", "headersSize": -1, "bodySize": 4},
                "cache": {}, "timings": {"send": 0, "wait": 5, "receive": 0}
              },
              {
                "startedDateTime": "2026-01-02T03:04:10.000Z", "time": 0,
                "request": {"method": "GET", "url": "https://blocked.test/ad.js", "httpVersion": "", "cookies": [],
                  "headers": [], "queryString": [], "headersSize": -1, "bodySize": 0},
                "response": {"status": 0, "statusText": "", "httpVersion": "", "cookies": [], "headers": [],
                  "content": {"size": 0, "mimeType": "x-unknown"}, "redirectURL": "", "headersSize": -1, "bodySize": -1, "_error": "net::ERR_BLOCKED_BY_CLIENT"},
                "cache": {}, "timings": {"send": 0, "wait": 0, "receive": 0}
              }
            ]
          }
        }
        """#

    static func file(_ text: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("har-\(UUID().uuidString).har")
        try Data(text.utf8).write(to: url)
        return url
    }

    static func text(_ session: HTTPStubSession, _ request: URLRequest) async throws -> (Int, String, HTTPURLResponse) {
        let (data, response) = try await session.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        return (http.statusCode, String(decoding: data, as: UTF8.self), http)
    }

    @Test func aHandWrittenHARFileAnswersAsRecorded() async throws {
        let url = try Self.file(Self.handWritten)
        defer { try? FileManager.default.removeItem(at: url) }
        let stubber = HTTPStubber()
        let archive = try stubber.load(harAt: url)
        #expect(archive.exchanges.count == 5)
        #expect(archive.skipped == ["GET https://blocked.test/ad.js: no response (status 0)"])
        let session = stubber.stubSession()

        let (status, body, user) = try await Self.text(
            session, URLRequest(url: URL(string: "https://api.test/users/42?fields=name")!))
        #expect(status == 200 && body == #"{"name":"Mark"}"#)
        #expect(user.value(forHTTPHeaderField: "Content-Encoding") == nil, "HAR bodies are decoded already")

        let (logo, _) = try await session.data(from: URL(string: "https://api.test/logo.png")!)
        #expect(logo == Data([0x89, 0x50, 0x4E, 0x47]))

        var post = URLRequest(url: URL(string: "https://api.test/jobs")!)
        post.httpMethod = "POST"
        post.httpBody = Data(#"{"run":true}"#.utf8)
        let (accepted, _, job) = try await Self.text(session, post)
        #expect(accepted == 202 && job.value(forHTTPHeaderField: "Location") == "/jobs/1")

        var polled: [String] = []
        for _ in 0..<3 {
            polled.append(try await Self.text(session, URLRequest(url: URL(string: "https://api.test/jobs/1")!)).1)
        }
        #expect(polled == ["running", "done", "done"], "in the file's order, then the last again")
    }

    @Test(arguments: [
        ("not json", "is not JSON"),
        (#"{"entries": []}"#, #"it has no "log" object"#),
        (
            #"{"log": {"entries": [{"request": {"method": "GET"}, "response": {"status": 200}}]}}"#,
            "log.entries[0].request.url is missing"
        ),
        (
            #"{"log": {"entries": [{"request": {"method": "GET", "url": "https://a.test/"}, "response": {}}]}}"#,
            "log.entries[0].response.status is missing"
        ),
    ])
    func whatIsNotAHARFileIsAClearError(text: String, expected: String) throws {
        let error = #expect(throws: HTTPStubberError.self) { try HAR.read(Data(text.utf8), name: "x.har") }
        #expect(error?.message.contains(expected) == true, "\(error?.message ?? "")")
        #expect(error?.message.hasPrefix("x.har") == true)
    }

    @Test func aJournalExportsAsHARAndReadsBack() async throws {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().match(URL: "https://api.test/a").stub(for: .get, json: #"{"a":1}"#))
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://api.test/bin").stub(for: .get, body: Data([0, 1, 2, 255])))
        let session = stubber.stubSession()
        _ = try await session.data(from: URL(string: "https://api.test/a")!)
        _ = try await session.data(from: URL(string: "https://api.test/bin")!)
        _ = try? await session.data(from: URL(string: "https://api.test/missing")!)

        let archive = try HAR.read(stubber.harDocument())
        #expect(archive.exchanges.map(\.request.url.absoluteString) == ["https://api.test/a", "https://api.test/bin"])
        #expect(archive.exchanges.map(\.body) == [Data(#"{"a":1}"#.utf8), Data([0, 1, 2, 255])])
        #expect(archive.skipped == ["GET https://api.test/missing: no response (status 0)"])
        let json = try #require(try JSONSerialization.jsonObject(with: stubber.harDocument()) as? [String: Any])
        let entries = try #require((json["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        let error = (entries[2]["response"] as? [String: Any])?["_error"] as? String
        #expect(error?.hasPrefix("No stub matched GET https://api.test/missing") == true, "\(error ?? "")")
    }
}

/// What HAR can carry of an event stream: its body in `content.text`, and when each event came in
/// `_serverSentEvents` (HAR has no place for it); a HAR without them still answers with the events, at once.
@Suite struct EventStreamHARTests {
    static let body = Data("data: one\n\n: note\nevent: tick\nid: 2\ndata: two\n\ndata: three\n\n".utf8)

    @Test func aRecordedStreamKeepsItsPaceThroughHAR() async throws {
        var request = URLRequest(url: URL(string: "https://api.test/stream")!)
        request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
        let exchange = HTTPRecordedExchange(
            request: try HTTPIncomingRequest(request),
            response: HTTPRecordedResponse(statusCode: 200, headers: [("Content-Type", "text/event-stream")]),
            body: Self.body,
            arrivals: [
                .init(byteCount: 0, time: .milliseconds(20)), .init(byteCount: 11, time: .milliseconds(120)),
                .init(byteCount: 30, time: .milliseconds(150)), .init(byteCount: 50, time: .milliseconds(320)),
                .init(byteCount: Self.body.count, time: .milliseconds(700)),
            ])
        let expected = HTTPStubEventStream([
            HTTPStubEvent(data: "one", delay: 0.12),
            HTTPStubEvent(data: "two", event: "tick", id: "2", comment: "note", delay: 0.2),
            HTTPStubEvent(data: "three", delay: 0.38),
        ])
        #expect(exchange.eventStream == expected)
        let document = HAR.document(of: [exchange])
        #expect(String(decoding: document, as: UTF8.self).contains("_serverSentEvents"))
        let read = try HAR.read(document)
        // Times after the request: the first event's delay holds the 20 ms before the head too.
        #expect(read.exchanges.first?.eventStream?.events.map(\.delay) == [0.12, 0.2, 0.38])

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sse-\(UUID().uuidString).har")
        defer { try? FileManager.default.removeItem(at: file) }
        try document.write(to: file)
        let stubber = HTTPStubber()
        try stubber.load(harAt: file)
        let plan = try stubber.response(for: HTTPIncomingRequest(request))
        #expect(plan.body == Self.body, "the same bytes")
        #expect(plan.chunks.map(\.deadline) == [120, 320, 700].map { Duration.milliseconds($0) })
    }

    @Test func aHARWithoutTimesStillAnswersWithTheEvents() throws {
        let har = #"""
            {"log": {"version": "1.2", "creator": {"name": "browser", "version": "1"}, "entries": [
              {"startedDateTime": "2026-01-02T03:04:05.000Z", "time": 5,
               "request": {"method": "GET", "url": "https://api.test/feed", "httpVersion": "HTTP/1.1", "cookies": [],
                 "headers": [], "queryString": [], "headersSize": -1, "bodySize": 0},
               "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [],
                 "headers": [{"name": "Content-Type", "value": "text/event-stream; charset=utf-8"}],
                 "content": {"size": 20, "mimeType": "text/event-stream", "text": "data: a\r\n\r\ndata: b\r\n\r\n"},
                 "redirectURL": "", "headersSize": -1, "bodySize": 20},
               "cache": {}, "timings": {"send": 0, "wait": 5, "receive": 0}}]}}
            """#
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("feed-\(UUID().uuidString).har")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(har.utf8).write(to: file)
        let stubber = HTTPStubber()
        try stubber.load(harAt: file)
        let plan = try stubber.response(
            for: HTTPIncomingRequest(URLRequest(url: URL(string: "https://api.test/feed")!)))
        #expect(String(decoding: plan.body, as: UTF8.self) == "data: a\n\ndata: b\n\n")
        #expect(plan.response?.headers[.contentType] == "text/event-stream; charset=utf-8")
        #expect(plan.chunks.count == 2 && plan.chunks.allSatisfy { $0.deadline == .zero })
    }

    @Test func aJournalExportsAStubbedStreamsTimes() async throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://api.test/s")
                .stub(
                    for: .get,
                    response: .eventStream([
                        HTTPStubEvent(data: "a", delay: 0.01), HTTPStubEvent(data: "b", delay: 0.02),
                    ])))
        _ = try await HTTPStubSession(stubber: stubber).data(for: URLRequest(url: URL(string: "https://api.test/s")!))
        let read = try HAR.read(stubber.harDocument())
        #expect(read.exchanges.first?.eventStream?.events.map(\.delay) == [0.01, 0.02])
    }
}
