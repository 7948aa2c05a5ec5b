import Foundation
import StuntDouble
import StuntDoubleServer
import TestSupport
import Testing

/// A client that leaves mid-stream ends the stream on the server: its timers, its playback, its buffers. A
/// thousand clients leave streams that would never end on their own (one repeats forever, one stays open): each
/// exchange must be completed in the journal (its playback ended), and the `stuntdouble` process's memory must
/// stay flat (measured in a process of its own: the test process runs other tests beside this one).
@Suite struct EventStreamLeakTests {
    /// A process's resident memory, in bytes (Linux's `/proc/<pid>/statm`), or `nil` elsewhere.
    static func residentBytes(of pid: pid_t) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// `count` clients, 25 at a time, each reading its first event, then leaving; even ones ask for `/forever`,
    /// odd ones for `/open`.
    static func leave(_ count: Int, from offset: Int, server baseURL: URL) async throws {
        let progress = RawConnection.Progress()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for batch in stride(from: 0, to: count, by: 25) {
                for index in batch..<min(batch + 25, count) {
                    group.addTask {
                        let path = (offset + index).isMultiple(of: 2) ? "/forever" : "/open"
                        let connection = try await RawConnection.connect(to: baseURL)
                        try await connection.send("GET \(path) HTTP/1.1\r\nHost: test\r\n\r\n")
                        let gotEvent = try await connection.read(sharing: progress) { data in
                            String(decoding: data, as: UTF8.self).contains("data: ")
                        }
                        #expect(gotEvent)
                        await connection.close()
                    }
                }
                try await group.waitForAll()
            }
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func aThousandClientsLeavingEndlessStreamsEndThem() async throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URI: "/forever")
                .stub(
                    for: .get, response: .eventStream([HTTPStubEvent(data: "tick", delay: 0.005)], repetition: .forever)
                ))
        stubber.add(
            stub: HTTPStubRequest().match(URI: "/open")
                .stub(for: .get, response: .eventStream([HTTPStubEvent(data: "hello")], end: .stayOpen)))
        try await withStubServer(stubber: stubber) { baseURL in
            try await Self.leave(1000, from: 0, server: baseURL)
            let deadline = ContinuousClock.now + .seconds(60)
            while !stubber.journal.allSatisfy({ $0.completion != nil }), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(stubber.journal.count == 1000)
            let open = stubber.journal.filter { $0.completion == nil }
            #expect(open.isEmpty, "\(open.count) streams still playing after their clients left")
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func theCommandsMemoryStaysFlatAsAThousandClientsLeave() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("sse-leak-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("mappings"), withIntermediateDirectories: true)
        try Data(
            #"""
            {"mappings": [
              {"request": {"urlPath": "/forever"}, "response": {"serverSentEvents": {"events": [{"data": "tick", "delayMilliseconds": 5}], "times": "forever"}}},
              {"request": {"urlPath": "/open"}, "response": {"serverSentEvents": {"events": [{"data": "hello"}], "end": "open"}}}
            ]}
            """#.utf8
        ).write(to: root.appendingPathComponent("mappings/streams.json"))
        let serve = try CommandProcess(["serve", "--port", "0", "--root", root.path, "--quiet"])
        defer { serve.signal(SIGKILL) }
        #expect(try await serve.waitForOutput { $0.contains("Press Ctrl-C to stop.") }, "\(serve.standardOutput)")
        let match = try #require(serve.standardOutput.firstMatch(of: /on (http:\/\/127\.0\.0\.1:\d+)/))
        let baseURL = try #require(URL(string: String(match.1)))
        // Warm up (allocators and pools reach their size), then measure across a thousand more.
        try await Self.leave(200, from: 0, server: baseURL)
        try await Task.sleep(for: .milliseconds(500))
        let before = Self.residentBytes(of: serve.processIdentifier)
        try await Self.leave(1000, from: 200, server: baseURL)
        try await Task.sleep(for: .milliseconds(500))
        let after = Self.residentBytes(of: serve.processIdentifier)
        if let before, let after {
            // A stream left playing keeps its playback, its timer and what it wrote to a connection nobody reads
            // (the forever stream writes every 5 ms); a thousand of them would grow far past this.
            #expect(after - before < 8 << 20, "resident memory grew by \(after - before) bytes (from \(before))")
            print(
                "stuntdouble serve: resident memory \(before >> 10) KiB before, \(after >> 10) KiB after 1,000 streams left"
            )
        }
        serve.signal(SIGTERM)
        #expect(try await serve.waitForExit() == 0)
    }
}
