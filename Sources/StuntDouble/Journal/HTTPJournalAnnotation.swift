/// What a module built on StuntDouble found about an exchange, kept with its journal entry: the rules of an OpenAPI
/// document that a stub's response breaks, for one (`StuntDoubleOpenAPI`'s `ContractViolations`).
///
/// The core keeps annotations without knowing their kinds: each module attaches its own, and reads them back by
/// type (``HTTPJournalEntry/annotations(of:)``). The stub server lists each under its ``name`` in the admin API's
/// journal and logs it as a warning.
public protocol HTTPJournalAnnotation: Sendable {
    /// The name a listing gives it (`contractViolations` in `GET /__admin/requests`).
    var name: String { get }
    /// What it says of the exchange, as a sentence for a log (`the stub's response breaks the OpenAPI document`).
    var summary: String { get }
    /// Its findings, one a line.
    var lines: [String] { get }
}

extension HTTPJournalEntry {
    /// The entry's annotations of one kind, in the order they were attached.
    /// - Parameter type: The kind.
    /// - Returns: The annotations of that kind; empty when there are none.
    public func annotations<Annotation: HTTPJournalAnnotation>(of type: Annotation.Type) -> [Annotation] {
        annotations.compactMap { $0 as? Annotation }
    }
}
