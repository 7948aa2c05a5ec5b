import Foundation
import StuntDouble
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Whether a given session or configuration reaches a stubber: what a library's own session needs checked.
@Suite struct SessionInterceptionCheckTests {
    @Test func sessionsMadeFromTheStubberAreIntercepted() throws {
        let stubber = HTTPStubber()
        #expect(stubber.intercepts(stubber.session()))
        #expect(stubber.intercepts(stubber.sessionConfiguration(from: .default)))
        try stubber.requireInterception(of: stubber.session())
    }

    @Test func sessionsOfOtherStubbersOrOfFoundationAreNot() throws {
        let stubber = HTTPStubber()
        let other = HTTPStubber()
        #expect(!stubber.intercepts(other.session()))
        #expect(!stubber.intercepts(URLSessionConfiguration.default))
        #expect(!stubber.intercepts(URLSession(configuration: .ephemeral)))
        #expect {
            try stubber.requireInterception(of: URLSession(configuration: .default))
        } throws: { error in
            let error = error as? HTTPStubberError
            return error?.code == .interceptionUnavailable
                && error?.message.contains("takes them first") == true
                && error?.message.contains("stubber.sessionConfiguration(from: base)") == true
        }
        #expect {
            try stubber.requireInterception(of: other.session())
        } throws: { error in
            (error as? HTTPStubberError)?.message.contains("another stubber's protocol class") == true
        }
    }

    @Test func aConfigurationWithTheStubberLaterThanFoundationIsNot() {
        let stubber = HTTPStubber()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = (configuration.protocolClasses ?? []) + [stubber.urlProtocolClass]
        #if canImport(FoundationNetworking)
        #expect(!stubber.intercepts(configuration), "Foundation's HTTP protocol comes first")
        #endif
        configuration.protocolClasses = []
        #expect(!stubber.intercepts(configuration))
    }
}
