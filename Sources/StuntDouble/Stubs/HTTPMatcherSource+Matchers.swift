import Foundation

extension HTTPMatcherSource {
    /// Matches URLs that contain a match of a regular expression.
    ///
    /// ```swift
    /// try HTTPStubRequest().match(urlRegex: "http://www.google.com/+")
    /// ```
    /// - Parameters:
    ///   - pattern: The regular expression (ICU syntax, searched anywhere in the URL); `"*"` alone means any URL.
    ///   - options: Regular expression options.
    /// - Returns: The source, to chain calls.
    /// - Throws: ``HTTPStubberError`` with code ``HTTPStubberError/Code/invalidRegularExpression`` naming the
    ///   pattern.
    @discardableResult
    public func match(urlRegex pattern: String, options: NSRegularExpression.Options = []) throws(HTTPStubberError)
        -> Self
    {
        match(try HTTPStubRegExMatcher(regex: pattern, options: options))
    }

    // The seed API spells these labels `URI:` and `URL:`.
    // swift-format-ignore: AlwaysUseLowerCamelCase
    /// Matches URLs against a URI template (RFC 6570) whose variables dynamic responses can read.
    ///
    /// ```swift
    /// HTTPStubRequest().match(URI: "https://github.com/kylef/{repository}")
    /// ```
    /// - Parameter template: The template: `https://host/...` (whole URL), `/...` (path on any host).
    /// - Returns: The source, to chain calls.
    @discardableResult
    public func match(URI template: String) -> Self {
        match(HTTPStubURITemplateMatcher(URI: template))
    }

    /// Matches request bodies that are JSON equal to the encoding of a value (key order and whitespace do
    /// not matter).
    ///
    /// ```swift
    /// HTTPStubRequest().match(object: User(userID: 34, fullName: "Mark"))
    /// ```
    /// - Parameters:
    ///   - object: The value.
    ///   - encoder: The encoder, if your app uses custom strategies.
    /// - Returns: The source, to chain calls.
    @discardableResult
    public func match<Value: Encodable>(object: Value, encoder: JSONEncoder = JSONEncoder()) -> Self {
        match(HTTPStubJSONMatcher(object: object, encoder: encoder))
    }

    /// Matches request bodies that are JSON equal to the given JSON text.
    /// - Parameter json: The JSON text.
    /// - Returns: The source, to chain calls.
    @discardableResult
    public func match(json: String) -> Self {
        match(HTTPStubJSONMatcher(json: json))
    }

    /// Matches request bodies equal to the given bytes.
    /// - Parameter body: The bytes.
    /// - Returns: The source, to chain calls.
    @discardableResult
    public func match(body: Data) -> Self {
        match(HTTPStubBodyMatcher(body: body))
    }

    /// Matches request bodies equal to the given UTF-8 text.
    /// - Parameter body: The text.
    /// - Returns: The source, to chain calls.
    @discardableResult
    public func match(body: String) -> Self {
        match(HTTPStubBodyMatcher(body: body))
    }

    // The seed API spells these labels `URI:` and `URL:`.
    // swift-format-ignore: AlwaysUseLowerCamelCase
    /// Matches one URL, optionally ignoring parts of it.
    ///
    /// ```swift
    /// HTTPStubRequest().match(URL: "http://myws.com/login", options: .ignoreQueryParameters)
    /// ```
    /// - Parameters:
    ///   - url: An absolute URL, or a path starting with `/` (any host).
    ///   - options: The parts to ignore.
    /// - Returns: The source, to chain calls.
    @discardableResult
    public func match(URL url: String, options: HTTPStubURLMatcher.Options = []) -> Self {
        match(HTTPStubURLMatcher(URL: url, options: options))
    }

    // The seed API spells these labels `URI:` and `URL:`.
    // swift-format-ignore: AlwaysUseLowerCamelCase
    /// Matches one URL, optionally ignoring parts of it.
    /// - Parameters:
    ///   - url: An absolute URL.
    ///   - options: The parts to ignore.
    /// - Returns: The source, to chain calls.
    @discardableResult
    public func match(URL url: URL, options: HTTPStubURLMatcher.Options = []) -> Self {
        match(HTTPStubURLMatcher(URL: url, options: options))
    }

    /// Matches requests a closure accepts.
    ///
    /// ```swift
    /// HTTPStubRequest().match({ request, source in request.headers[.userAgent] == "customAgent" })
    /// ```
    /// - Parameter handler: Returns `true` for a matching request.
    /// - Returns: The source, to chain calls.
    @discardableResult
    public func match(_ handler: @escaping HTTPStubCustomMatcher.Handler) -> Self {
        match(HTTPStubCustomMatcher(handler))
    }

    /// Matches requests that have a header field, with the given value or any value.
    /// - Parameters:
    ///   - name: The field's name (any case).
    ///   - value: The expected value, or `nil` for any.
    /// - Returns: The source, to chain calls.
    @discardableResult
    public func match(header name: HTTPHeaders.Name, value: String? = nil) -> Self {
        match(HTTPStubHeaderMatcher(name: name, value: value))
    }

    /// Matches requests whose query has a parameter, with the given value or any value.
    /// - Parameters:
    ///   - name: The parameter's name.
    ///   - value: The expected (percent-decoded) value, or `nil` for any.
    /// - Returns: The source, to chain calls.
    @discardableResult
    public func match(queryItem name: String, value: String? = nil) -> Self {
        match(HTTPStubQueryItemMatcher(name: name, value: value))
    }
}
