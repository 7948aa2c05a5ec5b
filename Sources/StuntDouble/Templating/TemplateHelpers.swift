import Foundation

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
        "xPath": "the xPath helper (XML) is not supported yet: extract the value with regexExtract, or serve the stub "
            + "with WireMock",
        "soapXPath": "the soapXPath helper (XML) is not supported yet: extract the value with regexExtract, or "
            + "serve the stub with WireMock",
        "file": "the file helper is not supported yet: use bodyFileName",
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
            guard arguments.count >= 2 else { return .null }
            return arguments[0].member(arguments[1].text) ?? .null
        }
        addComparisons(to: &table)
        addStrings(to: &table)
        addData(to: &table)
        addRandom(to: &table)
        addDates(to: &table)
        return table
    }()

    // MARK: - Comparisons

    private static func addComparisons(to table: inout [String: Helper]) {
        /// A comparison: of numbers when both are, else of texts. As in WireMock 2.35.1, a query parameter or a
        /// header (which can repeat) equals no single value (`differing` is the answer then): templates compare
        /// its first, `request.query.x.[0]`.
        func compare(
            _ test: @escaping @Sendable (Double, Double) -> Bool, text: @escaping @Sendable (String, String) -> Bool,
            differing: Bool = false
        ) -> Helper {
            { _, arguments, _ in
                guard arguments.count >= 2 else { return .bool(false) }
                if isRepeatable(arguments[0]) != isRepeatable(arguments[1]) { return .bool(differing) }
                if let left = arguments[0].number, let right = arguments[1].number { return .bool(test(left, right)) }
                return .bool(text(arguments[0].text, arguments[1].text))
            }
        }
        table["eq"] = compare({ $0 == $1 }, text: { $0 == $1 })
        table["neq"] = compare({ $0 != $1 }, text: { $0 != $1 }, differing: true)
        table["ne"] = table["neq"]
        table["gt"] = compare({ $0 > $1 }, text: { $0 > $1 })
        table["gte"] = compare({ $0 >= $1 }, text: { $0 >= $1 })
        table["lt"] = compare({ $0 < $1 }, text: { $0 < $1 })
        table["lte"] = compare({ $0 <= $1 }, text: { $0 <= $1 })
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
        table["upper"] = { _, arguments, _ in .string((arguments.first?.text ?? "").uppercased()) }
        table["lower"] = { _, arguments, _ in .string((arguments.first?.text ?? "").lowercased()) }
        table["capitalize"] = { _, arguments, _ in
            .string(
                (arguments.first?.text ?? "").split(separator: " ", omittingEmptySubsequences: false).map { word in
                    word.prefix(1).uppercased() + word.dropFirst()
                }.joined(separator: " "))
        }
        table["trim"] = { _, arguments, _ in
            .string((arguments.first?.text ?? "").trimmingCharacters(in: .whitespacesAndNewlines))
        }
        table["abbreviate"] = { _, arguments, _ in
            let text = arguments.first?.text ?? ""
            guard arguments.count >= 2, let width = arguments[1].integer, width >= 4, text.count > width
            else { return .string(text) }
            return .string(String(text.prefix(width - 3)) + "...")
        }
        table["replace"] = { _, arguments, _ in
            guard arguments.count >= 3 else { return .string(arguments.first?.text ?? "") }
            return .string(arguments[0].text.replacingOccurrences(of: arguments[1].text, with: arguments[2].text))
        }
        table["substring"] = { _, arguments, _ in
            let text = Array(arguments.first?.text ?? "")
            let start = arguments.count > 1 ? arguments[1].integer ?? -1 : 0
            let end = arguments.count > 2 ? arguments[2].integer ?? -1 : text.count
            guard start >= 0, start <= end, end <= text.count else {
                return .string("[ERROR: substring \(start) to \(end) is outside a text of \(text.count) characters]")
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
                if case .string(let text) = object.value { return .int(text.count) }
                return .int(object.items.count)
            case .lazy(let object): return .int(object.items.count)
            default: return .int(value.text.count)
            }
        }
        table["join"] = { _, arguments, options in
            // Both orders WireMock's versions use: (list, separator) and (separator, list...).
            if let list = arguments.first, list.items.count > 0 || isList(list) {
                let separator = arguments.count > 1 ? arguments[1].text : ","
                return .string(list.items.map(\.value.text).joined(separator: separator))
            }
            guard let separator = arguments.first else { return .string("") }
            let rest = arguments.dropFirst().flatMap { isList($0) ? $0.items.map(\.value) : [$0] }
            let prefix = options["prefix"]?.text ?? ""
            let suffix = options["suffix"]?.text ?? ""
            return .string(prefix + rest.map(\.text).joined(separator: separator.text) + suffix)
        }
        table["base64"] = { _, arguments, options in
            let text = arguments.first?.text ?? ""
            if options["decode"]?.isTruthy == true {
                var padded = text.trimmingCharacters(in: .whitespacesAndNewlines)
                while padded.count % 4 != 0 { padded += "=" }
                guard let data = Data(base64Encoded: padded) else {
                    return .string("[ERROR: \"\(text)\" is not base64]")
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
        table["val"] = { _, arguments, options in
            if let value = arguments.first, !isNull(value) { return value }
            return options["or"] ?? options["default"] ?? .null
        }
        table["math"] = { _, arguments, _ in
            guard arguments.count >= 3, let left = arguments[0].number, let right = arguments[2].number else {
                return .string("[ERROR: math needs a number, an operator and a number]")
            }
            let integers = isInteger(arguments[0]) && isInteger(arguments[2])
            let result: Double
            switch arguments[1].text {
            case "+": result = left + right
            case "-": result = left - right
            case "*": result = left * right
            case "/":
                guard right != 0 else { return .string("[ERROR: division by zero]") }
                result = left / right
            case "%":
                guard right != 0 else { return .string("[ERROR: division by zero]") }
                result = left.truncatingRemainder(dividingBy: right)
            default:
                return .string("[ERROR: \(arguments[1].text) is not one of + - * / %]")
            }
            if integers, result == result.rounded(), abs(result) < 9e15 { return .int(Int(result)) }
            return .double(result)
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

    static func isNull(_ value: TemplateValue) -> Bool {
        if case .null = value { return true }
        return false
    }

    private static func isInteger(_ value: TemplateValue) -> Bool {
        switch value {
        case .int: true
        case .string(let text): Int(text) != nil
        default: false
        }
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
