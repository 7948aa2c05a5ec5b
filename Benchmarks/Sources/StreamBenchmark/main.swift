// Server-sent event streams: how close to its due time each event arrives (median and p99 of the error, in
// process and from the stub server over loopback), and how many events one stream delivers per second.
//
//   swift run -c release --package-path Benchmarks StreamBenchmark
//
// The server is read by a plain POSIX socket on its own thread, which notes when each event's closing blank line
// arrives: the client adds as little as a client can. Errors are arrival minus due time, from the moment the
// request was sent (so they include the client's share).
import Foundation
import StuntDouble
import StuntDoubleServer

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

let eventCount = 200
let interval = 0.01
let fastEventCount = 100_000

func percentile(_ values: [Double], _ fraction: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
}

func milliseconds(_ seconds: Double) -> String { String(format: "%.2f ms", seconds * 1000) }

/// The stubber: `/paced` sends `eventCount` events `interval` apart; `/fast`, `fastEventCount` at once.
func stubber() -> HTTPStubber {
    let stubber = HTTPStubber()
    let payload = #"{"choices":[{"delta":{"content":"token"}}]}"#
    let paced = HTTPStubResponse.eventStream(
        (0..<eventCount).map { _ in HTTPStubEvent(data: payload, delay: interval) })
    let fast = HTTPStubResponse.eventStream([HTTPStubEvent(data: payload)], repetition: .times(fastEventCount))
    for (path, response) in [("paced", paced), ("fast", fast)] {
        // The server's requests (by path) and in-process ones (by URL).
        stubber.add(stub: HTTPStubRequest().match(URI: "/\(path)").stub(for: .get, response: response))
        stubber.add(stub: HTTPStubRequest().match(URL: "http://bench.test/\(path)").stub(for: .get, response: response))
    }
    return stubber
}

/// Counts the events (blank lines after a data line) in bytes as they come, with the time of each.
struct EventClock {
    private var last: UInt8 = 0
    private var beforeLast: UInt8 = 0
    var times: [ContinuousClock.Instant] = []

    mutating func feed(_ bytes: UnsafeRawBufferPointer, at now: ContinuousClock.Instant) {
        for byte in bytes {
            if byte == 0x0A, last == 0x0A, beforeLast != 0x0A { times.append(now) }
            beforeLast = last
            last = byte
        }
    }
}

/// Reads `path` from the server with a blocking socket until it closes; the events' arrival times.
func readFromServer(port: Int, path: String) -> (start: ContinuousClock.Instant, times: [ContinuousClock.Instant]) {
    let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    precondition(connected == 0, "cannot connect to the server")
    let request = Array("GET \(path) HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n".utf8)
    let start = ContinuousClock.now
    _ = request.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, 0) }
    var clock = EventClock()
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        if count <= 0 { break }
        let now = ContinuousClock.now
        buffer.withUnsafeBytes { clock.feed(UnsafeRawBufferPointer(rebasing: $0[0..<count]), at: now) }
    }
    close(socket)
    return (start, clock.times)
}

/// The errors of paced events: each arrival minus its due time (`interval` × its number) after `start`.
func errors(start: ContinuousClock.Instant, times: [ContinuousClock.Instant]) -> [Double] {
    times.enumerated().map { index, time in (time - start).seconds - interval * Double(index + 1) }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

func report(_ label: String, _ errors: [Double]) {
    guard errors.count == eventCount else {
        print("  \(label): \(errors.count) of \(eventCount) events arrived")
        return
    }
    print(
        "  \(label.padding(toLength: 40, withPad: " ", startingAt: 0)) median \(milliseconds(percentile(errors, 0.5))), "
            + "p99 \(milliseconds(percentile(errors, 0.99))), worst \(milliseconds(errors.max() ?? 0))")
}

func rate(_ label: String, count: Int, seconds: Double) {
    print(
        "  \(label.padding(toLength: 40, withPad: " ", startingAt: 0)) \(Int(Double(count) / seconds)) events/s "
            + "(\(count) in \(String(format: "%.2f", seconds)) s)")
}

let stubs = stubber()
print("server-sent events: \(eventCount) events \(Int(interval * 1000)) ms apart; error = arrival - due time")

// In process: HTTPStubSession.stream(for:).
do {
    let session = HTTPStubSession(stubber: stubs)
    let start = ContinuousClock.now
    let (body, _) = try await session.stream(for: URLRequest(url: URL(string: "http://bench.test/paced")!))
    var clock = EventClock()
    for try await part in body { part.withUnsafeBytes { clock.feed($0, at: .now) } }
    report("HTTPStubSession.stream(for:)", errors(start: start, times: clock.times))
}

// In process: URLSession with a delegate (the URLProtocol path).
final class Collector: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    var clock = EventClock()
    let done = DispatchSemaphore(value: 0)
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let now = ContinuousClock.now
        data.withUnsafeBytes { clock.feed($0, at: now) }
    }
    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        done.signal()
    }
}
do {
    let collector = Collector()
    let session = stubs.session(delegate: collector)
    let start = ContinuousClock.now
    session.dataTask(with: URL(string: "http://bench.test/paced")!).resume()
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
            collector.done.wait()
            continuation.resume()
        }
    }
    report("URLSession (URLProtocol), delegate", errors(start: start, times: collector.clock.times))
    session.invalidateAndCancel()
}

// The stub server over loopback, HTTP/1.1 chunked.
let server = HTTPStubServer(stubber: stubs)
let port = try await server.start().port!
do {
    let (start, times) = readFromServer(port: port, path: "/paced")
    report("HTTPStubServer, HTTP/1.1 (loopback)", errors(start: start, times: times))
}

print("events per second on one stream (\(fastEventCount) events due at once)")
do {
    let (start, times) = readFromServer(port: port, path: "/fast")
    let seconds = ((times.last ?? start) - start).seconds
    rate("HTTPStubServer, HTTP/1.1 (loopback)", count: times.count, seconds: seconds)
}
do {
    let session = HTTPStubSession(stubber: stubs)
    let start = ContinuousClock.now
    let (body, _) = try await session.stream(for: URLRequest(url: URL(string: "http://bench.test/fast")!))
    var clock = EventClock()
    for try await part in body { part.withUnsafeBytes { clock.feed($0, at: .now) } }
    let seconds = ((clock.times.last ?? start) - start).seconds
    rate("HTTPStubSession.stream(for:)", count: clock.times.count, seconds: seconds)
}
await server.stop()
