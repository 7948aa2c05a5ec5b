/// Why an OpenAPI document could not be loaded: the file, line and column, what was wrong and how to mend it.
public struct OpenAPIContractError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What was wrong, with where (`file:line:column: ...`) when the document says.
    public let message: String

    init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
