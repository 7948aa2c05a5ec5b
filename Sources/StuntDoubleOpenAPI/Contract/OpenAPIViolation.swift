import Foundation

/// One rule of the contract that a request or a response breaks.
public struct OpenAPIViolation: Hashable, Sendable, CustomStringConvertible {
    /// The rule, as the document's keyword names it: `required`, `type`, `maximum`, `path`, `method`,
    /// `security`, `contentType`...
    public let rule: String
    /// Where in the request or response: `body.items[2].price`, `query.limit`, `header.X-Request-ID`, `path`.
    public let location: String
    /// What was wrong, as a person reads it.
    public let message: String
    /// Where the rule is written in the document, when it is.
    public let documentLocation: OpenAPISourceLocation?

    /// `location: message (rule, file:line:column)`.
    public var description: String {
        "\(location): \(message) (\(rule)\(documentLocation.map { ", \($0)" } ?? ""))"
    }
}
