/// Values that modules built on the engine attach to a stub, keyed by their type: a stub file's webhooks, say,
/// which only a stub server sends. The engine keeps them with the stub and names none of them.
package struct StubAttachments: Sendable {
    private var values: [ObjectIdentifier: any Sendable] = [:]

    /// No attachments.
    package init() {}

    /// The value attached under its type, if any; setting `nil` removes it.
    package subscript<Value: Sendable>(_ type: Value.Type) -> Value? {
        get { values.isEmpty ? nil : values[ObjectIdentifier(type)] as? Value }
        set { values[ObjectIdentifier(type)] = newValue }
    }
}
