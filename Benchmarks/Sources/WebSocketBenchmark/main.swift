// WebSocket connections held by the stub server: how many idle connections it keeps, its memory per connection,
// and how long a message to all of them takes to arrive.
//
//   swift run -c release --package-path Benchmarks WebSocketBenchmark [connections]   (10,000 by default)
//
// The server runs here; the clients run in a child process (this program again, with `clients`), each a plain
// blocking socket that completes the opening handshake and then sits idle, so that the server's resident memory is
// measured without the clients' and each process stays within its open-file limit.
import Foundation
import StuntDouble
import StuntDoubleServer

#if canImport(Glibc)
import Glibc
#endif

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// This process's resident memory in KiB (`VmRSS` of /proc/self/status), or 0 where there is none.
func residentKiB() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("WebSocketBenchmark: \(message)\n".utf8))
    exit(1)
}

// MARK: - The clients (the child process)

/// Opens `count` connections to the server and completes each handshake; says `ready`; on `read`, reads one text
/// frame from each and says how many came; on end of input, leaves.
func runClients(count: Int, port: Int) -> Never {
    var sockets: [Int32] = []
    sockets.reserveCapacity(count)
    let request = Array(
        ("GET /idle HTTP/1.1\r\nHost: bench\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").utf8)
    var buffer = [UInt8](repeating: 0, count: 4096)
    for index in 0..<count {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { fail("socket \(index + 1) cannot be made: errno \(errno) (raise ulimit -n)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { fail("connection \(index + 1) refused: errno \(errno)") }
        _ = request.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, 0) }
        var head: [UInt8] = []
        while !head.suffix(4).elementsEqual([13, 10, 13, 10]) {
            let read = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, 1, 0) }
            guard read == 1 else { fail("connection \(index + 1) closed during the handshake") }
            head.append(buffer[0])
        }
        guard String(decoding: head, as: UTF8.self).hasPrefix("HTTP/1.1 101") else {
            fail("connection \(index + 1) was not upgraded: \(String(decoding: head, as: UTF8.self))")
        }
        sockets.append(socket)
    }
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    while let line = readLine() {
        guard line == "read" else { continue }
        var received = 0
        for socket in sockets {
            // A short text frame: 0x81, its length, the text.
            var header = [UInt8](repeating: 0, count: 2)
            guard recv(socket, &header, 2, Int32(MSG_WAITALL)) == 2, header[0] == 0x81 else { continue }
            var payload = [UInt8](repeating: 0, count: Int(header[1] & 0x7F))
            if recv(socket, &payload, payload.count, Int32(MSG_WAITALL)) == payload.count { received += 1 }
        }
        FileHandle.standardOutput.write(Data("received \(received)\n".utf8))
    }
    exit(0)
}

if CommandLine.arguments.count == 4, CommandLine.arguments[1] == "clients",
    let count = Int(CommandLine.arguments[2]), let port = Int(CommandLine.arguments[3])
{
    runClients(count: count, port: port)
}

// MARK: - The server (this process)

let connections = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 10_000 : 10_000
let stubber = HTTPStubber()
stubber.add(messageStub: HTTPMessageStub(name: "echo").send { message, _ in .text(message?.text ?? "") })
let server = HTTPStubServer(stubber: stubber)
let baseURL = try await server.start()
let port = baseURL.port ?? 0

func waitForChannels(_ count: Int, within timeout: Duration) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if stubber.channels.count == count { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return stubber.channels.count == count
}

let before = residentKiB()
let child = Process()
child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
child.arguments = ["clients", String(connections), String(port)]
let input = Pipe()
let output = Pipe()
child.standardInput = input
child.standardOutput = output
let opening = ContinuousClock.now
try child.run()
/// The child's next line, read byte by byte (blocking).
func nextLine() -> String? {
    var bytes: [UInt8] = []
    while true {
        let data = output.fileHandleForReading.readData(ofLength: 1)
        guard let byte = data.first else { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
        if byte == 0x0A { return String(decoding: bytes, as: UTF8.self) }
        bytes.append(byte)
    }
}
guard nextLine() == "ready" else { fail("the clients did not connect") }
guard await waitForChannels(connections, within: .seconds(120)) else {
    fail("the server holds \(stubber.channels.count) channels, not \(connections)")
}
let opened = ContinuousClock.now - opening
// Let the server's buffers settle, as they would in a test that holds connections open.
try await Task.sleep(for: .seconds(1))
let held = residentKiB()

let sending = ContinuousClock.now
let messaged = stubber.send(.text("tick"))
input.fileHandleForWriting.write(Data("read\n".utf8))
guard let answer = nextLine(), answer == "received \(connections)" else {
    fail("not every client got the message")
}
let delivered = ContinuousClock.now - sending

try input.fileHandleForWriting.close()
child.waitUntilExit()
let closedAll = await waitForChannels(0, within: .seconds(60))
await server.stop()

print("WebSocket connections held by the stub server (\(connections) idle, clients in another process)")
print(
    String(
        format: "  opened and upgraded:  %d in %.2f s (%.0f per second, one after another)",
        connections, opened.seconds, Double(connections) / opened.seconds))
print(
    "  resident memory:      \(before) KiB before, \(held) KiB holding them: "
        + "\((held - before) / 1024) MiB, \((held - before) * 1024 / max(connections, 1)) bytes per connection")
print(
    String(
        format: "  a message to all:     %d channels messaged, every client had it after %.1f ms",
        messaged, delivered.seconds * 1000))
print("  after the clients left: \(closedAll ? "every channel closed" : "\(stubber.channels.count) channels open")")
