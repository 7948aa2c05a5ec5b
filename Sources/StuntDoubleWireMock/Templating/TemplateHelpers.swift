import Foundation
import StuntDouble

/// WireMock's template helpers (and Handlebars' own: `if`, `unless`, `each`, `with`, `lookup`), as WireMock
/// 2.35.1 renders them. A helper given something it cannot use renders `[ERROR: ...]` saying why, as WireMock's
/// do, rather than failing the response.
enum TemplateHelpers {
    typealias Helper = @Sendable (inout TemplateRenderer, [TemplateValue], [String: TemplateValue]) -> TemplateValue

    /// Helpers that take a block's text as their input when given none (`{{#trim}} text {{/trim}}`).
    static let takesBlockText: Set<String> = [
        "trim", "upper", "lower", "capitalize", "base64", "urlEncode", "abbreviate", "size",
    ]

    /// Helpers WireMock has and StuntDouble refuses at load, with why.
    static let unsupported: [String: String] = [
        "file": "the file helper is not supported yet: use bodyFileName"
    ]

    /// Calls a helper by name.
    static func call(
        _ name: String, _ arguments: [TemplateValue], _ options: [String: TemplateValue],
        renderer: inout TemplateRenderer
    ) -> TemplateValue {
        guard let helper = table[name] else { return .string("[ERROR: no helper \(name)]") }
        return helper(&renderer, arguments, options)
    }

    /// Every helper, by name.
    static let table: [String: Helper] = {
        var table: [String: Helper] = [:]
        // Handlebars' own, as values (their block forms are the renderer's).
        table["if"] = { _, arguments, _ in .bool(arguments.first?.isTruthy ?? false) }
        table["unless"] = { _, arguments, _ in .bool(!(arguments.first?.isTruthy ?? false)) }
        table["each"] = { _, arguments, _ in arguments.first ?? .null }
        table["with"] = { _, arguments, _ in arguments.first ?? .null }
        table["assign"] = { _, _, _ in .null }
        table["lookup"] = { _, arguments, _ in
            // Handlebars.java's: a name or index the value lacks looks up the value itself.
            guard arguments.count >= 2 else { return .null }
            return arguments[0].member(arguments[1].text) ?? arguments[0]
        }
        addComparisons(to: &table)
        addStrings(to: &table)
        addHandlebarsStrings(to: &table)
        addNumbers(to: &table)
        addData(to: &table)
        addRandom(to: &table)
        addDates(to: &table)
        addXML(to: &table)
        // Handlebars.java's StringHelpers all start alike: a falsy value (nothing, "", 0, false, an empty list)
        // writes their first argument, or nothing.
        for name in [
            "capitalizeFirst", "center", "ljust", "rjust", "substring", "lower", "upper", "slugify", "stringFormat",
            "stripTags", "capitalize", "abbreviate", "wordWrap", "replace", "dateFormat",
        ] {
            guard let helper = table[name] else { continue }
            table[name] = { renderer, arguments, options in
                guard let value = arguments.first, !isFalsy(value) else {
                    return arguments.count > 1 ? .string(arguments[1].text) : .null
                }
                return helper(&renderer, arguments, options)
            }
        }
        return table
    }()

    /// Handlebars.java's emptiness (`Handlebars.Utils.isEmpty`): nothing, an empty text, an empty list, false and
    /// zero; an empty object is not.
    static func isFalsy(_ value: TemplateValue) -> Bool {
        switch value {
        case .null: true
        case .string(let text): text.isEmpty
        case .bool(let flag): !flag
        case .int(let number): number == 0
        case .double(let number): number == 0
        case .array(let items): items.isEmpty
        case .multi(let values): values.isEmpty
        case .object: false
        case .lazy(let object as JSONData):
            if case .array(let items) = object.node.kind { items.isEmpty } else { false }
        case .lazy: false
        }
    }

    // MARK: - Comparisons

    private static func addComparisons(to table: inout [String: Helper]) {
        /// Equality as Java's `equals`: numbers by value, texts by text, a number never equals a text, a query
        /// parameter or a header (which can repeat) equals no single value (`differing` is the answer then):
        /// templates compare its first, `request.query.x.[0]`; and `request.method` (WireMock's `RequestMethod`)
        /// equals no text, so that `{{#eq request.method 'GET'}}` takes its else branch, as in WireMock 2 and 3
        /// (compare `(lower request.method)` with 'get', or use `request.method` in `matches`).
        func equality(differing: Bool) -> Helper {
            { _, arguments, _ in
                guard arguments.count >= 2 else { return .bool(false) }
                let left = arguments[0]
                let right = arguments[1]
                if isRepeatable(left) != isRepeatable(right) { return .bool(differing) }
                if RequestMethodValue.isMethod(left) != RequestMethodValue.isMethod(right) { return .bool(differing) }
                if isNumber(left) || isNumber(right) {
                    guard isNumber(left), isNumber(right) else { return .bool(differing) }
                    return .bool((left.number == right.number) != differing)
                }
                return .bool((left.text == right.text) != differing)
            }
        }
        /// An order, as Java's `compareTo`: numbers with numbers, texts with texts. Anything else fails the
        /// response, as WireMock's does (a `ClassCastException`, 500): compare `request.query.x.[0]`, or convert.
        func order(_ name: String, _ test: @escaping @Sendable (Int) -> Bool) -> Helper {
            { renderer, arguments, _ in
                guard arguments.count >= 2 else { return renderer.fail("\(name) needs two values to compare") }
                let left = arguments[0]
                let right = arguments[1]
                if isNumber(left), isNumber(right), let a = left.number, let b = right.number {
                    return .bool(test(a < b ? -1 : (a > b ? 1 : 0)))
                }
                if case .string(let a) = left, case .string(let b) = right {
                    return .bool(test(a < b ? -1 : (a > b ? 1 : 0)))
                }
                return renderer.fail(
                    "\(name) cannot compare \(kind(of: left)) with \(kind(of: right)): compare two numbers or two "
                        + "texts (a query parameter or header is a list: its first is request.query.name.[0])")
            }
        }
        table["eq"] = equality(differing: false)
        table["neq"] = equality(differing: true)
        table["ne"] = table["neq"]
        table["gt"] = order("gt") { $0 > 0 }
        table["gte"] = order("gte") { $0 >= 0 }
        table["lt"] = order("lt") { $0 < 0 }
        table["lte"] = order("lte") { $0 <= 0 }
        table["and"] = { _, arguments, _ in .bool(!arguments.isEmpty && arguments.allSatisfy(\.isTruthy)) }
        table["or"] = { _, arguments, _ in .bool(arguments.contains(where: \.isTruthy)) }
        table["not"] = { _, arguments, _ in .bool(!(arguments.first?.isTruthy ?? false)) }
        table["contains"] = { _, arguments, _ in
            guard arguments.count >= 2 else { return .bool(false) }
            let needle = arguments[1].text
            switch arguments[0] {
            case .array, .multi: return .bool(arguments[0].items.contains { $0.value.text == needle })
            default: return .bool(arguments[0].text.contains(needle))
            }
        }
        table["matches"] = { _, arguments, _ in
            guard arguments.count >= 2, let regex = CompiledRegex.compiled(arguments[1].text) else {
                return .bool(false)
            }
            return .bool(regex.matchesWhole(arguments[0].text))
        }
    }

    // MARK: - Text

    private static func addStrings(to table: inout [String: Helper]) {
        table["upper"] = { _, arguments, _ in .string((arguments.first.map(javaText) ?? "").uppercased()) }
        table["lower"] = { _, arguments, _ in .string((arguments.first.map(javaText) ?? "").lowercased()) }
        table["trim"] = { _, arguments, _ in
            .string((arguments.first?.text ?? "").trimmingCharacters(in: .whitespacesAndNewlines))
        }
        table["abbreviate"] = { renderer, arguments, _ in
            let text = arguments.first?.text ?? ""
            guard arguments.count >= 2, case .int(let width) = arguments[1] else {
                return renderer.fail("abbreviate needs a text and a whole number, such as {{abbreviate text 20}}")
            }
            // Commons Lang refuses a width under 4 whatever the text.
            guard width >= 4 else { return renderer.fail("abbreviate's width is \(width): the minimum is 4") }
            guard text.count > width else { return .string(text) }
            return .string(String(text.prefix(width - 3)) + "...")
        }
        table["replace"] = { _, arguments, _ in
            guard arguments.count >= 3 else { return .string(arguments.first?.text ?? "") }
            return .string(arguments[0].text.replacingOccurrences(of: arguments[1].text, with: arguments[2].text))
        }
        table["substring"] = { renderer, arguments, _ in
            let text = Array(arguments.first?.text ?? "")
            let start = arguments.count > 1 ? arguments[1].integer ?? -1 : 0
            let end = arguments.count > 2 ? arguments[2].integer ?? -1 : text.count
            guard start >= 0, start <= end, end <= text.count else {
                return renderer.fail("substring \(start) to \(end) is outside a text of \(text.count) characters")
            }
            return .string(String(text[start..<end]))
        }
        table["size"] = { _, arguments, _ in
            guard let value = arguments.first else { return .int(0) }
            switch value {
            case .array(let items): return .int(items.count)
            case .object(let members): return .int(members.count)
            case .multi(let values): return .int(values.count)
            case .lazy(let object as JSONData):
                return .int(object.items.count)
            case .lazy(let object): return .int(object.items.count)
            default: return .int(value.text.count)
            }
        }
        table["join"] = { renderer, arguments, options in
            // Handlebars.java's: `{{join list ', '}}`, or `{{join a b c ', '}}`: the last argument is the separator.
            guard let context = arguments.first, !isFalsy(context) else { return .string("") }
            guard arguments.count >= 2 else {
                return renderer.fail("join needs a separator, its last argument: {{join list ', '}}")
            }
            guard case .string(let separator) = arguments[arguments.count - 1] else {
                return renderer.fail("join's last argument is its separator, and must be a text: {{join list ', '}}")
            }
            let items = isList(context) ? context.items.map(\.value) : Array(arguments.dropLast())
            // The prefix and suffix wrap the whole text, not each item.
            let prefix = options["prefix"]?.text ?? ""
            let suffix = options["suffix"]?.text ?? ""
            return .string(prefix + items.map(\.text).joined(separator: separator) + suffix)
        }
        table["base64"] = { renderer, arguments, options in
            let text = arguments.first?.text ?? ""
            if options["decode"]?.isTruthy == true {
                var padded = text.trimmingCharacters(in: .whitespacesAndNewlines)
                while padded.count % 4 != 0 { padded += "=" }
                guard let data = Data(base64Encoded: padded) else {
                    return renderer.fail("base64 cannot decode \"\(text.prefix(100))\": it is not base64")
                }
                return .string(String(decoding: data, as: UTF8.self))
            }
            var encoded = Data(text.utf8).base64EncodedString()
            if options["padding"].map({ !$0.isTruthy }) == true {
                while encoded.hasSuffix("=") { encoded.removeLast() }
            }
            return .string(encoded)
        }
        table["urlEncode"] = { _, arguments, options in
            let text = arguments.first?.text ?? ""
            if options["decode"]?.isTruthy == true {
                return .string(PercentEncoding.decodeForm(text))
            }
            // As Java's URLEncoder: letters, digits and `.-*_` stay, a space is `+`.
            var allowed = CharacterSet.alphanumerics.intersection(
                CharacterSet(charactersIn: Unicode.Scalar(0)..<"\u{80}"))
            allowed.insert(charactersIn: ".-*_ ")
            let encoded = text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
            return .string(encoded.replacingOccurrences(of: " ", with: "+"))
        }
        table["regexExtract"] = { renderer, arguments, options in
            guard arguments.count >= 2, let regex = CompiledRegex.compiled(arguments[1].text) else {
                return .string("[ERROR: regexExtract needs a text and a valid regular expression]")
            }
            let text = arguments[0].text
            let range = NSRange(text.startIndex..., in: text)
            guard let match = regex.find.firstMatch(in: text, range: range) else {
                if let fallback = options["default"] { return fallback }
                return .string("[ERROR: Nothing matched \(arguments[1].text)]")
            }
            if arguments.count >= 3 {
                // Groups into a variable: `{{regexExtract text '(a)(b)' 'parts'}}{{parts.0}}`.
                let groups = (1..<max(match.numberOfRanges, 1)).compactMap { index -> TemplateValue? in
                    Range(match.range(at: index), in: text).map { .string(String(text[$0])) }
                }
                renderer.assign(arguments[2].text, .array(groups))
                return .string("")
            }
            return .string(Range(match.range, in: text).map { String(text[$0]) } ?? "")
        }
        table["val"] = { renderer, arguments, options in
            let value =
                arguments.first.flatMap { isNull($0) ? nil : $0 } ?? options["or"] ?? options["default"] ?? .null
            if let name = options["assign"] {
                renderer.assign(name.text, value)
                return .null
            }
            return value
        }
        table["math"] = { renderer, arguments, _ in
            // Java's BigDecimal, as WireMock's: `0.1 + 0.2` is 0.3, a quotient keeps the scale of the number
            // divided (rounded half up: `7 / 2` is 4, `7.0 / 2` is 3.5), and what is not a number counts as 0.
            guard arguments.count >= 3 else {
                return renderer.fail("math needs a number, an operator and a number, such as {{math 1 '+' 2}}")
            }
            if let a = arguments[0].number, let b = arguments[2].number,
                !a.isFinite || !b.isFinite || max(abs(a), abs(b)) >= 1e38
            {
                // Beyond what a Decimal holds exactly: as doubles.
                switch arguments[1].text {
                case "+": return .double(a + b)
                case "-": return .double(a - b)
                case "*": return .double(a * b)
                case "/" where b != 0: return .double(a / b)
                case "%" where b != 0: return .double(a.truncatingRemainder(dividingBy: b))
                case "/", "%": return renderer.fail("math divides \(arguments[0].text) by zero")
                default: return .error("math's operator \"\(arguments[1].text)\" is not one of + - * / %")
                }
            }
            let left = ScaledDecimal(arguments[0])
            let right = ScaledDecimal(arguments[2])
            let result: ScaledDecimal
            switch arguments[1].text {
            case "+": result = ScaledDecimal(left.value + right.value, scale: max(left.scale, right.scale))
            case "-": result = ScaledDecimal(left.value - right.value, scale: max(left.scale, right.scale))
            case "*": result = ScaledDecimal(left.value * right.value, scale: left.scale + right.scale)
            case "/", "%":
                guard !right.value.isZero else { return renderer.fail("math divides \(left.text) by zero") }
                if arguments[1].text == "/" {
                    result = ScaledDecimal(
                        (left.value / right.value).rounded(scale: left.scale, mode: .plain), scale: left.scale)
                } else {
                    // Truncated toward zero, as Java's remainder.
                    let whole = (left.value.magnitude / right.value.magnitude).rounded(scale: 0, mode: .down)
                    let quotient = (left.value < 0) != (right.value < 0) ? -whole : whole
                    result = ScaledDecimal(left.value - quotient * right.value, scale: max(left.scale, right.scale))
                }
            default:
                return .error("math's operator \"\(arguments[1].text)\" is not one of + - * / %")
            }
            return result.templateValue
        }
    }

    static func isList(_ value: TemplateValue) -> Bool {
        switch value {
        case .array, .multi: true
        case .lazy(let object): object is JSONData && !object.items.isEmpty
        default: false
        }
    }

    private static func isRepeatable(_ value: TemplateValue) -> Bool {
        if case .multi = value { return true }
        return false
    }

    /// A value's text as Java's `toString` writes it (`TRUE` for `upper true` starts from `true`).
    static func javaText(_ value: TemplateValue) -> String { value.text }

    static func isNumber(_ value: TemplateValue) -> Bool {
        switch value {
        case .int, .double: true
        default: false
        }
    }

    /// What a value is, in words, for errors.
    static func kind(of value: TemplateValue) -> String {
        switch value {
        case .null: "nothing"
        case .bool: "a boolean"
        case .int, .double: "a number"
        case .string: "a text"
        case .array, .lazy: "a list or an object"
        case .object: "an object"
        case .multi: "a query parameter or header (a list)"
        }
    }

    static func isNull(_ value: TemplateValue) -> Bool {
        if case .null = value { return true }
        return false
    }

}

/// What helpers compile from text (regular expressions, JSONPath expressions), kept by that text: templates
/// give the same few on every request. At most 1,000 of each are kept.
final class CompiledCache<Value: Sendable>: Sendable {
    private let cache = Locked([String: Value]())

    /// The value compiled from `text`, compiled now unless kept; `nil` when it does not compile.
    func value(for text: String, compile: (String) -> Value?) -> Value? {
        if let cached = cache.withLock({ $0[text] }) { return cached }
        guard let value = compile(text) else { return nil }
        cache.withLock { cache in
            if cache.count > 1_000 { cache.removeAll() }
            cache[text] = value
        }
        return value
    }
}

/// A pattern compiled to match whole texts (`matches`) and to find a part (`regexExtract`).
struct CompiledRegex: @unchecked Sendable {  // NSRegularExpression is immutable
    let whole: NSRegularExpressionBox
    let find: NSRegularExpression

    func matchesWhole(_ text: String) -> Bool { whole.matchesWhole(text) }

    static let cache = CompiledCache<CompiledRegex>()

    /// The pattern, compiled (once), or `nil` when it does not compile.
    static func compiled(_ pattern: String) -> CompiledRegex? {
        cache.value(for: pattern) { pattern in
            guard let find = try? NSRegularExpression(pattern: pattern),
                let whole = try? NSRegularExpressionBox(wholeMatch: pattern)
            else { return nil }
            return CompiledRegex(whole: whole, find: find)
        }
    }
}
