/// A place in a document: its file (as shown to people) and a 1-based line and column.
public struct OpenAPISourceLocation: Hashable, Sendable, CustomStringConvertible {
    /// The file, as given or relative to the main document's folder.
    public let file: String
    /// The line, from 1.
    public let line: Int
    /// The column, from 1.
    public let column: Int

    /// `file:line:column`.
    public var description: String { "\(file):\(line):\(column)" }
}
