import Foundation
import StuntDouble
import StuntDoubleTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A test process that links StuntDoubleTesting registers StuntDouble's global URLProtocol class when it loads,
/// before any test can make a session: on Linux `URLSession.shared` copies the registered classes once, so that is
/// what lets `HTTPStubber.enable()` reach it from any test, whatever other suites did first. (StuntDouble alone
/// registers nothing until `enable()`: `SharedSessionProcessTests` and `RegistrationTests` show both sides.)
@Suite struct LoadTimeRegistrationTests {
    @Test func theTestProcessRegisteredTheGlobalClassBeforeAnySession() {
        #if canImport(FoundationNetworking)
        #expect(HTTPStubber.globalProtocolRegistration == .atLoad)
        let classes = (URLSession.shared.configuration.protocolClasses ?? []).map { String(reflecting: $0) }
        #expect(classes.first == "StuntDouble.GlobalStubURLProtocol", "\(classes)")
        #else
        // Apple platforms consult the registered classes on every request: the first enable() registers it.
        #expect(HTTPStubber.globalProtocolRegistration != .atLoad)
        #endif
    }
}
