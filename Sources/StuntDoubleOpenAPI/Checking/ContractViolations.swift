import StuntDouble

/// The rules of a loaded OpenAPI document that a stub's response breaks, kept with the request's journal entry.
/// The document's own answers and refusals are not checked, nor responses to paths the document does not have.
public struct ContractViolations: HTTPJournalAnnotation, Equatable {
    /// The broken rules.
    public let violations: [OpenAPIViolation]

    /// Creates the annotation.
    /// - Parameter violations: The broken rules.
    public init(violations: [OpenAPIViolation]) {
        self.violations = violations
    }

    /// `contractViolations`: the admin API's journal lists the rules under it.
    public var name: String { "contractViolations" }
    /// What a log says before the rules.
    public var summary: String { "the stub's response breaks the OpenAPI document" }
    /// The broken rules, one a line (`body.price: expected number, found string "9" (type, openapi.yaml:40:17)`).
    public var lines: [String] { violations.map(\.description) }
}

extension HTTPJournalEntry {
    /// The rules of loaded OpenAPI documents that the stub's response breaks; empty when it keeps to them, or when
    /// no document is loaded.
    public var openAPIViolations: [OpenAPIViolation] {
        annotations(of: ContractViolations.self).flatMap(\.violations)
    }

    /// The rules of loaded OpenAPI documents that the stub's response breaks, as text.
    @available(*, deprecated, message: "Use openAPIViolations; each one's description is this text.")
    public var contractViolations: [String] {
        openAPIViolations.map(\.description)
    }
}
