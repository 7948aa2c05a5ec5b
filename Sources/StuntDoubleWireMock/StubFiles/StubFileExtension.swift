import StuntDouble

/// A WireMock extension that stub files name and StuntDouble runs: a custom request matcher, read from a
/// mapping's `"customMatcher": {"name": ..., "parameters": {...}}` (WireMock's `RequestMatcherExtension`).
///
/// Pass the extensions your files use where they are read: ``StubFiles/init(root:unsupportedFeatures:templating:extensions:)``,
/// `HTTPStubber.load(stubFilesAt:unsupportedFeatures:templating:extensions:)`, or a stub server's
/// configuration. `stuntdouble serve` and `check` have every extension StuntDouble ships. StuntDoubleGraphQL
/// ships `graphql-body-matcher` (`StubFileExtension.graphQL`), the matcher of WireMock's GraphQL extension.
///
/// A mapping that names a matcher no extension given has is a feature StuntDouble lacks: an error, or with
/// ``StubFiles/UnsupportedFeatures/answerWithError`` a stub that answers 500 saying so.
public struct StubFileExtension: Sendable, CustomStringConvertible {
    /// The name stub files give it (`customMatcher.name`).
    public let name: String
    /// Where the extension comes from, for messages: `StuntDoubleGraphQL`.
    public let module: String
    let makeMatcher: @Sendable (JSONNode) throws(Problem) -> any HTTPStubMatcherProtocol
    /// How a recording writes a request this extension recognizes (a GraphQL operation), or `nil` for one it
    /// does not: see ``RecordedRequest``.
    let recordRequest: (@Sendable (HTTPIncomingRequest) -> RecordedRequest?)?

    /// How a recorded request is written: the pattern its mapping matches it with, and a label for the mapping's
    /// name, file name and scenario (`query Hero`), so that exchanges on one URL are told apart by what they do.
    package struct RecordedRequest: Sendable {
        /// The pattern.
        package enum Pattern: Sendable {
            /// `customMatcher` with these parameters.
            case parameters(JSONNode)
            /// A body pattern (`{"equalToJson": ...}`).
            case body(JSONNode)
        }

        package let label: String
        package let pattern: Pattern

        package init(label: String, pattern: Pattern) {
            self.label = label
            self.pattern = pattern
        }
    }

    /// Why a mapping's parameters cannot make a matcher, and where: the path of the parameter at fault under
    /// `parameters` (empty for the parameters as a whole).
    package struct Problem: Error, Sendable {
        package let node: JSONNode
        package let path: [String]
        package let message: String

        package init(_ message: String, at node: JSONNode, path: [String] = []) {
            self.message = message
            self.node = node
            self.path = path
        }
    }

    /// Creates an extension.
    /// - Parameters:
    ///   - name: The name stub files give it.
    ///   - module: Where it comes from, for messages.
    ///   - recordRequest: How a recording writes a request the extension recognizes.
    ///   - makeMatcher: Makes the matcher from a mapping's `parameters` (an empty object when it has none).
    package init(
        name: String, module: String, recordRequest: (@Sendable (HTTPIncomingRequest) -> RecordedRequest?)? = nil,
        makeMatcher: @escaping @Sendable (JSONNode) throws(Problem) -> any HTTPStubMatcherProtocol
    ) {
        self.name = name
        self.module = module
        self.recordRequest = recordRequest
        self.makeMatcher = makeMatcher
    }

    /// `graphql-body-matcher (StuntDoubleGraphQL)`.
    public var description: String { "\(name) (\(module))" }
}
