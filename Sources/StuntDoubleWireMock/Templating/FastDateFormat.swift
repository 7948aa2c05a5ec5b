import Foundation
import StuntDouble

/// A date pattern of numeric fields only (`yyyy-MM-dd'T'HH:mm:ss'Z'`, `yyyy-MM-dd`, `HH:mm:ss.SSS`), written in
/// UTC without `DateFormatter`, which costs several microseconds a date on Linux. Any other pattern, zone or
/// year is `DateFormatter`'s (`DateFormats`); a test holds the two to the same text.
struct FastDateFormat: Sendable {
    private enum Token: Sendable {
        case literal(String)
        case year(Int)
        case month(Int)
        case day(Int)
        case hour(Int)
        case minute(Int)
        case second(Int)
        case milliseconds
    }

    private let tokens: [Token]

    /// The pattern as fields, or `nil` when it has anything but `y`, `M` (1–2), `d`, `H`, `m`, `s` (1–2), `SSS`,
    /// quoted text and punctuation.
    init?(_ pattern: String) {
        var tokens: [Token] = []
        let characters = Array(pattern)
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if character == "'" {
                // Quoted text; '' is a quote.
                var text = ""
                index += 1
                if index < characters.count, characters[index] == "'" {
                    tokens.append(.literal("'"))
                    index += 1
                    continue
                }
                while index < characters.count {
                    if characters[index] == "'" {
                        if index + 1 < characters.count, characters[index + 1] == "'" {
                            text.append("'")
                            index += 2
                            continue
                        }
                        break
                    }
                    text.append(characters[index])
                    index += 1
                }
                guard index < characters.count else { return nil }  // never closed
                index += 1
                tokens.append(.literal(text))
                continue
            }
            guard character.isASCII, character.isLetter else {
                tokens.append(.literal(String(character)))
                index += 1
                continue
            }
            var count = 1
            while index + count < characters.count, characters[index + count] == character { count += 1 }
            index += count
            switch (character, count) {
            case ("y", 1), ("y", 4...): tokens.append(.year(count))
            case ("M", 1...2): tokens.append(.month(count))
            case ("d", 1...2): tokens.append(.day(count))
            case ("H", 1...2): tokens.append(.hour(count))
            case ("m", 1...2): tokens.append(.minute(count))
            case ("s", 1...2): tokens.append(.second(count))
            case ("S", 3): tokens.append(.milliseconds)
            default: return nil
            }
        }
        self.tokens = tokens
    }

    /// The date in UTC, or `nil` before 1600 (`DateFormatter`'s calendar is Julian before October 1582) or after
    /// 9999.
    func format(_ date: Date) -> String? {
        let interval = date.timeIntervalSince1970
        guard interval.isFinite, interval >= -11_676_096_000, interval < 253_402_300_800 else { return nil }
        // In whole milliseconds first, rounded as Foundation hands dates to ICU.
        let totalMilliseconds = Int((interval * 1000).rounded())
        var seconds = totalMilliseconds / 1000
        var milliseconds = totalMilliseconds % 1000
        if milliseconds < 0 {
            milliseconds += 1000
            seconds -= 1
        }
        var days = seconds / 86400
        var secondOfDay = seconds % 86400
        if secondOfDay < 0 {
            secondOfDay += 86400
            days -= 1
        }
        // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        var output = ""
        output.reserveCapacity(32)
        for token in tokens {
            switch token {
            case .literal(let text): output += text
            case .year(let width): Self.append(year, width: width, to: &output)
            case .month(let width): Self.append(month, width: width, to: &output)
            case .day(let width): Self.append(day, width: width, to: &output)
            case .hour(let width): Self.append(secondOfDay / 3600, width: width, to: &output)
            case .minute(let width): Self.append(secondOfDay / 60 % 60, width: width, to: &output)
            case .second(let width): Self.append(secondOfDay % 60, width: width, to: &output)
            case .milliseconds: Self.append(milliseconds, width: 3, to: &output)
            }
        }
        return output
    }

    private static func append(_ value: Int, width: Int, to output: inout String) {
        let digits = String(value)
        if digits.count < width { output += String(repeating: "0", count: width - digits.count) }
        output += digits
    }
}
