import Foundation
import StuntDouble

extension HTTPStubber {
    /// Loads an OpenAPI document: every operation answers from its examples or values generated from its
    /// schemas, and requests that break the document's rules are refused with a problem report.
    ///
    /// ```swift
    /// let stubber = HTTPStubber()
    /// try stubber.load(openAPIAt: URL(fileURLWithPath: "openapi.yaml"))
    /// // GET /pets/1 answers the example of getPet's 200 response; GET /pets/x answers 400, naming the rule.
    /// ```
    ///
    /// Stubs added before or after win over the document for the requests they match (the document answers
    /// at the lowest priority); requests are checked against the document first either way.
    /// - Parameters:
    ///   - url: The document (JSON or YAML, OpenAPI 3.0 or 3.1).
    ///   - validatesRequests: Whether requests to the document's operations are checked first.
    ///   - answersRequests: Whether the document answers; `false` to check requests only and let stubs,
    ///     opt-in mode or a recording answer them (the server's `--validate-only`).
    ///   - answering: The seed and mode of generated values.
    /// - Returns: The loaded document, to ``unload(_:)`` it.
    /// - Throws: ``OpenAPIContractError`` when the document cannot be read.
    @discardableResult
    public func load(
        openAPIAt url: URL, validatesRequests: Bool = true, answersRequests: Bool = true,
        answering: OpenAPIAnswering = OpenAPIAnswering()
    ) throws(OpenAPIContractError) -> LoadedOpenAPIDocument {
        load(
            try OpenAPIContract(contentsOf: url), validatesRequests: validatesRequests,
            answersRequests: answersRequests, answering: answering)
    }

    /// Loads a compiled OpenAPI document (see ``load(openAPIAt:validatesRequests:answersRequests:answering:)``).
    /// - Parameters:
    ///   - contract: The document.
    ///   - validatesRequests: Whether requests to the document's operations are checked first.
    ///   - answersRequests: Whether the document answers.
    ///   - answering: The seed and mode of generated values.
    /// - Returns: The loaded document, to ``unload(_:)`` it.
    @discardableResult
    public func load(
        _ contract: OpenAPIContract, validatesRequests: Bool = true, answersRequests: Bool = true,
        answering: OpenAPIAnswering = OpenAPIAnswering()
    ) -> LoadedOpenAPIDocument {
        let document = LoadedOpenAPIDocument(
            contract: contract, validatesRequests: validatesRequests, answersRequests: answersRequests,
            answering: answering, resets: { [weak self] in self?.stateResets ?? 0 })
        add(gate: document.gate)
        if answersRequests { add(stub: document.stub) }
        return document
    }

    /// Loads an OpenAPI document to check the traffic a server forwards to its upstream, as Stoplight Prism's
    /// proxy mode does (`stuntdouble serve --openapi openapi.yaml --proxy URL`): the document answers nothing;
    /// each request to one of its operations, and the upstream's answer, are checked against it.
    ///
    /// What either breaks is named in the answer's `StuntDouble-Violations` header, kept in the request's journal
    /// entry (`openAPIRequestViolations`, `openAPIViolations`) and logged. With
    /// `refusesViolations`, a request that breaks the document is answered with its error instead of forwarded,
    /// and an upstream's answer that breaks it becomes a `502` problem document (RFC 9457) naming each rule.
    /// - Parameters:
    ///   - contract: The document.
    ///   - refusesViolations: Whether violations become errors (`serve --errors`) rather than reports.
    /// - Returns: The loaded document, to ``unload(_:)`` it.
    @discardableResult
    public func load(checkingForwardedTrafficAgainst contract: OpenAPIContract, refusesViolations: Bool = false)
        -> LoadedOpenAPIDocument
    {
        load(
            checkingForwardedTrafficAgainst: contract, refusesRequests: refusesViolations,
            refusesAnswers: refusesViolations)
    }

    /// Loads a document to check forwarded traffic, refusing requests and answers that break it apart
    /// (`serve --validate-only --proxy URL` refuses requests and reports answers).
    @discardableResult
    package func load(
        checkingForwardedTrafficAgainst contract: OpenAPIContract, refusesRequests: Bool, refusesAnswers: Bool
    ) -> LoadedOpenAPIDocument {
        let document = LoadedOpenAPIDocument(
            contract: contract, validatesRequests: refusesRequests, answersRequests: false,
            answering: OpenAPIAnswering(), forwarded: refusesAnswers ? .refused : .reported)
        add(gate: document.gate)
        return document
    }

    /// Removes a loaded document: its answers and its checks.
    /// - Parameter document: What `load` returned.
    public func unload(_ document: LoadedOpenAPIDocument) {
        remove(gate: document.gate)
        remove(stub: document.stub)
    }
}
