import Testing

@testable import StuntDouble

/// The text helpers every near-miss report runs on each unmatched request: an edit-distance similarity and
/// line indentation, written for speed, checked here against their plain definitions.
@Suite struct ReportTextTests {
    /// The Levenshtein distance by its textbook definition, over whole strings.
    private func referenceDistance(_ lhs: String, _ rhs: String) -> Int {
        let left = Array(lhs.utf8)
        let right = Array(rhs.utf8)
        var row = Array(0...right.count)
        for (i, leftByte) in left.enumerated() {
            var next = [i + 1]
            for (j, rightByte) in right.enumerated() {
                next.append(min(row[j + 1] + 1, next[j] + 1, row[j] + (leftByte == rightByte ? 0 : 1)))
            }
            row = next
        }
        return row[right.count]
    }

    @Test(arguments: [
        ("", ""), ("", "abc"), ("abc", ""), ("same", "same"), ("/items/9999", "/orders/42"),
        ("kitten", "sitting"), ("/a/b/c", "/a/x/c"), ("prefix-shared", "prefix-other"), ("aaaa", "aa"),
        ("tail", "a tail"), ("ünïcödé", "unicode"),
    ])
    func similarityIsOneMinusTheEditDistanceOverTheLongerLength(pair: (String, String)) {
        let (left, right) = pair
        let longest = max(left.utf8.count, right.utf8.count)
        let expected = longest == 0 ? 1 : 1 - Double(referenceDistance(left, right)) / Double(longest)
        #expect(abs(Similarity.of(left, right) - expected) < 1e-12)
        #expect(abs(Similarity.of(right, left) - expected) < 1e-12)
    }

    @Test func similarityComparesOnlyTheFirst200Bytes() {
        let long = String(repeating: "a", count: 200)
        #expect(Similarity.of(long + "xyz", long + "123") == 1)
        #expect(Similarity.of(long, String(repeating: "b", count: 200)) == 0)
    }

    @Test(arguments: [
        ("one line", "one line"), ("a\nb", "a\n  b"), ("a\n", "a\n  "), ("\n\n", "\n  \n  "),
        ("first\nsecond\nthird", "first\n  second\n  third"), ("é\nü", "é\n  ü"),
    ])
    func indentingInsertsThePrefixAfterEveryLineBreak(pair: (String, String)) {
        #expect(pair.0.indentingLines(with: "  ") == pair.1)
        #expect(pair.0.indentingLines(with: "") == pair.0)
    }
}
