import Foundation
import StuntDouble

/// Java's `String.format` (as `stringFormat` uses it, in the root locale): `%[index$][flags][width][.precision]`
/// and the conversions `s S d x X o f e E g G b B c C h H % n`. A conversion given the wrong kind of value fails,
/// naming both, as Java's `IllegalFormatConversionException` does.
enum JavaFormat {
    struct Failure: Error {
        let message: String
    }

    /// The largest width or precision written: a million characters, as the `pad` and `range` helpers allow.
    static let maximumSize = 1 << 20

    private struct Specifier {
        var index: Int?
        var flags: Set<Character> = []
        var width: Int?
        var precision: Int?
        var conversion: Character = "s"
    }

    static func format(_ format: String, _ arguments: [TemplateValue]) -> Result<String, Failure> {
        var output = ""
        var characters = format[...]
        var nextArgument = 0
        while let percent = characters.firstIndex(of: "%") {
            output += characters[..<percent]
            characters = characters[characters.index(after: percent)...]
            guard let specifier = parse(&characters) else {
                return .failure(Failure(message: "\"\(format)\" has a % that is not a format specifier"))
            }
            if let size = [specifier.width, specifier.precision].compactMap({ $0 }).max(), size > maximumSize {
                // Java would try to write it (a gigabyte for `%.1111111111f`); a response must not hang on it.
                return .failure(
                    Failure(
                        message: "\"\(format)\" asks for \(size) characters (width or precision); at most "
                            + "\(maximumSize) can be written"))
            }
            switch specifier.conversion {
            case "%":
                output += pad("%", specifier)
                continue
            case "n":
                output += "\n"
                continue
            default:
                break
            }
            let position: Int
            if let index = specifier.index {
                position = index - 1
            } else {
                position = nextArgument
                nextArgument += 1
            }
            guard arguments.indices.contains(position) else {
                return .failure(
                    Failure(message: "\"\(format)\" needs an argument for %\(specifier.conversion) and has none"))
            }
            switch convert(arguments[position], specifier) {
            case .success(let text): output += text
            case .failure(let failure): return .failure(failure)
            }
        }
        output += characters
        return .success(output)
    }

    private static func parse(_ characters: inout Substring) -> Specifier? {
        var specifier = Specifier()
        var digits = ""
        while let character = characters.first, character.isASCII, character.isNumber {
            digits.append(character)
            characters.removeFirst()
        }
        if characters.first == "$", let index = Int(digits) {
            specifier.index = index
            characters.removeFirst()
            digits = ""
        }
        if digits.isEmpty {
            while let character = characters.first, "-#+ 0,(".contains(character) {
                specifier.flags.insert(character)
                characters.removeFirst()
            }
            while let character = characters.first, character.isASCII, character.isNumber {
                digits.append(character)
                characters.removeFirst()
            }
        } else if digits.hasPrefix("0") {
            specifier.flags.insert("0")
            digits.removeFirst()
        }
        // Digits past Int's range are a size past any limit, not no width.
        specifier.width = digits.isEmpty ? nil : Int(digits) ?? .max
        if characters.first == "." {
            characters.removeFirst()
            var precision = ""
            while let character = characters.first, character.isASCII, character.isNumber {
                precision.append(character)
                characters.removeFirst()
            }
            guard !precision.isEmpty else { return nil }
            specifier.precision = Int(precision) ?? .max
        }
        guard let conversion = characters.first, "sSdxXofeEgGbBcChH%n".contains(conversion) else { return nil }
        characters.removeFirst()
        specifier.conversion = conversion
        return specifier
    }

    private static func pad(_ text: String, _ specifier: Specifier) -> String {
        guard let width = specifier.width, text.count < width else { return text }
        let padding = String(repeating: " ", count: width - text.count)
        return specifier.flags.contains("-") ? text + padding : padding + text
    }

    private static func convert(_ value: TemplateValue, _ specifier: Specifier) -> Result<String, Failure> {
        let upper = specifier.conversion.isUppercase
        func mismatch(_ kind: String) -> Result<String, Failure> {
            .failure(
                Failure(
                    message: "%\(specifier.conversion) needs \(kind), and was given \(describe(value))"))
        }
        switch specifier.conversion.lowercased() {
        case "s":
            var text = value.text
            if let precision = specifier.precision { text = String(text.prefix(precision)) }
            return .success(pad(upper ? text.uppercased() : text, specifier))
        case "b":
            let text: String
            switch value {
            case .null: text = "false"
            case .bool(let flag): text = flag ? "true" : "false"
            default: text = "true"
            }
            return .success(pad(upper ? text.uppercased() : text, specifier))
        case "h":
            let text = String(UInt32(truncatingIfNeeded: javaHash(value.text)), radix: 16)
            return .success(pad(upper ? text.uppercased() : text, specifier))
        case "c":
            guard case .int(let code) = value, let scalar = Unicode.Scalar(UInt32(clamping: max(code, 0))) else {
                if case .string(let text) = value, text.count == 1 { return .success(pad(text, specifier)) }
                return mismatch("a character")
            }
            let text = String(Character(scalar))
            return .success(pad(upper ? text.uppercased() : text, specifier))
        case "d":
            guard case .int(let number) = value else { return mismatch("a whole number") }
            return .success(integer(number, specifier))
        case "x", "o":
            guard case .int(let number) = value else { return mismatch("a whole number") }
            // Java writes a negative int in two's complement, at its width (32 bits for an int).
            let bits =
                Int32(exactly: number).map { UInt64(UInt32(bitPattern: $0)) } ?? UInt64(bitPattern: Int64(number))
            var text = String(bits, radix: specifier.conversion.lowercased() == "x" ? 16 : 8)
            if specifier.flags.contains("#") { text = (specifier.conversion.lowercased() == "x" ? "0x" : "0") + text }
            if upper { text = text.uppercased() }
            return .success(zeroPadded(text, sign: "", specifier))
        case "f", "e", "g":
            guard case .double(let number) = value else { return mismatch("a decimal number") }
            return .success(decimal(number, specifier))
        default:
            return mismatch("a value it knows")
        }
    }

    private static func describe(_ value: TemplateValue) -> String {
        switch value {
        case .null: "nothing"
        case .bool(let flag): "the boolean \(flag)"
        case .int(let number): "the whole number \(number)"
        case .double(let number): "the decimal number \(TemplateValue.javaText(number))"
        case .string(let text): "the text \"\(text.prefix(40))\""
        default: "\"\(value.text.prefix(40))\""
        }
    }

    private static func integer(_ number: Int, _ specifier: Specifier) -> String {
        var digits = String(number.magnitude)
        if specifier.flags.contains(",") { digits = grouped(digits) }
        var sign = ""
        if number < 0 {
            sign = specifier.flags.contains("(") ? "(" : "-"
        } else if specifier.flags.contains("+") {
            sign = "+"
        } else if specifier.flags.contains(" ") {
            sign = " "
        }
        let closing = number < 0 && specifier.flags.contains("(") ? ")" : ""
        return zeroPadded(digits + closing, sign: sign, specifier)
    }

    private static func decimal(_ number: Double, _ specifier: Specifier) -> String {
        guard number.isFinite else {
            let text =
                number.isNaN
                ? "NaN"
                : (number < 0
                    ? "-Infinity"
                    : (specifier.flags.contains("+") ? "+" : "")
                        + "Infinity")
            return pad(specifier.conversion.isUppercase ? text.uppercased() : text, specifier)
        }
        let precision = specifier.precision ?? 6
        var body: String
        switch specifier.conversion.lowercased() {
        case "f":
            // Java rounds the double's shortest decimal text half up: %.2f of 1.005 is 1.01.
            let decimal = Decimal(
                string: TemplateValue.javaText(number.magnitude).replacingOccurrences(of: "E", with: "e"))
            body = (decimal ?? Decimal(number.magnitude)).plainText(scale: precision)
            if specifier.flags.contains(",") {
                let parts = body.split(separator: ".", maxSplits: 1)
                body = grouped(String(parts[0])) + (parts.count > 1 ? "." + parts[1] : "")
            }
        case "e":
            body = String(format: "%.\(precision)e", number.magnitude)
        default:
            // Java's %g: scientific below 10^-4 or at or above 10^precision, after rounding.
            let significant = max(precision, 1)
            let magnitude = number.magnitude
            if magnitude != 0 && (magnitude < 1e-4 || magnitude >= pow(10, Double(significant))) {
                body = String(format: "%.\(significant - 1)e", magnitude)
            } else {
                let exponent = magnitude == 0 ? 0 : Int(floor(log10(magnitude)))
                body = Decimal(magnitude).plainText(scale: max(significant - 1 - exponent, 0))
            }
        }
        if specifier.conversion.isUppercase { body = body.uppercased() }
        var sign = ""
        if number.sign == .minus && number != 0 {
            sign = "-"
        } else if specifier.flags.contains("+") {
            sign = "+"
        } else if specifier.flags.contains(" ") {
            sign = " "
        }
        return zeroPadded(body, sign: sign, specifier)
    }

    private static func zeroPadded(_ digits: String, sign: String, _ specifier: Specifier) -> String {
        if specifier.flags.contains("0"), let width = specifier.width, sign.count + digits.count < width {
            return sign + String(repeating: "0", count: width - sign.count - digits.count) + digits
        }
        return pad(sign + digits, specifier)
    }

    private static func grouped(_ digits: String) -> String {
        var result = ""
        for (offset, character) in digits.enumerated() {
            if offset > 0, (digits.count - offset) % 3 == 0 { result.append(",") }
            result.append(character)
        }
        return result
    }

    /// Java's `String.hashCode`.
    private static func javaHash(_ text: String) -> Int32 {
        text.utf16.reduce(Int32(0)) { $0 &* 31 &+ Int32($1) }
    }
}

extension Decimal {
    /// The number written with `scale` digits after the point, rounded half up (as Java's `%f` does).
    func plainText(scale: Int) -> String {
        var text = NSDecimalNumber(decimal: rounded(scale: scale, mode: .plain)).stringValue
        if scale > 0 {
            let fraction = text.split(separator: ".", maxSplits: 1).dropFirst().first?.count ?? 0
            if fraction == 0 { text += "." }
            text += String(repeating: "0", count: scale - fraction)
        }
        return text
    }
}

/// A decimal number with the scale (digits after the point) Java's `BigDecimal` would give it.
struct ScaledDecimal {
    let value: Decimal
    let scale: Int

    init(_ value: Decimal, scale: Int) {
        self.value = value
        self.scale = max(scale, 0)
    }

    /// A template value as `BigDecimal`: its text's digits and scale; what is not a number is 0.
    init(_ template: TemplateValue) {
        let text: String
        switch template {
        case .int(let number): text = String(number)
        case .double(let number): text = TemplateValue.javaText(number)
        default: text = template.text.trimmingCharacters(in: .whitespaces)
        }
        guard let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")),
            text.first.map({ $0.isNumber || $0 == "-" || $0 == "+" || $0 == "." }) == true
        else {
            self.init(0, scale: 0)
            return
        }
        var scale = 0
        let lowered = text.lowercased()
        let mantissa = lowered.split(separator: "e", maxSplits: 1)
        if let point = mantissa[0].firstIndex(of: ".") {
            scale = mantissa[0].distance(from: point, to: mantissa[0].endIndex) - 1
        }
        if mantissa.count > 1, let exponent = Int(mantissa[1]) { scale -= exponent }
        self.init(value, scale: scale)
    }

    /// The number as Java's `BigDecimal.toPlainString` writes it.
    var text: String { value.plainText(scale: scale) }

    /// A whole number when the scale is 0, else a decimal (kept as text when a `Double` would print it otherwise).
    var templateValue: TemplateValue {
        let text = self.text
        if scale == 0, let whole = Int(text) { return .int(whole) }
        if let double = Double(text), TemplateValue.javaText(double) == text { return .double(double) }
        return .string(text)
    }
}

extension Decimal {
    /// The number rounded to `scale` digits after the point (half up, away from zero, unless told otherwise).
    func rounded(scale: Int, mode: NSDecimalNumber.RoundingMode) -> Decimal {
        var value = self
        var result = Decimal()
        NSDecimalRound(&result, &value, scale, mode)
        return result
    }
}
