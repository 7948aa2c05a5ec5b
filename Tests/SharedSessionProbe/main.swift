// Runs in its own process, so that it controls when the first URLSession is created: the order that
// decides, on Linux, whether HTTPStubber.shared.enable() reaches URLSession.shared. Used by
// SharedSessionProcessTests.
//
//   SharedSessionProbe early   enable() before any session exists, then request with URLSession.shared
//   SharedSessionProbe late    create a session first, then enable()

import Foundation
import StuntDouble

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

let mode = CommandLine.arguments.dropFirst().first ?? "early"
if mode == "late" {
    _ = URLSession(configuration: .ephemeral)
}
HTTPStubber.shared.add(
    stub: HTTPStubRequest().match(URL: "https://probe.test/hello").stub(
        for: .get, body: "stubbed via URLSession.shared")
)
HTTPStubber.shared.enable()
print("intercepts shared session: \(HTTPStubber.shared.interceptsSharedSession)")
do {
    try HTTPStubber.shared.requireSharedSessionInterception()
    let (data, _) = try await URLSession.shared.data(from: URL(string: "https://probe.test/hello")!)
    print("response: \(String(decoding: data, as: UTF8.self))")
} catch {
    print("error: \(error)")
}
