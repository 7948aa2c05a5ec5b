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

    /// Removes a loaded document: its answers and its checks.
    /// - Parameter document: What `load` returned.
    public func unload(_ document: LoadedOpenAPIDocument) {
        remove(gate: document.gate)
        remove(stub: document.stub)
    }
}
