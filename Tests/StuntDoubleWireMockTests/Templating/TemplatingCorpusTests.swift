import Foundation
import TestSupport
import Testing

@testable import StuntDouble
@testable import StuntDoubleWireMock

/// The templating corpus (`Scripts/templating-corpus`: hundreds of templated stubs, one request each) rendered in
/// process, each answer held to what WireMock 2.35.1's jar answered (recorded by `Scripts/compare-templating
/// --record`, which CI also runs against the live jar), or to the deliberate difference listed for it.
@Suite struct TemplatingCorpusTests {
    struct Corpus: Decodable, Sendable {
        let files: [String: String]
        let cases: [Case]
    }

    struct Case: Decodable, Sendable, CustomTestStringConvertible {
        let name: String
        let method: String
        let url: String
        let headers: [String: String]
        let body: String?
        let pattern: String?
        let headersCompared: [String]
        /// Whether the stub proxies (to the script's upstream, which this test does not have).
        let proxy: Bool
        let expected: [String: JSONAny]
        var testDescription: String { name }
    }

    /// Any JSON.
    indirect enum JSONAny: Decodable, Sendable {
        case null, bool(Bool), int(Int), double(Double), string(String), array([JSONAny]), object([String: JSONAny])

        init(from decoder: Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .null
            } else if let flag = try? container.decode(Bool.self) {
                self = .bool(flag)
            } else if let number = try? container.decode(Int.self) {
                self = .int(number)
            } else if let number = try? container.decode(Double.self) {
                self = .double(number)
            } else if let text = try? container.decode(String.self) {
                self = .string(text)
            } else if let items = try? container.decode([JSONAny].self) {
                self = .array(items)
            } else {
                self = .object(try container.decode([String: JSONAny].self))
            }
        }

        /// The value as JSONSerialization takes it.
        var value: Any {
            switch self {
            case .null: NSNull()
            case .bool(let flag): flag
            case .int(let number): number
            case .double(let number): number
            case .string(let text): text
            case .array(let items): items.map(\.value)
            case .object(let members): members.mapValues(\.value)
            }
        }
    }

    static let fixtureURL = Bundle.module.url(
        forResource: "templating-corpus", withExtension: "json", subdirectory: "Fixtures")

    static let corpus: Corpus = {
        guard let url = fixtureURL, let data = try? Data(contentsOf: url),
            let corpus = try? JSONDecoder().decode(Corpus.self, from: data)
        else {
            fatalError(
                "Fixtures/templating-corpus.json is missing or unreadable: run Scripts/compare-templating --record")
        }
        return corpus
    }()

    /// The corpus's stubs, loaded once (as `stuntdouble serve` would load them).
    static let stubber: HTTPStubber = {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("corpus-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent("__files"), withIntermediateDirectories: true)
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent("mappings"), withIntermediateDirectories: true)
            // The mappings as written (members in their order, which a templated jsonBody keeps); the proxied
            // cases' upstream is the script's: here they are loaded, and left out of the test.
            let fixture = try JSONNode.parse(Array(Data(contentsOf: fixtureURL ?? root)))
            let mappings = fixture["mappings"]?.rendered() ?? "[]"
            let text = #"{"mappings": \#(mappings)}"#.replacingOccurrences(of: "{upstream}", with: "http://127.0.0.1:9")
            try Data(text.utf8).write(to: root.appendingPathComponent("mappings/corpus.json"))
            for (name, text) in corpus.files {
                try Data(text.utf8).write(to: root.appendingPathComponent("__files/\(name)"))
            }
            let stubber = HTTPStubber()
            try stubber.load(
                stubFilesAt: root, unsupportedFeatures: .answerWithError, templating: .init(escapesHTML: true))
            return stubber
        } catch {
            fatalError("the corpus loads: \(error)")
        }
    }()

    @Test func theCorpusIsLarge() {
        #expect(Self.corpus.cases.count >= 400)
    }

    @Test(arguments: corpus.cases.filter { !$0.proxy })
    func answersAsWireMockDoes(_ testCase: Case) throws {
        let plan = try #require(
            Self.stubber.plan(
                testCase.method, "http://127.0.0.1:8080" + testCase.url, headers: testCase.headers,
                body: testCase.body.map { Data($0.utf8) }))
        let response = try #require(plan.response)
        let status = testCase.expected["status"]?.value as? Int
        #expect(response.statusCode.rawValue == status, "\(String(decoding: plan.body, as: UTF8.self))")
        guard let expectedBody = testCase.expected["body"]?.value as? String else { return }
        var body = String(decoding: plan.body, as: UTF8.self)
        body = body.replacingOccurrences(of: #"\[ERROR: .*?\]"#, with: "[ERROR]", options: .regularExpression)
        if let pattern = testCase.pattern {
            let whole = try NSRegularExpression(pattern: "^(?:\(pattern))$", options: .dotMatchesLineSeparators)
            if whole.firstMatch(in: body, range: NSRange(body.startIndex..., in: body)) != nil { body = "(matches)" }
        }
        #expect(body == expectedBody)
        for name in testCase.headersCompared {
            let expected = testCase.expected[name]?.value as? [Any]
            #expect(
                response.headers.values(for: HTTPHeaders.Name(rawValue: name)) == (expected as? [String] ?? []),
                "header \(name)")
        }
    }
}
