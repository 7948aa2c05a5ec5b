// Runs in its own process (linking StuntDouble, not StuntDoubleTesting), so that it controls what happens before
// HTTPStubber.shared.enable(): on Linux, the order decides whether it reaches URLSession.shared.
//
//   SharedSessionProbe early       enable() before any session exists, then request with URLSession.shared
//   SharedSessionProbe late        create sessions first (URLSession.shared too), then enable(): which says why not
//   SharedSessionProbe unreachable URLSession.shared created without StuntDouble's protocol class, then enable()
//                                  twice (the warning on standard error comes once)
//   SharedSessionProbe fetch URL   no stubber: a plain URLSession fetches URL (the stub server's HTTPS, trusted
//                                  through URLSessionCAInfo on Linux), and prints the status and body

import Foundation
import StuntDouble

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

let mode = CommandLine.arguments.dropFirst().first ?? "early"
if mode == "fetch", let target = CommandLine.arguments.dropFirst(2).first.flatMap(URL.init(string:)) {
    do {
        let (data, response) = try await URLSession(configuration: .ephemeral).data(from: target)
        print(
            "status: \((response as? HTTPURLResponse)?.statusCode ?? 0) body: \(String(decoding: data, as: UTF8.self))")
    } catch {
        print("error: \(error)")
    }
    exit(0)
}
switch mode {
case "late":
    _ = URLSession(configuration: .ephemeral)
    _ = URLSession.shared.configuration
case "unreachable":
    HTTPStubber.withdrawGlobalProtocolRegistration()
    _ = URLSession.shared.configuration
default:
    break
}
HTTPStubber.shared.add(
    stub: HTTPStubRequest().match(URL: "https://probe.test/hello").stub(
        for: .get, body: "stubbed via URLSession.shared")
)
HTTPStubber.shared.enable()
if mode == "unreachable" {
    HTTPStubber.shared.disable()
    HTTPStubber.shared.enable()
}
print("intercepts shared session: \(HTTPStubber.shared.interceptsSharedSession)")
do {
    try HTTPStubber.shared.requireSharedSessionInterception()
    let (data, _) = try await URLSession.shared.data(from: URL(string: "https://probe.test/hello")!)
    print("response: \(String(decoding: data, as: UTF8.self))")
} catch {
    print("error: \(error)")
}
