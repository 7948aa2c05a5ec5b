/// An HTTP request method, such as `GET` or `POST`.
///
/// Methods form an open set: any token is a method. The static members cover the methods of RFC 9110 and
/// `PATCH`. Method names are stored upper-cased, so `"get"` and `.get` are the same method.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The method's name, upper-cased.
    public let rawValue: String

    /// Creates a method from its name; the name is upper-cased.
    /// - Parameter rawValue: The method's name, such as `"GET"`.
    public init(rawValue: String) {
        let hasLowercase = rawValue.utf8.contains { $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") }
        self.rawValue = hasLowercase ? rawValue.uppercased() : rawValue
    }

    /// Creates a method from a string literal; the name is upper-cased.
    /// - Parameter value: The method's name.
    public init(stringLiteral value: String) {
        self.init(rawValue: value)
    }

    /// The method's name.
    public var description: String { rawValue }

    /// `GET`.
    public static let get = HTTPMethod(rawValue: "GET")
    /// `HEAD`.
    public static let head = HTTPMethod(rawValue: "HEAD")
    /// `POST`.
    public static let post = HTTPMethod(rawValue: "POST")
    /// `PUT`.
    public static let put = HTTPMethod(rawValue: "PUT")
    /// `PATCH`.
    public static let patch = HTTPMethod(rawValue: "PATCH")
    /// `DELETE`.
    public static let delete = HTTPMethod(rawValue: "DELETE")
    /// `OPTIONS`.
    public static let options = HTTPMethod(rawValue: "OPTIONS")
    /// `TRACE`.
    public static let trace = HTTPMethod(rawValue: "TRACE")
    /// `CONNECT`.
    public static let connect = HTTPMethod(rawValue: "CONNECT")
}
