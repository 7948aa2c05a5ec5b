import Foundation

/// How a contract answers requests with no stub of their own.
public struct OpenAPIAnswering: Sendable, Hashable {
    /// The seed of generated values: the same seed, the same answers.
    public var seed: UInt64
    /// Whether values are generated at random for every request (Prism's `--dynamic`); a request can ask for
    /// either with `Prefer: dynamic=true|false`.
    public var isDynamic: Bool
    /// Whether the document keeps what requests make (`serve --stateful`): `POST /pets` makes a pet that
    /// `GET /pets/{petId}` returns and `GET /pets` lists, `PUT` and `PATCH` change it, `DELETE` removes it. Every
    /// request is still checked against the document, and every answer too.
    public var isStateful: Bool
    /// Whether a stateful document's collections start with the resources its examples show (`serve
    /// --stateful --initial-state examples`), rather than empty.
    public var startsFromExamples: Bool
    /// Whether the document's response examples are served as written even where they break their schemas
    /// (`serve --examples-as-written`, Prism's way). Off (the default), such an example is left out (a deviation
    /// says where it is and what it breaks) and the answer is a value made from the schema, so that no answer
    /// breaks the document.
    public var servesExamplesAsWritten = false

    /// Creates answering settings.
    /// - Parameters:
    ///   - seed: The seed of generated values.
    ///   - isDynamic: Whether each request gets newly generated values by default.
    ///   - isStateful: Whether the document keeps the resources requests make.
    ///   - startsFromExamples: Whether its collections start with the document's examples.
    public init(seed: UInt64 = 0, isDynamic: Bool = false, isStateful: Bool = false, startsFromExamples: Bool = false) {
        self.seed = seed
        self.isDynamic = isDynamic
        self.isStateful = isStateful
        self.startsFromExamples = startsFromExamples
    }
}
