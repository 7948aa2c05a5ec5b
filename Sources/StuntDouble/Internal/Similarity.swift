/// How alike two strings are, from 0 to 1, to rank near misses. Uses the edit distance of the first
/// 200 UTF-8 bytes, so a report costs at most 40,000 steps per comparison.
enum Similarity {
    static func of(_ lhs: String, _ rhs: String) -> Double {
        let left = Array(lhs.utf8.prefix(200))
        let right = Array(rhs.utf8.prefix(200))
        let longest = max(left.count, right.count)
        guard longest > 0 else { return 1 }
        return 1 - Double(distance(left, right)) / Double(longest)
    }

    private static func distance(_ left: [UInt8], _ right: [UInt8]) -> Int {
        if left.isEmpty { return right.count }
        if right.isEmpty { return left.count }
        var previous = Array(0...right.count)
        var current = [Int](repeating: 0, count: right.count + 1)
        for i in 1...left.count {
            current[0] = i
            for j in 1...right.count {
                let cost = left[i - 1] == right[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            }
            swap(&previous, &current)
        }
        return previous[right.count]
    }

    /// A short, readable excerpt of a text for reports.
    static func excerpt(_ text: String, limit: Int = 120) -> String {
        text.count <= limit ? text : String(text.prefix(limit)) + "… (\(text.utf8.count) bytes)"
    }
}
