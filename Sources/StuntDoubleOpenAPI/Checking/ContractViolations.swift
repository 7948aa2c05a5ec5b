import StuntDouble

/// The rules of a loaded OpenAPI document that a stub's response breaks, kept with the request's journal entry
/// (or, behind a validating proxy, that a forwarded request or the upstream's answer breaks). The document's own
/// answers and refusals are not checked, nor responses to paths the document does not have.
public struct ContractViolations: HTTPJournalAnnotation, Equatable {
    /// What broke the rules.
    public enum Subject: String, Sendable, Equatable {
        /// A stub's response.
        case stubResponse
        /// A request forwarded to an upstream (`serve --openapi X --proxy URL`).
        case request
        /// An upstream's answer to a forwarded request.
        case upstreamResponse
    }

    /// The broken rules.
    public let violations: [OpenAPIViolation]
    /// What broke them.
    public let subject: Subject

    /// Creates the annotation.
    /// - Parameters:
    ///   - violations: The broken rules.
    ///   - subject: What broke them: a stub's response unless said.
    public init(violations: [OpenAPIViolation], subject: Subject = .stubResponse) {
        self.violations = violations
        self.subject = subject
    }

    /// `contractViolations` (a response's) or `requestViolations`: the admin API's journal lists the rules under
    /// it.
    public var name: String { subject == .request ? "requestViolations" : "contractViolations" }
    /// What a log says before the rules.
    public var summary: String {
        switch subject {
        case .stubResponse: "the stub's response breaks the OpenAPI document"
        case .request: "the request breaks the OpenAPI document"
        case .upstreamResponse: "the upstream's response breaks the OpenAPI document"
        }
    }
    /// The broken rules, one a line (`body.price: expected number, found string "9" (type, openapi.yaml:40:17)`).
    public var lines: [String] { violations.map(\.description) }
}

extension HTTPJournalEntry {
    /// The rules of loaded OpenAPI documents that the stub's response breaks; empty when it keeps to them, or when
    /// no document is loaded.
    public var openAPIViolations: [OpenAPIViolation] {
        annotations(of: ContractViolations.self).filter { $0.subject != .request }.flatMap(\.violations)
    }

    /// The rules of loaded OpenAPI documents that a request forwarded to an upstream breaks (a validating
    /// proxy's findings); empty when it keeps to them.
    public var openAPIRequestViolations: [OpenAPIViolation] {
        annotations(of: ContractViolations.self).filter { $0.subject == .request }.flatMap(\.violations)
    }

    /// The rules of loaded OpenAPI documents that the stub's response breaks, as text.
    @available(*, deprecated, message: "Use openAPIViolations; each one's description is this text.")
    public var contractViolations: [String] {
        openAPIViolations.map(\.description)
    }
}
