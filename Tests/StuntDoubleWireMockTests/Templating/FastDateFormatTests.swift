import Foundation
import Testing

@testable import StuntDouble
@testable import StuntDoubleWireMock

/// Numeric date patterns written without `DateFormatter` must read exactly as `DateFormatter` writes them.
@Suite struct FastDateFormatTests {
    static let patterns = [
        "yyyy-MM-dd'T'HH:mm:ss'Z'", "yyyy-MM-dd", "HH:mm:ss.SSS", "y/M/d H:m:s", "yyyyy", "dd.MM.yyyy 'at' HH:mm",
        "'It''s' yyyy''", "yyyyMMddHHmmss", "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'",
    ]

    @Test(arguments: patterns)
    func writesWhatDateFormatterWrites(pattern: String) throws {
        let fast = try #require(FastDateFormat(pattern), "a numeric pattern")
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = pattern
        var generator = SeededGenerator(seed: UInt64(pattern.utf8.count))
        var dates = [
            Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: -1), Date(timeIntervalSince1970: 951_782_400),
            Date(timeIntervalSince1970: 1_767_225_599.999), Date(timeIntervalSince1970: -11_676_096_000),
            Date(timeIntervalSince1970: 253_402_300_799),
        ]
        for _ in 0..<2000 {
            let seconds = Double(generator.next() % 264_000_000_000) - 11_676_096_000
            dates.append(Date(timeIntervalSince1970: seconds + Double(generator.next() % 1000) / 1000))
        }
        for date in dates {
            #expect(fast.format(date) == formatter.string(from: date), "\(date.timeIntervalSince1970)")
        }
    }

    @Test(arguments: ["EEE, dd MMM yyyy", "yyyy-MM-dd'T'HH:mm:ssXXX", "hh:mm a", "yy", "S", "'never closed"])
    func leavesEverythingElseToDateFormatter(pattern: String) {
        #expect(FastDateFormat(pattern) == nil)
    }
}
