import Foundation
import StuntDouble

/// A date a helper returned (`now`, `parseDate`, `date`, `truncateDate`): written in ISO 8601 without a fraction,
/// in UTC (`Z`) or at the offset it was parsed with (`+02:00`), unless a format says otherwise.
struct DateValue: TemplateObject {
    let date: Date
    /// The offset from UTC it was parsed with, in seconds (`nil`: UTC).
    var offset: Int? = nil

    var text: String {
        guard let offset, offset != 0, let zone = TimeZone(secondsFromGMT: offset) else {
            return DateFormats.shared.format(date, pattern: DateFormats.iso, timeZone: "UTC")
        }
        return DateFormats.shared.format(date, pattern: "yyyy-MM-dd'T'HH:mm:ssXXX", zone: zone)
    }
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
            // As WireMock's: a type it does not know gives printable ASCII (space to `~`).
            let alphabet = Self.randomAlphabets[type] ?? Array(0x20...0x7E)
            guard length > 0 else { return .string("") }
            let picks = renderer.environment.random(count: min(length, 1 << 20), below: alphabet.count)
            var text = String(unsafeUninitializedCapacity: picks.count) { buffer in
                for (index, pick) in picks.enumerated() { buffer[index] = alphabet[pick] }
                return picks.count
            }
            // Letters are lower case unless `uppercase=true`, as WireMock writes them.
            text = options["uppercase"]?.isTruthy == true ? text.uppercased() : text.lowercased()
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
        table["pickRandom"] = { renderer, arguments, options in
            var choices =
                arguments.first.map { isList($0) } == true ? arguments[0].items.map(\.value) : arguments
            guard !choices.isEmpty else {
                return .error("Must specify either a single list argument or a set of single value arguments.")
            }
            // WireMock 3's `count=n`: n different items, in a random order.
            if let count = options["count"]?.integer, count > 0 {
                let length = min(count, choices.count)
                for index in 0..<length {
                    choices.swapAt(index, renderer.environment.random(in: index...(choices.count - 1)))
                }
                return .array(Array(choices.prefix(length)))
            }
            return choices[renderer.environment.random(in: 0...(choices.count - 1))]
        }
    }

    // MARK: - Dates

    static func addDates(to table: inout [String: Helper]) {
        table["now"] = { renderer, _, options in
            format(renderer.environment.now(), offset: nil, options, renderer: &renderer)
        }
        table["date"] = { renderer, arguments, options in
            // Nothing (a text `parseDate` could not read, say) is now, as WireMock's.
            let given = arguments.first.flatMap { isNull($0) ? nil : $0 }
            guard let object = given.map(dateValue) ?? DateValue(date: renderer.environment.now()) else {
                return renderer.fail("date needs a date, such as (parseDate '2026-01-01T00:00:00Z')")
            }
            // A date keeps its own zone: `timezone=` is for `now` (as WireMock's).
            var options = options
            options["timezone"] = nil
            return format(object.date, offset: object.offset, options, renderer: &renderer)
        }
        table["parseDate"] = { _, arguments, options in
            // A text that is not a date in the format parses to nothing, as WireMock's.
            guard let text = arguments.first?.text else { return .null }
            switch options["format"]?.text {
            case "epoch"?:
                return Double(text).map { .lazy(DateValue(date: Date(timeIntervalSince1970: $0 / 1000))) } ?? .null
            case "unix"?: return Double(text).map { .lazy(DateValue(date: Date(timeIntervalSince1970: $0))) } ?? .null
            case let pattern?:
                return DateFormats.shared.parse(text, pattern: pattern).map { .lazy(DateValue(date: $0)) } ?? .null
            case nil: return parseAny(text).map(TemplateValue.lazy) ?? .null
            }
        }
        table["dateFormat"] = { renderer, arguments, options in
            // `{{dateFormat date 'pattern' 'locale'}}`: a Java pattern or a style (full, long, medium, short).
            guard let object = arguments.first.flatMap(dateValue) else { return .string("") }
            var options = options
            if arguments.count > 1 { options["format"] = arguments[1] }
            if arguments.count > 2 { options["locale"] = arguments[2] }
            // Handlebars.java's StringHelpers.dateFormat names its time zone `tz`.
            if let zone = options["tz"] { options["timezone"] = zone }
            return format(object.date, offset: object.offset, options, renderer: &renderer)
        }
        table["truncateDate"] = { renderer, arguments, _ in
            guard arguments.count >= 2, let object = dateValue(arguments[0]) else {
                return renderer.fail("truncateDate needs a date and a truncation, such as 'first day of month'")
            }
            guard let truncated = DateFormats.truncate(object.date, arguments[1].text) else {
                return renderer.fail(
                    "truncateDate does not know \"\(arguments[1].text)\": use one of "
                        + DateFormats.truncations.joined(separator: ", "))
            }
            return .lazy(DateValue(date: truncated))
        }
    }

    /// A date from a value: a date, or a text `parseDate` reads.
    private static func dateValue(_ value: TemplateValue) -> DateValue? {
        if case .lazy(let object as DateValue) = value { return object }
        if case .string(let text) = value { return parseAny(text) }
        return nil
    }

    /// A date from ISO 8601 (with `Z` or an offset, with or without milliseconds) or RFC 1123, keeping its offset.
    private static func parseAny(_ text: String) -> DateValue? {
        for pattern in ["yyyy-MM-dd'T'HH:mm:ssXXX", "yyyy-MM-dd'T'HH:mm:ss.SSSXXX", "EEE, dd MMM yyyy HH:mm:ss zzz"] {
            guard let date = DateFormats.shared.parse(text, pattern: pattern) else { continue }
            return DateValue(date: date, offset: pattern.hasPrefix("EEE") ? nil : parsedOffset(text))
        }
        return nil
    }

    /// The offset an ISO 8601 text ends with (`+02:00`, `-0530`), in seconds; `nil` for `Z`.
    private static func parsedOffset(_ text: String) -> Int? {
        guard !text.hasSuffix("Z"), let sign = text.lastIndex(where: { $0 == "+" || $0 == "-" }),
            text.distance(from: sign, to: text.endIndex) >= 5
        else { return nil }
        let digits = text[text.index(after: sign)...].filter(\.isNumber)
        guard digits.count == 4, let hours = Int(digits.prefix(2)), let minutes = Int(digits.suffix(2)) else {
            return nil
        }
        let seconds = hours * 3600 + minutes * 60
        return text[sign] == "-" ? -seconds : seconds
    }

    /// A date moved by `offset` and written in `format` (a Java date pattern, a style, `epoch` or `unix`) in
    /// `timezone` and `locale`.
    private static func format(
        _ date: Date, offset parsedOffset: Int?, _ options: [String: TemplateValue], renderer: inout TemplateRenderer
    ) -> TemplateValue {
        var date = date
        if let offset = options["offset"]?.text {
            guard let moved = DateFormats.move(date, by: offset) else {
                return renderer.fail(
                    "the date offset \"\(offset)\" is not a number and a unit, such as '3 days', '-1 hours' or "
                        + "'now +5 years' (seconds, minutes, hours, days, months or years)")
            }
            date = moved
        }
        let zone: TimeZone
        if let name = options["timezone"]?.text {
            zone = DateFormats.javaZone(name)
        } else {
            zone = parsedOffset.flatMap(TimeZone.init(secondsFromGMT:)) ?? TimeZone(identifier: "UTC")!
        }
        let locale = options["locale"]?.text
        switch options["format"]?.text {
        case nil:
            guard options["timezone"] != nil, zone.secondsFromGMT(for: date) != 0 else {
                return .lazy(DateValue(date: date, offset: options["timezone"] == nil ? parsedOffset : nil))
            }
            return .string(DateFormats.shared.format(date, pattern: "yyyy-MM-dd'T'HH:mm:ssXXX", zone: zone))
        case "epoch"?:
            return TemplateValue.double((date.timeIntervalSince1970 * 1000).rounded(.down)).integer.map(
                TemplateValue.int) ?? .null
        case "unix"?:
            return TemplateValue.double(date.timeIntervalSince1970.rounded(.down)).integer.map(TemplateValue.int)
                ?? .null
        case let style? where DateFormats.styles[style] != nil:
            return .string(DateFormats.shared.format(date, style: style, zone: zone, locale: locale))
        case let pattern?:
            return .string(DateFormats.shared.format(date, pattern: pattern, zone: zone, locale: locale))
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
        format(date, pattern: pattern, zone: TimeZone(identifier: timeZone) ?? TimeZone(identifier: "UTC")!)
    }

    /// A date in a Java pattern, in a zone and a locale (`en_US` unless given, as Java's default here). A zone's
    /// name is written as Java writes it: UTC's is "UTC" (ICU writes "GMT").
    func format(_ date: Date, pattern: String, zone: TimeZone, locale: String? = nil) -> String {
        formatters.withLock { formatters in
            let isUTC = zone.secondsFromGMT(for: date) == 0 && (zone.identifier == "UTC" || zone.identifier == "GMT")
            if isUTC, locale == nil {
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
            let text = Self.formatter(
                key: "p\u{0}\(pattern)", zone: zone, locale: locale, in: &formatters.byKey
            ) { $0.dateFormat = pattern }.string(from: date)
            return isUTC && Self.namesZone(pattern) ? text.replacingOccurrences(of: "GMT", with: "UTC") : text
        }
    }

    /// Java's date styles, by the names WireMock's `dateFormat` takes.
    static let styles: [String: DateFormatter.Style] = [
        "full": .full, "long": .long, "medium": .medium, "short": .short,
    ]

    /// A date in one of Java's styles (the date alone), in a zone and a locale.
    func format(_ date: Date, style: String, zone: TimeZone, locale: String?) -> String {
        formatters.withLock { formatters in
            Self.formatter(key: "s\u{0}\(style)", zone: zone, locale: locale ?? "en_US", in: &formatters.byKey) {
                $0.dateStyle = Self.styles[style] ?? .medium
                $0.timeStyle = .none
            }.string(from: date)
        }
    }

    /// Whether a pattern writes a zone's name (`z` outside quotes).
    private static func namesZone(_ pattern: String) -> Bool {
        var quoted = false
        for character in pattern {
            if character == "'" { quoted.toggle() } else if character == "z", !quoted { return true }
        }
        return false
    }

    /// The date `text` spells in `pattern`, or nil.
    ///
    /// A text in which one character is several Unicode scalars (`0` and a combining mark, an emoji sequence) is
    /// never a date in `en_US_POSIX`, and corelibs Foundation's `DateFormatter` traps when its parse stops inside
    /// such a character (`Incorrect range CFRange`, found by FuzzTemplate), so those texts are answered nil here.
    func parse(_ text: String, pattern: String) -> Date? {
        guard text.unicodeScalars.count == text.count else { return nil }
        // ICU's parser divides by zero on a field of a hundred digits (a fraction of seconds, found by
        // FuzzTemplate); no date field is longer than yyyyMMddHHmmssSSS's 17.
        var run = 0
        for character in text.utf8 {
            run = character >= UInt8(ascii: "0") && character <= UInt8(ascii: "9") ? run + 1 : 0
            if run > 18 { return nil }
        }
        return formatters.withLock { formatters in
            Self.formatter(
                key: "p\u{0}\(pattern)", zone: TimeZone(identifier: "UTC")!, locale: nil, in: &formatters.byKey
            ) {
                $0.dateFormat = pattern
            }.date(from: text)
        }
    }

    private static func formatter(
        key: String, zone: TimeZone, locale: String?, in cache: inout [String: DateFormatter],
        configure: (DateFormatter) -> Void
    ) -> DateFormatter {
        let key = "\(zone.identifier)\u{0}\(zone.secondsFromGMT())\u{0}\(locale ?? "")\u{0}\(key)"
        if let formatter = cache[key] { return formatter }
        let formatter = DateFormatter()
        formatter.locale = Locale(javaTag: locale)
        formatter.timeZone = zone
        configure(formatter)
        if cache.count > 200 { cache.removeAll() }
        cache[key] = formatter
        return formatter
    }

    /// The truncations `truncateDate` knows, as WireMock names them.
    static let truncations = [
        "first minute of hour", "first hour of day", "first day of month", "first day of next month",
        "last day of month", "first day of year", "first day of next year", "last day of year",
    ]

    /// A date truncated (in UTC) as WireMock's `truncateDate` does, or `nil` for a truncation it does not know.
    static func truncate(_ date: Date, _ truncation: String) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour], from: date)
        func make(_ year: Int?, _ month: Int?, _ day: Int?, _ hour: Int? = 0) -> Date? {
            calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: 0, second: 0))
        }
        switch truncation {
        case "first minute of hour": return make(parts.year, parts.month, parts.day, parts.hour)
        case "first hour of day": return make(parts.year, parts.month, parts.day)
        case "first day of month": return make(parts.year, parts.month, 1)
        case "first day of next month":
            return make(parts.year, parts.month, 1).flatMap { calendar.date(byAdding: .month, value: 1, to: $0) }
        case "last day of month":
            return make(parts.year, parts.month, 1).flatMap {
                calendar.date(byAdding: DateComponents(month: 1, day: -1), to: $0)
            }
        case "first day of year": return make(parts.year, 1, 1)
        case "first day of next year": return make(parts.year.map { $0 + 1 }, 1, 1)
        case "last day of year": return make(parts.year, 12, 31)
        default: return nil
        }
    }

    /// A date moved by WireMock's offset text (its `DateTimeOffset`): `now`, `<amount> <unit>` (`3 days`,
    /// `-1 months`) or `now +<amount> <unit>` (`now +5 years`), the unit one of seconds, minutes, hours, days,
    /// months and years in any case (not weeks, nor a singular `day`: WireMock refuses those).
    static func move(_ date: Date, by offset: String) -> Date? {
        if offset.lowercased() == "now" { return date }
        // Java's split(" "): empty parts between two spaces count, trailing ones do not.
        var parts = offset.split(separator: " ", omittingEmptySubsequences: false)
        while parts.last?.isEmpty == true { parts.removeLast() }
        guard parts.count == 2 || parts.count == 3, let amount = Int32(parts[parts.count - 2]) else { return nil }
        let units: [String: Calendar.Component] = [
            "SECONDS": .second, "MINUTES": .minute, "HOURS": .hour, "DAYS": .day, "MONTHS": .month, "YEARS": .year,
        ]
        guard let component = units[parts[parts.count - 1].uppercased()] else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        return calendar.date(byAdding: component, value: Int(amount), to: date)
    }

    /// A time zone as Java's `TimeZone.getTimeZone` reads its name: an identifier (`Asia/Tokyo`), or `GMT` with an
    /// offset (`GMT-05:00`, `GMT+0530`, `GMT+5`); anything else is GMT.
    static func javaZone(_ name: String) -> TimeZone {
        let utc = TimeZone(identifier: "UTC")!
        guard name.hasPrefix("GMT"), name.count > 3 else { return TimeZone(identifier: name) ?? utc }
        let rest = name.dropFirst(3)
        guard let sign = rest.first, sign == "+" || sign == "-" else { return utc }
        let digits = rest.dropFirst().replacingOccurrences(of: ":", with: "")
        guard !digits.isEmpty, digits.count <= 4, digits.allSatisfy(\.isASCII), let number = Int(digits) else {
            return utc
        }
        let (hours, minutes) = digits.count <= 2 ? (number, 0) : (number / 100, number % 100)
        guard hours <= 23, minutes <= 59 else { return utc }
        let seconds = (hours * 3600 + minutes * 60) * (sign == "-" ? -1 : 1)
        return TimeZone(secondsFromGMT: seconds) ?? utc
    }
}

extension Locale {
    /// The locale a template names (`fr`, `de-CH`, `en_GB`); none, or a tag that is not ASCII letters, digits, `-`
    /// and `_` (no locale Java knows), formats as `en_US_POSIX`. Foundation is never handed such a tag: on Linux
    /// a non-ASCII identifier traps inside `DateFormatter` (found by FuzzTemplate).
    init(javaTag tag: String?) {
        let isTagByte = { (byte: UInt8) -> Bool in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                true
            default: false
            }
        }
        guard let tag, !tag.isEmpty, tag.utf8.count <= 64, tag.utf8.allSatisfy(isTagByte) else {
            self.init(identifier: "en_US_POSIX")
            return
        }
        self.init(identifier: tag.replacingOccurrences(of: "-", with: "_"))
    }
}
