import Foundation

/// A date a helper returned (`now`, `parseDate`, `date`): written in ISO 8601 (UTC, no fraction) unless a
/// format says otherwise.
struct DateValue: TemplateObject {
    let date: Date

    var text: String { DateFormats.shared.format(date, pattern: DateFormats.iso, timeZone: "UTC") }
    func member(_ name: String) -> TemplateValue? { nil }
    var items: [(key: String?, value: TemplateValue)] { [] }
}

extension TemplateHelpers {
    // MARK: - Random

    /// The characters of each `randomValue` type (ASCII), made once.
    static let randomAlphabets: [String: [UInt8]] = [
        "ALPHABETIC": Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8),
        "NUMERIC": Array("0123456789".utf8),
        "HEXADECIMAL": Array("0123456789abcdef".utf8),
        "ALPHANUMERIC_AND_SYMBOLS": Array(
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!@#$%^&*()-_=+[]{};:,.<>/?".utf8),
        "ALPHANUMERIC": Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".utf8),
    ]

    static func addRandom(to table: inout [String: Helper]) {
        table["randomValue"] = { renderer, _, options in
            let length = options["length"]?.integer ?? 36
            let type = options["type"]?.text.uppercased() ?? "ALPHANUMERIC"
            if type == "UUID" { return .string(renderer.environment.randomUUID().uuidString.lowercased()) }
            guard let alphabet = Self.randomAlphabets[type] else {
                return .string("[ERROR: \(type) is not a randomValue type]")
            }
            guard length > 0 else { return .string("") }
            let picks = renderer.environment.random(count: min(length, 1 << 20), below: alphabet.count)
            var text = String(unsafeUninitializedCapacity: picks.count) { buffer in
                for (index, pick) in picks.enumerated() { buffer[index] = alphabet[pick] }
                return picks.count
            }
            if options["uppercase"]?.isTruthy == true { text = text.uppercased() }
            return .string(text)
        }
        table["randomInt"] = { renderer, _, options in
            let lower = options["lower"]?.integer ?? Int(Int32.min)
            let upper = options["upper"]?.integer ?? Int(Int32.max)
            guard lower < upper else { return .string("[ERROR: randomInt needs lower below upper]") }
            // As WireMock: upper excluded.
            return .int(renderer.environment.random(in: lower...(upper - 1)))
        }
        table["randomDecimal"] = { renderer, _, options in
            let lower = options["lower"]?.number ?? -Double(Int32.max)
            let upper = options["upper"]?.number ?? Double(Int32.max)
            guard lower.isFinite, upper.isFinite, lower <= upper else {
                return .string("[ERROR: randomDecimal needs finite numbers, lower at most upper]")
            }
            return .double(renderer.environment.random(in: lower...upper))
        }
        table["pickRandom"] = { renderer, arguments, _ in
            let choices =
                arguments.count == 1 && isList(arguments[0]) ? arguments[0].items.map(\.value) : arguments
            guard !choices.isEmpty else { return .string("[ERROR: pickRandom needs something to pick from]") }
            return choices[renderer.environment.random(in: 0...(choices.count - 1))]
        }
    }

    // MARK: - Dates

    static func addDates(to table: inout [String: Helper]) {
        table["now"] = { renderer, _, options in
            format(renderer.environment.now(), options)
        }
        table["date"] = { renderer, arguments, options in
            guard let date = arguments.first.flatMap(dateValue) else {
                return .string("[ERROR: date needs a date, such as (parseDate '2026-01-01T00:00:00Z')]")
            }
            return format(date, options)
        }
        table["parseDate"] = { _, arguments, options in
            guard let text = arguments.first?.text else { return .string("[ERROR: parseDate needs a text]") }
            let date: Date?
            switch options["format"]?.text {
            case "epoch"?: date = Double(text).map { Date(timeIntervalSince1970: $0 / 1000) }
            case "unix"?: date = Double(text).map { Date(timeIntervalSince1970: $0) }
            case let pattern?: date = DateFormats.shared.parse(text, pattern: pattern)
            case nil: date = parseAny(text)
            }
            guard let date else { return .string("[ERROR: \(text) is not a date in the format given]") }
            return .lazy(DateValue(date: date))
        }
        table["dateFormat"] = { _, arguments, options in
            guard let date = arguments.first.flatMap(dateValue) else {
                return .string("[ERROR: dateFormat needs a date]")
            }
            var options = options
            if arguments.count > 1 { options["format"] = arguments[1] }
            return format(date, options)
        }
    }

    /// A date from a value: a date, or a text in ISO 8601 or RFC 1123.
    private static func dateValue(_ value: TemplateValue) -> Date? {
        if case .lazy(let object) = value, let date = object as? DateValue { return date.date }
        return parseAny(value.text)
    }

    private static func parseAny(_ text: String) -> Date? {
        for pattern in [
            DateFormats.iso, "yyyy-MM-dd'T'HH:mm:ss.SSSXXX", "yyyy-MM-dd'T'HH:mm:ssXXX", "yyyy-MM-dd",
            "EEE, dd MMM yyyy HH:mm:ss zzz",
        ] {
            if let date = DateFormats.shared.parse(text, pattern: pattern) { return date }
        }
        return nil
    }

    /// A date moved by `offset` and written in `format` (a Java date pattern, `epoch` or `unix`) in `timezone`.
    private static func format(_ date: Date, _ options: [String: TemplateValue]) -> TemplateValue {
        var date = date
        if let offset = options["offset"]?.text {
            guard let moved = DateFormats.move(date, by: offset) else {
                return .string("[ERROR: offset \"\(offset)\" is not a number and a unit, such as '3 days']")
            }
            date = moved
        }
        let zone = options["timezone"]?.text ?? "UTC"
        switch options["format"]?.text {
        case nil:
            return zone == "UTC"
                ? .lazy(DateValue(date: date))
                : .string(
                    DateFormats.shared.format(date, pattern: "yyyy-MM-dd'T'HH:mm:ssXXX", timeZone: zone))
        case "epoch"?:
            return TemplateValue.double((date.timeIntervalSince1970 * 1000).rounded(.down)).integer.map(
                TemplateValue.int) ?? .null
        case "unix"?:
            return TemplateValue.double(date.timeIntervalSince1970.rounded(.down)).integer.map(TemplateValue.int)
                ?? .null
        case let pattern?: return .string(DateFormats.shared.format(date, pattern: pattern, timeZone: zone))
        }
    }
}

/// Date formatters by pattern and time zone, made once (making one costs far more than using it).
final class DateFormats: Sendable {
    static let shared = DateFormats()
    /// ISO 8601 in UTC without a fraction, as WireMock writes `{{now}}`.
    static let iso = "yyyy-MM-dd'T'HH:mm:ss'Z'"

    private struct Formatters: @unchecked Sendable {  // used under the lock only
        var byKey: [String: DateFormatter] = [:]
        /// Numeric patterns written without a formatter in UTC (`nil`: the pattern needs one).
        var fast: [String: FastDateFormat?] = [:]
    }
    private let formatters = Locked(Formatters())

    func format(_ date: Date, pattern: String, timeZone: String) -> String {
        formatters.withLock { formatters in
            if timeZone == "UTC" {
                let fast: FastDateFormat?
                if let known = formatters.fast[pattern] {
                    fast = known
                } else {
                    fast = FastDateFormat(pattern)
                    if formatters.fast.count > 200 { formatters.fast.removeAll() }
                    formatters.fast[pattern] = .some(fast)
                }
                if let text = fast?.format(date) { return text }
            }
            return Self.formatter(pattern, timeZone, in: &formatters.byKey).string(from: date)
        }
    }

    /// The date `text` spells in `pattern`, or nil.
    ///
    /// A text in which one character is several Unicode scalars (`0` and a combining mark, an emoji sequence) is
    /// never a date in `en_US_POSIX`, and corelibs Foundation's `DateFormatter` traps when its parse stops inside
    /// such a character (`Incorrect range CFRange`, found by FuzzTemplate), so those texts are answered nil here.
    func parse(_ text: String, pattern: String) -> Date? {
        guard text.unicodeScalars.count == text.count else { return nil }
        return formatters.withLock { formatters in
            Self.formatter(pattern, "UTC", in: &formatters.byKey).date(from: text)
        }
    }

    private static func formatter(_ pattern: String, _ zone: String, in cache: inout [String: DateFormatter])
        -> DateFormatter
    {
        let key = zone + "\u{0}" + pattern
        if let formatter = cache[key] { return formatter }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: zone) ?? TimeZone(identifier: "UTC")
        formatter.dateFormat = pattern
        if cache.count > 200 { cache.removeAll() }
        cache[key] = formatter
        return formatter
    }

    /// A date moved by WireMock's offset text: `3 days`, `-1 months`, `10 seconds` (seconds, minutes, hours,
    /// days, weeks, months, years).
    static func move(_ date: Date, by offset: String) -> Date? {
        let parts = offset.split(separator: " ")
        guard parts.count == 2, let amount = Int(parts[0]) else { return nil }
        var unit = parts[1].lowercased()
        if unit.hasSuffix("s") { unit.removeLast() }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let component: Calendar.Component
        switch unit {
        case "second": component = .second
        case "minute": component = .minute
        case "hour": component = .hour
        case "day": component = .day
        case "week": component = .weekOfYear
        case "month": component = .month
        case "year": component = .year
        default: return nil
        }
        return calendar.date(byAdding: component, value: amount, to: date)
    }
}
