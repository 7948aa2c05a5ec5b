// A process that links StuntDoubleTargets alone, as an app or a server that ships it does. Used by
// RegistrationTests: it makes a provider, sends a request through it to a stub it plays itself, and a real
// request through URLSession.shared (to a closed port), then prints the URLProtocol classes URLSession.shared
// copied from the registered ones, one a line after "protocol class: ", and "done".

import Foundation
import StuntDoubleTargets

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

struct Zen: TargetType {
    var baseURL: URL { URL(string: "https://api.example.test")! }
    var path: String { "/zen" }
    var sampleData: Data { Data("Practicality beats purity.".utf8) }
}

let provider = APIProvider<Zen>(stubClosure: APIProvider.immediatelyStub)
do {
    let response = try await provider.request(Zen())
    print("stubbed: \(String(decoding: response.data, as: UTF8.self))")
} catch {
    print("stubbed: error \(error)")
}
// A request of URLSession.shared: nothing of StuntDouble may answer it (port 9 of the loopback: discard, closed).
do {
    _ = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:9/")!)
    print("shared: answered")
} catch {
    print("shared: \((error as? URLError)?.code.rawValue ?? 0)")
}
for protocolClass in URLSession.shared.configuration.protocolClasses ?? [] {
    print("protocol class: \(String(reflecting: protocolClass))")
}
print("done")
