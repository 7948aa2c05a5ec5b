import Foundation
import StuntDouble
import Testing

/// `JSONWriter`, the one writer of JSON text: what it writes parses back to the same value, compact or pretty, from
/// every tree that walks through it; checked on hundreds of generated documents, with Foundation's parser as a
/// second reader.
@Suite struct JSONWriterTests {
    /// JSON text drawn from a seed: nested arrays and objects (repeated keys too), numbers in every spelling,
    /// strings with quotes, backslashes, control characters and characters beyond the Basic Multilingual Plane,
    /// and whitespace where JSON allows it.
    struct Generator {
        var random: SeededGenerator

        mutating func draw(_ bound: Int) -> Int { Int(random.next() % UInt64(bound)) }

        mutating func space() -> String { ["", " ", "\n  ", "\t", "\r\n"][draw(5)] }

        mutating func value(depth: Int) -> String {
            switch draw(depth > 3 ? 4 : 6) {
            case 0: return ["null", "true", "false"][draw(3)]
            case 1: return number()
            case 2, 3: return string()
            case 4:
                let items = (0..<draw(5)).map { _ in space() + value(depth: depth + 1) + space() }
                return "[" + items.joined(separator: ",") + (items.isEmpty ? space() : "") + "]"
            default:
                // Keys from a small set, so that some repeat.
                let members = (0..<draw(5)).map { _ in
                    space() + (draw(3) == 0 ? #""k""# : string()) + space() + ":" + space() + value(depth: depth + 1)
                }
                return "{" + members.joined(separator: ",") + "}"
            }
        }

        mutating func number() -> String {
            let sign = draw(3) == 0 ? "-" : ""
            let integer = draw(4) == 0 ? "0" : String(1 + draw(999_999))
            let fraction = draw(2) == 0 ? "" : "." + String(draw(1000)) + String(repeating: "0", count: draw(3))
            let exponent = draw(3) == 0 ? ["e", "E", "e+", "e-"][draw(4)] + String(draw(300)) : ""
            return sign + integer + fraction + exponent
        }

        mutating func string() -> String {
            let pieces: [String] = [
                "a", "Z", " ", "é", "中", "😀", "\\\"", "\\\\", "\\/", "\\n", "\\t", "\\r", "\\b", "\\f", "\\u0000",
                "\\u001f", "\\u00e9", "\\ud83d\\ude00", "\\u2028", "'", "{", "]", ",", ":",
            ]
            return "\"" + (0..<draw(8)).map { _ in pieces[draw(pieces.count)] }.joined() + "\""
        }
    }

    static func parse(_ text: String) throws -> JSONNode {
        let parser = JSONParser(bytes: Array(text.utf8), options: .strict)
        let (node, trailing) = try parser.parseDocument()
        #expect(trailing == nil)
        return node
    }

    @Test(arguments: 0..<8)
    func whatIsWrittenParsesBackToTheSameValue(batch: Int) throws {
        for seed in UInt64(batch * 100)..<UInt64(batch * 100 + 100) {
            var generator = Generator(random: SeededGenerator(seed: seed))
            let text = generator.space() + generator.value(depth: 0) + generator.space()
            let node = try Self.parse(text)
            let value = JSONValue(node)
            for pretty in [false, true] {
                let written = node.rendered(pretty: pretty)
                let again = try Self.parse(written)
                #expect(JSONValue(again) == value, "seed \(seed): \(text) was written \(written)")
                #expect(again.rendered(pretty: pretty) == written, "seed \(seed): writing again changed it")
                // A second reader agrees that it is JSON.
                #expect(
                    (try? JSONSerialization.jsonObject(with: Data(written.utf8), options: [.fragmentsAllowed])) != nil,
                    "seed \(seed): Foundation cannot read \(written)")
            }
            #expect(JSONValue(try Self.parse(value.description)) == value, "seed \(seed): sorted-key text differs")
            #expect(
                JSONValue(try Self.parse(node.rendered(sortedKeys: true))) == value,
                "seed \(seed): sorted keys changed the value")
        }
    }

    @Test func layoutAndEscapes() throws {
        let node = try Self.parse(#"{"b": [1, {"c": []}, {}], "a": "q\"\\\n\u0001é😀", "b": 2.50}"#)
        #expect(
            node.rendered() == #"{"b":2.50,"a":"q\"\\\n\u0001é😀"}"#, "the last of repeated keys, where the first was")
        #expect(node.rendered(sortedKeys: true, numbers: .java) == #"{"a":"q\"\\\n\u0001é😀","b":2.5}"#)
        let nested = try Self.parse(#"{"a": [1, [], {"b": null}], "c": {}}"#)
        #expect(
            nested.rendered(pretty: true) == """
                {
                  "a": [
                    1,
                    [],
                    {
                      "b": null
                    }
                  ],
                  "c": {}
                }
                """)
        #expect(try Self.parse("[]").rendered(pretty: true) == "[]")
        #expect(try Self.parse(#""x""#).rendered(pretty: true) == #""x""#)
    }
}
