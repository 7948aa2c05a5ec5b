import StuntDouble

/// The rules of a loaded OpenAPI document that a stub's response breaks, kept with the request's journal entry.
/// The document's own answers and refusals are not checked, nor responses to paths the document does not have.
public struct ContractViolations: HTTPJournalAnnotation, Equatable {
    /// The broken rules (`body.price: expected number, found string "9" (type, openapi.yaml:40:17)`).
    public let rules: [String]

    /// Creates the annotation.
    /// - Parameter rules: The broken rules, one a line.
    public init(rules: [String]) {
        self.rules = rules
    }

    /// `contractViolations`: the admin API's journal lists the rules under it.
    public var name: String { "contractViolations" }
    /// What a log says before the rules.
    public var summary: String { "the stub's response breaks the OpenAPI document" }
    /// The broken rules.
    public var lines: [String] { rules }
}

extension HTTPJournalEntry {
    /// The rules of loaded OpenAPI documents that the stub's response breaks; empty when it keeps to them, or when
    /// no document is loaded.
    public var contractViolations: [String] {
        annotations(of: ContractViolations.self).flatMap(\.rules)
    }
}
