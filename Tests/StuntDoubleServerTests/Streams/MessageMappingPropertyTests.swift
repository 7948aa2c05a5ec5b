import Foundation
import NIOCore
import StuntDouble
import StuntDoubleServer
import Testing

/// Generated message mappings, added through the admin API, and generated messages on several channels: each
/// answer is the one WireMock 4's rule picks (of the mappings whose channel and body patterns match, the highest
/// priority, 1 the highest and 5 when none is given, then the newest), worked out here by a model of that rule
/// written from its documentation, not from the engine.
@Suite struct MessageMappingPropertyTests {
    /// SplitMix64: the same cases on every run.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    struct Mapping {
        let priority: Int?
        let room: Int?
        let body: (json: String, test: (String) -> Bool)?
        let answer: String

        var json: String {
            var trigger: [String] = []
            if let room { trigger.append(#""channel": {"initiatingRequestPattern": {"urlPath": "/r/\#(room)"}}"#) }
            if let body { trigger.append(#""message": {"body": \#(body.json)}"#) }
            let priority = priority.map { #""priority": \#($0), "# } ?? ""
            return #"{\#(priority)"trigger": {\#(trigger.joined(separator: ", "))}, "#
                + #""actions": [{"type": "send", "message": {"body": "\#(answer)"}}]}"#
        }
    }

    static let words = ["ab", "abc", "ba", "cab", "cc", "a", "b", "bca"]

    static func mapping(_ index: Int, _ random: inout Generator) -> Mapping {
        let word = words.randomElement(using: &random)!
        let letter = ["a", "b", "c"].randomElement(using: &random)!
        let bodies: [(json: String, test: (String) -> Bool)?] = [
            nil, (#"{"equalTo": "\#(word)"}"#, { $0 == word }),
            (#"{"contains": "\#(letter)"}"#, { $0.contains(letter) }),
            (#"{"matches": "\#(letter).*"}"#, { $0.hasPrefix(letter) }),
            (#"{"doesNotContain": "\#(letter)"}"#, { !$0.contains(letter) }),
        ]
        return Mapping(
            priority: Bool.random(using: &random) ? nil : Int.random(in: 1...6, using: &random),
            room: Bool.random(using: &random) ? nil : Int.random(in: 0...2, using: &random),
            body: bodies.randomElement(using: &random)!, answer: "m\(index)")
    }

    /// WireMock 4's choice: matching mappings by priority (1 first, none as 5), then the newest.
    static func expectedAnswer(_ mappings: [Mapping], room: Int, message: String) -> String {
        let matching = mappings.enumerated().filter { _, mapping in
            (mapping.room == nil || mapping.room == room) && (mapping.body?.test(message) ?? true)
        }
        let chosen = matching.min { left, right in
            let (l, r) = (left.element.priority ?? 5, right.element.priority ?? 5)
            return l != r ? l < r : left.offset > right.offset
        }
        return chosen?.element.answer ?? "none"
    }

    @Test(arguments: 1...6)
    func answersAreThoseWireMocksRuleChooses(seed: UInt64) async throws {
        var random = Generator(state: seed)
        let mappings = (0..<30).map { Self.mapping($0, &random) }
        try await withStubServer(stubber: HTTPStubber()) { baseURL in
            let catchAll = #"{"priority": 99, "actions": [{"type": "send", "message": {"body": "none"}}]}"#
            for json in [catchAll] + mappings.map(\.json) {
                let created = try await AdminAPITests.call(.POST, baseURL, "/__admin/message-mappings", body: json)
                #expect(created.status == 201, "\(json): \(created.text)")
            }
            var clients: [WebSocketTestClient] = []
            for room in 0...2 {
                clients.append(
                    try await WebSocketTestClient.connect(to: baseURL, path: "/r/\(room)?seed=\(seed)").client)
            }
            var expected: [[String]] = [[], [], []]
            for _ in 0..<75 {
                let room = Int.random(in: 0...2, using: &random)
                let message = Self.words.randomElement(using: &random)!
                try await clients[room].send(text: message)
                expected[room].append(
                    Self.expectedAnswer(
                        [Mapping(priority: 99, room: nil, body: nil, answer: "none")] + mappings,
                        room: room, message: message))
            }
            for room in 0...2 {
                let answers = try await clients[room].frames(count: expected[room].count).map(\.text)
                #expect(answers == expected[room], "room \(room), seed \(seed)")
                await clients[room].close()
            }
        }
    }
}
