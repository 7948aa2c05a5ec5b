import Foundation
import StuntDouble
import Testing

@testable import StuntDoubleOpenAPI

/// `PatternSampler` alone: strings drawn for a `pattern` match it, the same seed draws the same string, and
/// patterns that would write without end are given up.
@Suite struct PatternSamplerTests {
    /// Whether the whole of `text` matches `pattern`.
    static func matches(_ pattern: String, _ text: String) throws -> Bool {
        let expression = try NSRegularExpression(pattern: "^(?:\(pattern))$")
        return expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    @Test(arguments: [
        "abc", "^[A-Z]{3}-\\d{4}$", "[a-z0-9_]+", "\\w{2,5}", "a|bc|def", "(ab|cd)*x", "colou?r", "[^,]{1,3}",
        "\\d+\\.\\d{2}", "(\\+|-)?[0-9]{1,3}", "[A-Fa-f0-9]{8}-[A-Fa-f0-9]{4}", "\\s?x", "a{3}", "a{2,}",
        "[.]", "\\.", "\\(x\\)", "((a|b)(c|d)){2}", "^$", "[\\-a]", "é+", "[😀-😂]",
    ])
    func everyDrawMatchesItsPattern(pattern: String) throws {
        for seed in UInt64(1)...40 {
            var sampler = PatternSampler(pattern: pattern, random: SeededGenerator(seed: seed))
            let sample = sampler.sample()
            let drawn = try #require(sample, "seed \(seed) drew nothing")
            #expect(try Self.matches(pattern, drawn), "seed \(seed) drew \(drawn.debugDescription)")
        }
    }

    @Test func theSameSeedDrawsTheSameString() {
        let draws = (0..<3).map { _ in
            var sampler = PatternSampler(pattern: "[a-z]{5,10}\\d{3}", random: SeededGenerator(seed: 42))
            return sampler.sample()
        }
        #expect(Set(draws).count == 1 && draws[0] != nil)
        var other = PatternSampler(pattern: "[a-z]{5,10}\\d{3}", random: SeededGenerator(seed: 43))
        #expect(other.sample() != draws[0], "another seed, most likely another string")
    }

    @Test(arguments: ["(((a){10000}){10000}){10000}", "((((((((((((((((((a))))))))))))))))))", "(a", "[abc", "a{3"])
    func endlessOrBrokenPatternsAreGivenUp(pattern: String) throws {
        var sampler = PatternSampler(pattern: pattern, random: SeededGenerator(seed: 7))
        let drawn = sampler.sample()
        // Given up (nil), or a string that fits: never a hang, nor a string of a trillion letters.
        if let drawn {
            #expect(drawn.count <= 100_000)
            if (try? NSRegularExpression(pattern: pattern)) != nil {
                #expect(try Self.matches(pattern, drawn), "\(drawn.prefix(40))")
            }
        }
    }
}
