import StuntDoubleGraphQL
import StuntDoubleWireMock

extension StubFileExtension {
    /// Every WireMock extension StuntDouble runs: what `serve`, `check`, `record` and `import-har` read and write.
    static let shipped: [StubFileExtension] = [.graphQL]
}
