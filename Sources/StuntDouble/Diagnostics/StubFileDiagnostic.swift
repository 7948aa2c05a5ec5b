/// A problem found in a stub file: where it is, which field, and why, in the form compilers use so that
/// editors and CI annotate the line:
///
/// ```text
/// mappings/users.json:7:9: warning: response.bodee: unknown field (WireMock 2.35.1 refuses the file; serving ignores it); did you mean "body"?
/// ```
///
/// An ``Severity/error`` means the file cannot be served as written (StuntDoubleWireMock's `HTTPStubber.load(stubFilesAt:)` throws,
/// `stuntdouble serve` does not start); a ``Severity/warning`` means it is served, but probably not as meant.
/// `stuntdouble check` fails on either.
public struct StubFileDiagnostic: Hashable, Sendable, CustomStringConvertible {
    /// How serious a problem is.
    public enum Severity: String, Hashable, Sendable {
        /// The file cannot be served as written.
        case error
        /// The file is served, but probably not as its author meant.
        case warning
    }

    /// How serious the problem is.
    public let severity: Severity
    /// The file, as its path was given (or the name given to text that came from elsewhere).
    public let file: String
    /// The line, from 1.
    public let line: Int
    /// The column, from 1, in UTF-8 bytes.
    public let column: Int
    /// The field, as a path from the mapping (`request.headers.Accept.equalTo`), or `nil` for the file itself.
    public let field: String?
    /// What is wrong and what to do.
    public let message: String

    /// Creates a diagnostic.
    /// - Parameters:
    ///   - severity: How serious it is.
    ///   - file: The file.
    ///   - line: The line, from 1.
    ///   - column: The column, from 1.
    ///   - field: The field's path, or `nil`.
    ///   - message: What is wrong and what to do.
    public init(severity: Severity, file: String, line: Int, column: Int, field: String?, message: String) {
        self.severity = severity
        self.file = file
        self.line = line
        self.column = column
        self.field = field
        self.message = message
    }

    /// `file:line:column: severity: field: message`.
    public var description: String {
        "\(file):\(line):\(column): \(severity.rawValue): " + (field.map { "\($0): " } ?? "") + message
    }
}
