/// How alike two strings are, from 0 to 1, to rank near misses. Uses the edit distance of the first
/// 200 UTF-8 bytes, so a report costs at most 40,000 steps per comparison.
package enum Similarity {
    package static func of(_ lhs: String, _ rhs: String) -> Double {
        var left = lhs
        var right = rhs
        return left.withUTF8 { left in
            right.withUTF8 { right in
                let left = UnsafeBufferPointer(rebasing: left.prefix(200))
                let right = UnsafeBufferPointer(rebasing: right.prefix(200))
                let longest = max(left.count, right.count)
                guard longest > 0 else { return 1 }
                return 1 - Double(distance(left, right)) / Double(longest)
            }
        }
    }

    /// The Levenshtein distance, without the common prefix and suffix (which cost nothing to keep): a near-miss
    /// report compares a request with several stubs on every unmatched request.
    private static func distance(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>) -> Int {
        var left = left[...]
        var right = right[...]
        while let first = left.first, first == right.first {
            left = left.dropFirst()
            right = right.dropFirst()
        }
        while let last = left.last, last == right.last {
            left = left.dropLast()
            right = right.dropLast()
        }
        if left.isEmpty { return right.count }
        if right.isEmpty { return left.count }
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: 2 * (right.count + 1)) { rows in
            var previous = UnsafeMutableBufferPointer(rebasing: rows[0...right.count])
            var current = UnsafeMutableBufferPointer(rebasing: rows[(right.count + 1)...])
            for j in 0...right.count { previous[j] = j }
            for (i, leftByte) in zip(1..., left) {
                current[0] = i
                for (j, rightByte) in zip(1..., right) {
                    let cost = leftByte == rightByte ? 0 : 1
                    current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                }
                swap(&previous, &current)
            }
            return previous[right.count]
        }
    }

    /// A short, readable excerpt of a text for reports.
    package static func excerpt(_ text: String, limit: Int = 120) -> String {
        text.count <= limit ? text : String(text.prefix(limit)) + "… (\(text.utf8.count) bytes)"
    }
}
