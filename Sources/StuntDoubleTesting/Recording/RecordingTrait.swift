import Foundation
import StuntDouble
import StuntDoubleWireMock
import Testing

/// A Swift Testing trait that gives each test its own `HTTPStubber` with a recording attached: the first run
/// records the test's real exchanges as stub files next to the test file, later runs replay them.
///
/// ```swift
/// @Suite(.recorded) struct GitHubTests {
///     @Test func listsRepositories() async throws {
///         let client = GitHubClient(session: HTTPStubber.current.session())
///         #expect(try await client.repositories(of: "mark").count > 0)
///     }
/// }
/// ```
///
/// The files go to `__Recordings__/<suite>/<test>/` beside the test's source file (`mappings/`, `__files/`),
/// unless a folder is given. `STUNTDOUBLE_RECORD_MODE=record swift test` records every test again. When the
/// test ends, what it recorded is saved (a failure to save, such as a request that failed on the network, is an
/// issue), and requests that neither a stub nor the recording answered are recorded as issues.
public struct RecordingTrait: TestTrait, SuiteTrait, TestScoping {
    /// The mode, unless `STUNTDOUBLE_RECORD_MODE` says otherwise.
    public let mode: HTTPRecording.Mode
    /// Redaction and replay matching.
    public let options: HTTPRecording.Options
    /// The folder that holds each test's recording, or `nil` for `__Recordings__` beside the test file.
    public let directory: URL?

    /// On a suite, its tests inherit the trait.
    public var isRecursive: Bool { true }

    /// Each test case.
    /// - Parameters:
    ///   - test: The test or suite.
    ///   - testCase: The test case.
    /// - Returns: The trait for test cases, `nil` otherwise.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> RecordingTrait? {
        test.isSuite || testCase == nil ? nil : self
    }

    /// Runs the test with a new stubber, current while it runs, with the test's recording attached; then saves
    /// the recording and records unmatched requests as issues.
    /// - Parameters:
    ///   - test: The test.
    ///   - testCase: The test case.
    ///   - function: The test.
    /// - Throws: What the test throws, or the recording's error when it cannot be attached.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let stubber = HTTPStubber()
        let recording = try stubber.record(
            to: Self.folder(for: test, testCase: testCase, in: directory), mode: mode, options: options)
        var thrown: (any Error)?
        do {
            try await stubber.withCurrent { try await function() }
        } catch {
            thrown = error
        }
        do {
            try recording.save()
        } catch {
            Issue.record(Comment(rawValue: error.message), sourceLocation: test.sourceLocation)
        }
        for message in UnmatchedRequests.messages(of: stubber, scope: "test \(test.name)", excluding: thrown) {
            Issue.record(Comment(rawValue: message), sourceLocation: test.sourceLocation)
        }
        if let thrown { throw thrown }
    }

    /// `<directory or the test file's folder/__Recordings__>/<suite>/<test>`.
    static func folder(for test: Test, testCase: Test.Case?, in directory: URL?) -> URL {
        let base =
            directory
            ?? URL(fileURLWithPath: test.sourceLocation.filePath).deletingLastPathComponent()
            .appendingPathComponent("__Recordings__")
        // The suites around the test (the ID's name components but the last), else the file's name.
        let components = test.id.nameComponents
        let suites = components.dropLast().map(Self.folderName)
        var folder = base
        if suites.isEmpty {
            folder.appendPathComponent(
                Self.folderName(test.sourceLocation.fileName.replacingOccurrences(of: ".swift", with: "")))
        }
        for suite in suites { folder.appendPathComponent(suite) }
        // "list(user:)" → "list"; a parameterized test's case adds its arguments: "list-mark".
        var name = Self.folderName(String(test.name.prefix { $0 != "(" }))
        if let testCase, testCase.isParameterized {
            name += "-" + Self.folderName(Self.caseName(testCase))
        }
        return folder.appendingPathComponent(name)
    }

    /// The arguments of a parameterized test's case: Swift Testing's stable argument IDs (the arguments'
    /// encoded form, `1`, `"mark"`), read from the case's reflection, since it has no public API for them.
    static func caseName(_ testCase: Test.Case) -> String {
        let text = String(describing: testCase)
        var names: [String] = []
        var rest = Substring(text)
        while let start = rest.range(of: "ID(bytes: [") {
            rest = rest[start.upperBound...]
            guard let end = rest.firstIndex(of: "]") else { break }
            let bytes = rest[..<end].split(separator: ",").compactMap {
                UInt8($0.trimmingCharacters(in: .whitespaces))
            }
            names.append(String(decoding: bytes, as: UTF8.self))
            rest = rest[end...]
        }
        return names.isEmpty ? "case" : names.joined(separator: "-")
    }

    /// A name that is safe as a folder: letters, digits, `-`, `_` and `.`.
    static func folderName(_ text: String) -> String {
        var name = ""
        for scalar in text.unicodeScalars {
            if scalar.isASCII, CharacterSet.alphanumerics.contains(scalar) || "-_.".unicodeScalars.contains(scalar) {
                name.unicodeScalars.append(scalar)
            } else if !name.hasSuffix("_") {
                name += "_"
            }
        }
        while name.hasSuffix("_") { name.removeLast() }
        while name.hasPrefix("_") { name.removeFirst() }
        return String(name.prefix(100))
    }
}

extension Trait where Self == RecordingTrait {
    /// Each test records its real exchanges once and replays them afterwards (`HTTPRecording.Mode.once`),
    /// in `__Recordings__` beside the test file.
    public static var recorded: RecordingTrait {
        RecordingTrait(mode: .once, options: HTTPRecording.Options(), directory: nil)
    }

    /// Each test records its real exchanges, or replays them, as the mode says.
    /// - Parameters:
    ///   - mode: The mode, unless `STUNTDOUBLE_RECORD_MODE` says otherwise.
    ///   - options: Redaction and replay matching.
    ///   - directory: The folder for the tests' recordings (a folder per suite and test inside), or `nil` for
    ///     `__Recordings__` beside the test file.
    /// - Returns: The trait.
    public static func recorded(
        _ mode: HTTPRecording.Mode = .once, options: HTTPRecording.Options = HTTPRecording.Options(),
        directory: URL? = nil
    ) -> RecordingTrait {
        RecordingTrait(mode: mode, options: options, directory: directory)
    }
}
