/// An ordered list of HTTP header fields whose names compare case-insensitively.
///
/// Create headers from a dictionary literal, with string or ``Name`` keys:
///
/// ```swift
/// var headers: HTTPHeaders = ["Content-Length": "42"]
/// headers[.contentType] = HTTPContentType.json.rawValue
/// headers["content-type"]  // "application/json"
/// ```
///
/// A name may appear more than once (`Set-Cookie`); the subscript reads the first value and
/// ``values(for:)`` reads them all.
public struct HTTPHeaders: Hashable, Sendable, ExpressibleByDictionaryLiteral, Sequence, CustomStringConvertible {
    /// A header field name. Two names are equal when they are equal ignoring ASCII case (and only ASCII case).
    public struct Name: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
        /// The name as it was written.
        public let rawValue: String
        /// The lower-cased name, used for comparison and hashing.
        let canonical: String

        /// Creates a name.
        /// - Parameter rawValue: The name as it should be written, such as `"Content-Type"`.
        public init(rawValue: String) {
            self.rawValue = rawValue
            self.canonical = Self.usualCanonical(rawValue) ?? rawValue.asciiLowercased
        }

        /// The lower-cased form of a name that most requests carry, spelled as clients spell it, as a literal:
        /// comparing two short strings costs less than making one (150 instructions), on every field of every
        /// request the stub server reads. `nil` for any other name.
        private static func usualCanonical(_ name: String) -> String? {
            switch name.utf8.count {
            case 4: name == "Host" ? "host" : nil
            case 6: name == "Accept" ? "accept" : name == "Cookie" ? "cookie" : nil
            case 10: name == "User-Agent" ? "user-agent" : name == "Connection" ? "connection" : nil
            case 12: name == "Content-Type" ? "content-type" : nil
            case 13: name == "Authorization" ? "authorization" : nil
            case 14: name == "Content-Length" ? "content-length" : nil
            case 15: name == "Accept-Encoding" ? "accept-encoding" : nil
            default: nil
            }
        }

        /// Creates a name from a string literal.
        /// - Parameter value: The name.
        public init(stringLiteral value: String) {
            self.init(rawValue: value)
        }

        /// The name as it was written.
        public var description: String { rawValue }

        /// Compares two names ignoring case.
        /// - Parameters:
        ///   - lhs: A name.
        ///   - rhs: Another name.
        /// - Returns: Whether the names are equal ignoring case.
        public static func == (lhs: Name, rhs: Name) -> Bool {
            lhs.canonical == rhs.canonical
        }

        /// Hashes the lower-cased name.
        /// - Parameter hasher: The hasher.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(canonical)
        }

        /// `Accept`.
        public static let accept: Name = "Accept"
        /// `Accept-Encoding`.
        public static let acceptEncoding: Name = "Accept-Encoding"
        /// `Accept-Language`.
        public static let acceptLanguage: Name = "Accept-Language"
        /// `Authorization`.
        public static let authorization: Name = "Authorization"
        /// `Cache-Control`.
        public static let cacheControl: Name = "Cache-Control"
        /// `Connection`.
        public static let connection: Name = "Connection"
        /// `Content-Disposition`.
        public static let contentDisposition: Name = "Content-Disposition"
        /// `Content-Encoding`.
        public static let contentEncoding: Name = "Content-Encoding"
        /// `Content-Length`.
        public static let contentLength: Name = "Content-Length"
        /// `Content-Range`.
        public static let contentRange: Name = "Content-Range"
        /// `Content-Type`.
        public static let contentType: Name = "Content-Type"
        /// `Cookie`.
        public static let cookie: Name = "Cookie"
        /// `Date`.
        public static let date: Name = "Date"
        /// `ETag`.
        public static let eTag: Name = "ETag"
        /// `Expires`.
        public static let expires: Name = "Expires"
        /// `Host`.
        public static let host: Name = "Host"
        /// `If-Match`.
        public static let ifMatch: Name = "If-Match"
        /// `If-Modified-Since`.
        public static let ifModifiedSince: Name = "If-Modified-Since"
        /// `If-None-Match`.
        public static let ifNoneMatch: Name = "If-None-Match"
        /// `Last-Modified`.
        public static let lastModified: Name = "Last-Modified"
        /// `Location`.
        public static let location: Name = "Location"
        /// `Origin`.
        public static let origin: Name = "Origin"
        /// `Range`.
        public static let range: Name = "Range"
        /// `Referer`.
        public static let referer: Name = "Referer"
        /// `Retry-After`.
        public static let retryAfter: Name = "Retry-After"
        /// `Set-Cookie`.
        public static let setCookie: Name = "Set-Cookie"
        /// `Transfer-Encoding`.
        public static let transferEncoding: Name = "Transfer-Encoding"
        /// `User-Agent`.
        public static let userAgent: Name = "User-Agent"
        /// `WWW-Authenticate`.
        public static let wwwAuthenticate: Name = "WWW-Authenticate"
    }

    /// One header field: a name and its value.
    public struct Element: Hashable, Sendable {
        /// The field's name.
        public var name: Name
        /// The field's value.
        public var value: String

        /// Creates a field.
        /// - Parameters:
        ///   - name: The field's name.
        ///   - value: The field's value.
        public init(name: Name, value: String) {
            self.name = name
            self.value = value
        }
    }

    private var fields: [Element]

    /// Creates empty headers.
    public init() {
        fields = []
    }

    /// Creates headers from a dictionary; fields are ordered by name, since a dictionary has no order.
    /// - Parameter dictionary: The fields.
    public init(_ dictionary: [Name: String]) {
        fields = dictionary.map { Element(name: $0.key, value: $0.value) }
            .sorted { $0.name.canonical < $1.name.canonical }
    }

    /// Creates headers from string pairs, as `URLRequest.allHTTPHeaderFields` and
    /// `HTTPURLResponse.allHeaderFields` give them; fields are ordered by name.
    /// - Parameter dictionary: The fields.
    public init(_ dictionary: [String: String]) {
        guard !dictionary.isEmpty else {
            fields = []
            return
        }
        fields = dictionary.map { Element(name: Name(rawValue: $0.key), value: $0.value) }
            .sorted { $0.name.canonical < $1.name.canonical }
    }

    /// Creates headers from fields, keeping their order and any repeated names.
    /// - Parameter elements: The fields.
    public init(_ elements: some Sequence<Element>) {
        fields = Array(elements)
    }

    /// Creates headers from a dictionary literal, keeping the literal's order.
    /// - Parameter elements: The fields.
    public init(dictionaryLiteral elements: (Name, String)...) {
        fields = elements.map { Element(name: $0.0, value: $0.1) }
    }

    /// The first value of the named field, or `nil`. Setting a value replaces every field of that name;
    /// setting `nil` removes them.
    /// - Parameter name: The field's name, in any case.
    public subscript(name: Name) -> String? {
        get { fields.first { $0.name == name }?.value }
        set {
            guard let newValue else {
                remove(name)
                return
            }
            guard let first = fields.firstIndex(where: { $0.name == name }) else {
                fields.append(Element(name: name, value: newValue))
                return
            }
            fields[first].value = newValue
            if fields[(first + 1)...].contains(where: { $0.name == name }) {
                fields = fields.enumerated().filter { $0.offset <= first || $0.element.name != name }.map(\.element)
            }
        }
    }

    /// Every value of the named field, in order.
    /// - Parameter name: The field's name, in any case.
    /// - Returns: The values; empty when the field is absent.
    public func values(for name: Name) -> [String] {
        fields.filter { $0.name == name }.map(\.value)
    }

    /// Whether a field of that name is present.
    /// - Parameter name: The field's name, in any case.
    /// - Returns: `true` when present.
    public func contains(_ name: Name) -> Bool {
        fields.contains { $0.name == name }
    }

    /// Appends a field, keeping any existing fields of the same name.
    /// - Parameters:
    ///   - name: The field's name.
    ///   - value: The field's value.
    public mutating func add(name: Name, value: String) {
        fields.append(Element(name: name, value: value))
    }

    /// Removes every field of that name.
    /// - Parameter name: The field's name, in any case.
    public mutating func remove(_ name: Name) {
        fields.removeAll { $0.name == name }
    }

    /// The number of fields.
    public var count: Int { fields.count }

    /// Whether there are no fields.
    public var isEmpty: Bool { fields.isEmpty }

    /// The fields as a dictionary for `HTTPURLResponse`; repeated names are joined with `", "`.
    public var dictionary: [String: String] {
        if !hasRepeatedNames {
            return Dictionary(uniqueKeysWithValues: fields.lazy.map { ($0.name.rawValue, $0.value) })
        }
        var result: [String: String] = [:]
        var spelling: [String: String] = [:]
        for field in fields {
            if let key = spelling[field.name.canonical] {
                result[key, default: ""] += ", " + field.value
            } else {
                spelling[field.name.canonical] = field.name.rawValue
                result[field.name.rawValue] = field.value
            }
        }
        return result
    }

    /// Whether a name appears twice; pairwise for the few fields of a usual message, with no allocation.
    private var hasRepeatedNames: Bool {
        guard fields.count > 1 else { return false }
        guard fields.count <= 16 else { return Set(fields.lazy.map(\.name)).count != fields.count }
        for index in fields.indices.dropLast() {
            let name = fields[index].name
            if fields[(index + 1)...].contains(where: { $0.name == name }) { return true }
        }
        return false
    }

    /// An iterator over the fields in order.
    public func makeIterator() -> IndexingIterator<[Element]> {
        fields.makeIterator()
    }

    /// The fields, one `Name: value` per line.
    public var description: String {
        fields.map { "\($0.name.rawValue): \($0.value)" }.joined(separator: "\n")
    }
}
