import Foundation

/// A stub: the matchers a request must satisfy (all of them) and the response for each HTTP method.
///
/// ```swift
/// let stub = try HTTPStubRequest()
///     .match(urlRegex: "http://www.google.com/+")
///     .stub(for: .post, delay: 5, json: jsonData)
///     .stub(for: .put, error: internalError)
/// HTTPStubber.shared.add(stub: stub)
/// ```
///
/// A stub is an object: changes made after it was added (a new matcher, a new response) take effect at
/// once in every stubber that holds it. It matches a request when every matcher matches and it has a
/// response for the request's method. A stub without matchers matches every URL.
public final class HTTPStubRequest: HTTPMatcherSource, Sendable, CustomStringConvertible {
    /// The source file (`#fileID`) where the stub was created, shown in reports.
    public let fileID: String
    /// The line where the stub was created, shown in reports.
    public let line: Int
    let id = UniqueID.next()
    let state: Locked<State>
    /// The `id` of the stub-file mapping the stub was made from, or `nil` for a stub made in code. A stub
    /// server sends it as `Matched-Stub-Id`.
    package let mappingID: UUID?
    /// ``mappingID`` as a header value (lower-case), made once: `uuidString` formats with `printf`.
    package let mappingIDText: String?
    /// What modules built on the engine attach to the stub (a stub file's webhooks, which a stub server sends).
    package let attachments: StubAttachments

    struct State: Sendable {
        var definition = StubDefinition()
        var version: UInt64 = 0
        var owners: [WeakStubber] = []
    }

    struct WeakStubber: Sendable {
        weak var stubber: HTTPStubber?
    }

    /// Creates a stub with no matchers and no responses.
    /// - Parameters:
    ///   - name: A name for reports and listings, such as `"login succeeds"`.
    ///   - priority: The stub's priority: among matching stubs the highest priority wins, then the most
    ///     recently added.
    ///   - fileID: The file that creates the stub; leave the default.
    ///   - line: The line that creates the stub; leave the default.
    public convenience init(name: String? = nil, priority: Int = 0, fileID: String = #fileID, line: Int = #line) {
        self.init(name: name, priority: priority, fileID: fileID, line: line, mappingID: nil)
    }

    /// Creates a stub, optionally for a stub-file mapping, with what other modules attach to it.
    package init(
        name: String?, priority: Int, fileID: String, line: Int, mappingID: UUID?,
        attachments: StubAttachments = StubAttachments()
    ) {
        self.fileID = fileID
        self.line = line
        self.mappingID = mappingID
        self.attachments = attachments
        mappingIDText = mappingID?.uuidString.lowercased()
        var definition = StubDefinition()
        definition.name = name
        definition.priority = priority
        state = Locked(State(definition: definition))
    }

    /// The stub's name, or `nil`.
    public var name: String? {
        get { state.withLock { $0.definition.name } }
        set { update { $0.name = newValue } }
    }

    /// The stub's priority (0 by default): among matching stubs the highest priority wins, then the most
    /// recently added.
    public var priority: Int {
        get { state.withLock { $0.definition.priority } }
        set { update { $0.priority = newValue } }
    }

    /// Sets the priority.
    /// - Parameter priority: The priority; higher wins.
    /// - Returns: The stub, to chain calls.
    @discardableResult
    public func priority(_ priority: Int) -> Self {
        update { $0.priority = priority }
        return self
    }

    /// The matchers, all of which must match, in the order they were added.
    public var matchers: [any HTTPStubMatcherProtocol] {
        state.withLock { $0.definition.matchers }
    }

    /// The methods that have a response, sorted by name.
    public var stubbedMethods: [HTTPMethod] {
        state.withLock { $0.definition.responses.keys.sorted { $0.rawValue < $1.rawValue } }
    }

    /// Adds a matcher.
    /// - Parameter matcher: The matcher.
    /// - Returns: The stub, to chain calls.
    @discardableResult
    public func match(_ matcher: any HTTPStubMatcherProtocol) -> Self {
        update { $0.append(matcher) }
        return self
    }

    /// Why the stub can never match: matchers built from bad input (an invalid URI template, a URL that is
    /// not a URL, JSON that does not parse ...). Empty for a usable stub.
    public var problems: [HTTPStubberError] {
        state.withLock { $0.definition.problems }
    }

    /// Throws the first of ``problems``, if any.
    /// - Throws: The first problem.
    public func validate() throws(HTTPStubberError) {
        if let problem = problems.first {
            throw problem
        }
    }

    /// The stub's name or, failing that, where it was created: `stub "login" (MyTests/LoginTests.swift:12)`.
    public var description: String {
        let location = "\(fileID):\(line)"
        if let name { return "stub \"\(name)\" (\(location))" }
        return "stub at \(location)"
    }

    // MARK: - Registration

    /// Applies a change and tells every stubber that holds the stub.
    package func update(_ change: (inout StubDefinition) -> Void) {
        let owners = state.withLock { state -> [HTTPStubber] in
            change(&state.definition)
            state.version += 1
            state.owners.removeAll { $0.stubber == nil }
            return state.owners.compactMap(\.stubber)
        }
        for owner in owners {
            owner.stubDidChange(self)
        }
    }

    /// Records a stubber that holds the stub, and returns the definition it must index.
    func attach(to stubber: HTTPStubber) -> (definition: StubDefinition, version: UInt64) {
        state.withLock { state in
            state.owners.removeAll { $0.stubber == nil }
            if !state.owners.contains(where: { $0.stubber === stubber }) {
                state.owners.append(WeakStubber(stubber: stubber))
            }
            return (state.definition, state.version)
        }
    }

    func detach(from stubber: HTTPStubber) {
        state.withLock { state in
            state.owners.removeAll { $0.stubber == nil || $0.stubber === stubber }
        }
    }

    /// Gives the stub everything another stub says (matchers, responses, name, priority, limits, scenario
    /// rules), keeping its own identity, place and mapping id: how the admin API edits a mapping in place.
    package func adopt(_ other: HTTPStubRequest) {
        let definition = other.snapshot().definition
        update { $0 = definition }
    }

    func snapshot() -> (definition: StubDefinition, version: UInt64) {
        state.withLock { ($0.definition, $0.version) }
    }
}
