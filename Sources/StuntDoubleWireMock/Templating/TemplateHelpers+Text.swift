import Foundation
import StuntDouble

/// Handlebars.java's string helpers that WireMock registers (`capitalizeFirst`, `center`, `ljust`, `rjust`, `cut`,
/// `defaultIfEmpty`, `slugify`, `stripTags`, `stringFormat`, `wordWrap`, `yesno`), and `range` and `stripes`, as
/// WireMock 2.35.1's jar renders them.
extension TemplateHelpers {
    static func addHandlebarsStrings(to table: inout [String: Helper]) {
        table["capitalizeFirst"] = { _, arguments, _ in
            let text = arguments.first?.text ?? ""
            return .string(text.prefix(1).uppercased() + text.dropFirst())
        }
        table["capitalize"] = { _, arguments, options in
            // Commons Lang's WordUtils: each word's first letter in upper case, words split at spaces only;
            // `fully=true` lowers the rest.
            let fully = options["fully"]?.isTruthy == true
            var result = ""
            var atWordStart = true
            for character in arguments.first?.text ?? "" {
                if character == " " {
                    atWordStart = true
                    result.append(character)
                } else if atWordStart {
                    atWordStart = false
                    result += character.uppercased()
                } else {
                    result += fully ? character.lowercased() : String(character)
                }
            }
            return .string(result)
        }
        table["center"] = padding("center") { text, padding in
            let left = padding.count / 2
            return String(padding.prefix(left)) + text + String(padding.prefix(padding.count - left))
        }
        table["ljust"] = padding("ljust") { text, padding in text + padding }
        table["rjust"] = padding("rjust") { text, padding in padding + text }
        table["cut"] = { _, arguments, _ in
            guard let value = arguments.first, !isFalsy(value) else { return .string("") }
            let text = value.text
            let removed = arguments.count > 1 ? arguments[1].text : " "
            return .string(removed.isEmpty ? text : text.replacingOccurrences(of: removed, with: ""))
        }
        table["defaultIfEmpty"] = { _, arguments, _ in
            guard let value = arguments.first, !isEmptyValue(value) else {
                return arguments.count > 1 ? arguments[1] : .string("")
            }
            return value
        }
        table["slugify"] = { _, arguments, _ in
            // Handlebars.java's: trimmed, then letters (lower case) kept and each space a dash; digits,
            // punctuation and dashes dropped.
            var slug = ""
            for scalar in (arguments.first?.text ?? "").trimmingCharacters(in: .whitespacesAndNewlines).unicodeScalars {
                if scalar.properties.isAlphabetic {
                    slug += String(scalar).lowercased()
                } else if scalar.properties.isWhitespace, scalar != "\u{A0}", scalar != "\u{2007}", scalar != "\u{202F}"
                {
                    slug += "-"
                }
            }
            return .string(slug)
        }
        table["stripTags"] = { _, arguments, _ in
            .string(stripTags(arguments.first?.text ?? ""))
        }
        table["stringFormat"] = { renderer, arguments, _ in
            guard let format = arguments.first else {
                return renderer.fail("stringFormat needs a format, such as '%s and %05d'")
            }
            switch JavaFormat.format(format.text, Array(arguments.dropFirst())) {
            case .success(let text): return .string(text)
            case .failure(let error): return renderer.fail("stringFormat: \(error.message)")
            }
        }
        table["wordWrap"] = { renderer, arguments, _ in
            guard arguments.count >= 2, case .int(let width) = arguments[1] else {
                return renderer.fail("wordWrap needs a text and a whole number, such as {{wordWrap text 40}}")
            }
            return .string(wrapWords(arguments[0].text, width: max(width, 1)))
        }
        table["yesno"] = { renderer, arguments, options in
            switch arguments.first ?? .null {
            case .null: return options["maybe"] ?? .string("maybe")
            case .bool(false): return options["no"] ?? .string("no")
            case .bool(true): return options["yes"] ?? .string("yes")
            case let other:
                return renderer.fail("yesno needs true, false or nothing, and was given \(kind(of: other))")
            }
        }
        table["range"] = { renderer, arguments, _ in
            guard arguments.count >= 2, let start = arguments[0].integer, let end = arguments[1].integer else {
                return renderer.fail("range needs two whole numbers, such as {{range 1 5}}")
            }
            guard start <= end else { return renderer.fail("range's start, \(start), is after its end, \(end)") }
            guard end - start < 1_000_000 else { return .error("range \(start) to \(end) is over a million numbers") }
            return .array((start...end).map(TemplateValue.int))
        }
        // Handlebars.java's number helpers: `{{stripes @index 'even' 'odd'}}`, `{{isEven n 'value'}}`,
        // `{{isOdd n}}` ("even", "odd" unless given a value; nothing when the number is not).
        table["stripes"] = { renderer, arguments, _ in
            guard let index = arguments.first?.integer else {
                return renderer.fail("stripes needs a number, such as {{stripes @index 'even' 'odd'}}")
            }
            let even = index % 2 == 0
            let position = even ? 1 : 2
            return arguments.count > position ? arguments[position] : .string(even ? "even" : "odd")
        }
        for (name, wantsEven) in [("isEven", true), ("isOdd", false)] {
            table[name] = { renderer, arguments, _ in
                guard let number = arguments.first?.integer else {
                    return renderer.fail("\(name) needs a number, such as {{\(name) @index}}")
                }
                guard (number % 2 == 0) == wantsEven else { return .null }
                return arguments.count > 1 ? arguments[1] : .string(wantsEven ? "even" : "odd")
            }
        }
        table["log"] = { _, _, _ in .null }
    }

    /// `center`, `ljust` and `rjust`: a text padded to `size` with `pad` (a space unless given).
    private static func padding(_ name: String, _ place: @escaping @Sendable (String, String) -> String) -> Helper {
        { renderer, arguments, options in
            let text = arguments.first?.text ?? ""
            guard case .int(let size)? = options["size"] else {
                return renderer.fail(
                    "\(name) needs size= a whole number, the width to pad to: {{\(name) text size=10}}")
            }
            let pad = options["pad"]?.text ?? " "
            let missing = size - text.count
            guard missing > 0, !pad.isEmpty, size < 1 << 20 else { return .string(text) }
            let unit = Array(pad)
            let padding = String((0..<missing).map { unit[$0 % unit.count] })
            return .string(place(text, padding))
        }
    }

    /// Handlebars.java's emptiness, which `defaultIfEmpty` tests.
    static func isEmptyValue(_ value: TemplateValue) -> Bool { isFalsy(value) }

    /// A text without its `<...>` tags.
    static func stripTags(_ text: String) -> String {
        var result = ""
        var inTag = false
        for character in text {
            if character == "<" {
                inTag = true
            } else if character == ">", inTag {
                inTag = false
            } else if !inTag {
                result.append(character)
            }
        }
        return result
    }

    /// Commons Lang's `WordUtils.wrap(text, width)`: lines of at most `width` characters broken at spaces, a word
    /// longer than the width left whole on a line of its own, `\n` between lines.
    static func wrapWords(_ text: String, width: Int) -> String {
        let characters = Array(text)
        var lines: [String] = []
        var offset = 0
        while offset < characters.count {
            // Spaces at the start of a line are dropped.
            if characters[offset] == " " {
                offset += 1
                continue
            }
            if characters.count - offset <= width {
                lines.append(String(characters[offset...]))
                break
            }
            if let space = characters[offset...(offset + width)].lastIndex(of: " ") {
                lines.append(String(characters[offset..<space]))
                offset = space + 1
            } else if let space = characters[(offset + width)...].firstIndex(of: " ") {
                lines.append(String(characters[offset..<space]))
                offset = space + 1
            } else {
                lines.append(String(characters[offset...]))
                break
            }
        }
        return lines.joined(separator: "\n")
    }
}

extension TemplateHelpers {
    /// The machine's name, as WireMock's `hostname` helper writes it.
    static let hostName = ProcessInfo.processInfo.hostName

    static func addNumbers(to table: inout [String: Helper]) {
        table["hostname"] = { _, _, _ in .string(hostName) }
        table["systemValue"] = { renderer, _, options in
            // WireMock's: an environment variable (or a Java system property, of which there are none here)
            // whose name the permitted keys allow (`wiremock.*` in any case, unless --permitted-system-keys).
            let key = options["key"]?.text ?? ""
            guard !key.isEmpty else { return .error("The key cannot be empty") }
            guard renderer.environment.permitsSystemKey(key) else { return .error("Access to \(key) is denied") }
            switch options["type"]?.text ?? "ENVIRONMENT" {
            case "ENVIRONMENT": return ProcessInfo.processInfo.environment[key].map(TemplateValue.string) ?? .null
            default: return .string("")
            }
        }
        table["numberFormat"] = { renderer, arguments, options in
            // Handlebars.java's: a number in a style (`integer`, `currency`, `percent`, or the default) or a
            // Java DecimalFormat pattern, in a locale (`en_US` unless given); anything but a number writes the
            // pattern given, or nothing.
            guard let value = arguments.first, isNumber(value), let number = value.number else {
                return arguments.count > 1 ? .string(arguments[1].text) : .null
            }
            let style = arguments.count > 1 ? arguments[1].text : nil
            let locale = arguments.count > 2 ? arguments[2].text : "en_US"
            // Commons Lang's LocaleUtils: `fr`, `fr_FR`, `fr_FR_variant`, never `fr-FR`.
            guard
                locale.range(of: #"^[a-z]{2,3}(_[A-Z]{2}|_[0-9]{3})?(_\w+)?$|^_[A-Z]{2}$"#, options: .regularExpression)
                    != nil
            else {
                return renderer.fail(
                    "numberFormat's locale \"\(locale)\" is not a locale such as en_GB (with an underscore)")
            }
            var settings = NumberFormats.Settings(style: style, locale: locale)
            settings.grouping = options["groupingUsed"].map(\.isTruthy)
            settings.maximumFractionDigits = options["maximumFractionDigits"]?.integer
            settings.maximumIntegerDigits = options["maximumIntegerDigits"]?.integer
            settings.minimumFractionDigits = options["minimumFractionDigits"]?.integer
            settings.minimumIntegerDigits = options["minimumIntegerDigits"]?.integer
            if let mode = options["roundingMode"]?.text {
                guard let rounding = NumberFormats.roundingModes[mode.uppercased()] else {
                    return renderer.fail(
                        "numberFormat's roundingMode \"\(mode)\" is not one of "
                            + NumberFormats.roundingModes.keys.sorted().joined(separator: ", "))
                }
                settings.rounding = rounding
            }
            switch NumberFormats.shared.format(number, settings) {
            case .some(let text): return .string(text)
            case .none: return renderer.fail("numberFormat cannot read the pattern \"\(style ?? "")\"")
            }
        }
    }
}

/// Number formatters by style or pattern, locale and options, made once (making one costs far more than using
/// it), used under a lock.
final class NumberFormats: Sendable {
    static let shared = NumberFormats()

    /// Java's rounding modes, by their names.
    static let roundingModes: [String: NumberFormatter.RoundingMode] = [
        "UP": .up, "DOWN": .down, "CEILING": .ceiling, "FLOOR": .floor, "HALF_UP": .halfUp, "HALF_DOWN": .halfDown,
        "HALF_EVEN": .halfEven,
    ]

    struct Settings: Hashable {
        var style: String?
        var locale: String
        var grouping: Bool?
        var maximumFractionDigits: Int?
        var maximumIntegerDigits: Int?
        var minimumFractionDigits: Int?
        var minimumIntegerDigits: Int?
        var rounding: NumberFormatter.RoundingMode?
    }

    private struct Formatters: @unchecked Sendable {  // used under the lock only
        var bySettings: [Settings: NumberFormatter] = [:]
    }
    private let formatters = Locked(Formatters())

    /// The number written as the settings say, or `nil` when the pattern cannot be read.
    func format(_ number: Double, _ settings: Settings) -> String? {
        formatters.withLock { formatters in
            let formatter: NumberFormatter
            if let known = formatters.bySettings[settings] {
                formatter = known
            } else {
                guard let made = Self.make(settings) else { return nil }
                if formatters.bySettings.count > 200 { formatters.bySettings.removeAll() }
                formatters.bySettings[settings] = made
                formatter = made
            }
            return formatter.string(from: NSNumber(value: number))
        }
    }

    private static func make(_ settings: Settings) -> NumberFormatter? {
        let formatter = NumberFormatter()
        formatter.locale = Locale(javaTag: settings.locale)
        switch settings.style?.trimmingCharacters(in: .whitespaces).uppercased() {
        case nil, "DEFAULT":
            formatter.numberStyle = .decimal
        case "INTEGER":
            formatter.numberStyle = .decimal
            formatter.maximumFractionDigits = 0
        case "CURRENCY":
            formatter.numberStyle = .currency
        case "PERCENT":
            formatter.numberStyle = .percent
        default:
            guard let pattern = settings.style, !pattern.isEmpty else { return nil }
            formatter.numberStyle = .decimal
            formatter.positiveFormat = icuPattern(java: pattern)
        }
        formatter.roundingMode = settings.rounding ?? .halfEven
        if let grouping = settings.grouping { formatter.usesGroupingSeparator = grouping }
        if let digits = settings.maximumFractionDigits { formatter.maximumFractionDigits = digits }
        if let digits = settings.maximumIntegerDigits { formatter.maximumIntegerDigits = digits }
        if let digits = settings.minimumFractionDigits { formatter.minimumFractionDigits = digits }
        if let digits = settings.minimumIntegerDigits { formatter.minimumIntegerDigits = digits }
        return formatter
    }

    /// A Java `DecimalFormat` pattern as ICU (Foundation's formatter) reads it alike: the characters Java writes as
    /// they are but ICU gives a meaning (`1` to `9`, a rounding increment; `@`, significant digits; `*`, padding)
    /// quoted. Java writes `#,##0.05` for 1 as `1.05`, where ICU rounds to a twentieth; and ICU's rounding
    /// increments crashed Foundation's formatter on large numbers (FuzzTemplate found `55` with 3.3e70).
    static func icuPattern(java pattern: String) -> String {
        var result = ""
        var literal = ""
        var quoted = false
        for character in pattern {
            if !quoted, character == "@" || character == "*" || ("1"..."9").contains(character) {
                literal.append(character)
                continue
            }
            if !literal.isEmpty {
                result += "'\(literal)'"
                literal = ""
            }
            if character == "'" { quoted.toggle() }
            result.append(character)
        }
        return literal.isEmpty ? result : result + "'\(literal)'"
    }
}
