import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension HTTPStubServer.Configuration {
    /// Which upstreams proxying may reach (WireMock 3's `--allow-proxy-targets` and `--deny-proxy-targets`), as
    /// WireMock reads them: each rule is an IPv4 address (`10.1.2.3`), a range of them (`10.0.0.0-10.255.255.255`),
    /// or a host name where `*` stands for one character or more (`*.example.com`).
    ///
    /// A target is allowed when its host passes, and so does every IPv4 address its name resolves to: an address
    /// passes when an allowed address rule includes it (or there is none) and no denied one does; a name passes
    /// when an allowed name rule matches it (or there is none) and no denied one does. A target that does not
    /// pass is answered `500` without being reached. The name is resolved to check it, and again by the
    /// connection: a name whose addresses change in between (DNS rebinding) is not caught, where WireMock checks
    /// the addresses it connects to.
    public struct ProxyTargetRules: Sendable {
        /// The allowed targets, as given.
        public let allowed: [String]
        /// The denied targets, as given.
        public let denied: [String]
        private let allowedRules: [Rule]
        private let deniedRules: [Rule]

        fileprivate enum Rule: Sendable {
            case addresses(ClosedRange<UInt32>)
            case name(pattern: [Substring])

            var isAddress: Bool {
                if case .addresses = self { true } else { false }
            }

            func includes(_ value: String, address: UInt32?) -> Bool {
                switch self {
                case .addresses(let range): return address.map(range.contains) ?? false
                case .name(let pattern): return Self.matches(Substring(value.lowercased()), pattern[...])
                }
            }

            /// Whether `text` is the pattern's literal parts with one character or more for each `*` between them.
            private static func matches(_ text: Substring, _ parts: ArraySlice<Substring>) -> Bool {
                guard let first = parts.first else { return text.isEmpty }
                guard text.hasPrefix(first) else { return false }
                let rest = text.dropFirst(first.count)
                guard parts.count > 1 else { return rest.isEmpty }
                // A `*`: one character or more, then the remaining parts.
                var start = rest.startIndex
                while start < rest.endIndex {
                    start = rest.index(after: start)
                    if matches(rest[start...], parts.dropFirst()) { return true }
                }
                return false
            }
        }

        /// Rules for proxying.
        /// - Parameters:
        ///   - allowed: The targets proxying may reach; none allows every target.
        ///   - denied: The targets it may not reach, whatever `allowed` says.
        /// - Throws: ``HTTPStubServerError`` naming a rule that is empty, or an address that is not one.
        public init(allowing allowed: [String] = [], denying denied: [String] = []) throws(HTTPStubServerError) {
            self.allowed = allowed
            self.denied = denied
            allowedRules = try allowed.map(Self.rule)
            deniedRules = try denied.map(Self.rule)
        }

        private static func rule(_ text: String) throws(HTTPStubServerError) -> Rule {
            let text = text.trimmingCharacters(in: .whitespaces)
            guard !text.isEmpty else {
                throw HTTPStubServerError(
                    .invalidConfiguration,
                    "A proxy target rule is empty: give an IPv4 address, a range such as 10.0.0.0-10.255.255.255, or "
                        + "a host name such as *.example.com.")
            }
            let quad = #/\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}/#
            if text.wholeMatch(of: quad) != nil {
                let address = try address(text)
                return .addresses(address...address)
            }
            let bounds = text.split(separator: "-", omittingEmptySubsequences: false)
            if bounds.count == 2, bounds.allSatisfy({ $0.wholeMatch(of: quad) != nil }) {
                let (low, high) = (try address(String(bounds[0])), try address(String(bounds[1])))
                guard low <= high else {
                    throw HTTPStubServerError(
                        .invalidConfiguration, "\(text) is not a range of addresses: its start is after its end.")
                }
                return .addresses(low...high)
            }
            return .name(pattern: text.lowercased().split(separator: "*", omittingEmptySubsequences: false))
        }

        private static func address(_ text: String) throws(HTTPStubServerError) -> UInt32 {
            guard let value = ipv4(text) else {
                throw HTTPStubServerError(
                    .invalidConfiguration, "\(text) is not an IPv4 address (each of its four numbers is 0 to 255).")
            }
            return value
        }

        /// An IPv4 address's value, or `nil` for anything else.
        static func ipv4(_ text: String) -> UInt32? {
            let parts = text.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 4 else { return nil }
            var value: UInt32 = 0
            for part in parts {
                guard (1...3).contains(part.count), part.allSatisfy(\.isASCII), let byte = UInt8(part) else {
                    return nil
                }
                value = value << 8 | UInt32(byte)
            }
            return value
        }

        /// Whether every target is allowed (no rules).
        var allowsAll: Bool { allowedRules.isEmpty && deniedRules.isEmpty }

        /// Whether a host name or IPv4 address passes the rules of its kind.
        func allows(_ value: String) -> Bool {
            let address = Self.ipv4(value)
            let kind = { (rule: Rule) in rule.isAddress == (address != nil) }
            let allowing = allowedRules.filter(kind)
            return (allowing.isEmpty || allowing.contains { $0.includes(value, address: address) })
                && !deniedRules.filter(kind).contains { $0.includes(value, address: address) }
        }

        /// Whether a target's host passes, and every IPv4 address it resolves to (resolved off the caller's
        /// thread). A name that does not resolve passes: connecting to it fails on its own.
        func permits(host: String) async -> Bool {
            guard !allowsAll else { return true }
            guard allows(host) else { return false }
            guard Self.ipv4(host) == nil else { return true }
            let addresses = await Self.resolve(host)
            return addresses.allSatisfy(allows)
        }

        /// The IPv4 addresses a name resolves to, as text.
        private static func resolve(_ host: String) async -> [String] {
            await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    var hints = addrinfo()
                    hints.ai_family = AF_INET
                    var list: UnsafeMutablePointer<addrinfo>?
                    guard getaddrinfo(host, nil, &hints, &list) == 0 else { return continuation.resume(returning: []) }
                    defer { freeaddrinfo(list) }
                    var addresses: [String] = []
                    var entry = list
                    while let current = entry {
                        if let socketAddress = current.pointee.ai_addr {
                            let address = socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                                UInt32(bigEndian: $0.pointee.sin_addr.s_addr)
                            }
                            addresses.append(
                                [24, 16, 8, 0].map { String(address >> $0 & 0xFF) }.joined(separator: "."))
                        }
                        entry = current.pointee.ai_next
                    }
                    continuation.resume(returning: addresses)
                }
            }
        }
    }
}
