import Foundation

/// What a message must be for a message stub to answer it (WireMock's message body patterns).
public struct HTTPMessagePattern: Sendable, CustomStringConvertible {
    private let test: @Sendable (HTTPStubMessage) -> Bool
    /// What the pattern asks for, for reports.
    public let description: String

    /// A pattern from a test of the message.
    /// - Parameters:
    ///   - description: What it asks for, for reports.
    ///   - test: Whether a message matches.
    public init(_ description: String, _ test: @escaping @Sendable (HTTPStubMessage) -> Bool) {
        self.description = description
        self.test = test
    }

    /// Whether a message matches.
    /// - Parameter message: The message.
    /// - Returns: Whether it matches.
    public func matches(_ message: HTTPStubMessage) -> Bool { test(message) }

    /// Any message.
    public static let any = HTTPMessagePattern("any message") { _ in true }

    /// A message whose text is this.
    /// - Parameter text: The text.
    /// - Returns: The pattern.
    public static func equalTo(_ text: String) -> HTTPMessagePattern {
        HTTPMessagePattern("text equal to \(text.debugDescription)") { $0.text == text }
    }

    /// A message whose text contains this.
    /// - Parameter text: The text.
    /// - Returns: The pattern.
    public static func contains(_ text: String) -> HTTPMessagePattern {
        HTTPMessagePattern("text containing \(text.debugDescription)") { $0.text.contains(text) }
    }

    /// A message whose text is JSON equal to this (members in any order; numbers by value).
    /// - Parameter json: The JSON text.
    /// - Returns: The pattern.
    public static func json(_ json: String) -> HTTPMessagePattern {
        let expected = try? JSONValue.parse(Data(json.utf8))
        return HTTPMessagePattern("JSON equal to \(json)") { message in
            guard let expected, let actual = try? JSONValue.parse(Data(message.text.utf8)) else { return false }
            return actual == expected
        }
    }

    /// A binary message of these bytes.
    /// - Parameter data: The bytes.
    /// - Returns: The pattern.
    public static func binary(_ data: Data) -> HTTPMessagePattern {
        HTTPMessagePattern("\(data.count) bytes") { $0 == .binary(data) }
    }
}
