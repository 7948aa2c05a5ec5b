import StuntDouble
import StuntDoubleWireMock

/// Writes a string that a regular expression probably matches: literals, `.`, classes (`[a-z0-9_]`, `\d`,
/// `\w`, `\s`; negated ones such as `[^,]`), groups, alternation and quantifiers. Look-arounds and
/// back-references are not understood; the caller checks the result against the expression and falls back when
/// it does not match.
struct PatternSampler {
    private let scalars: [Unicode.Scalar]
    private var position = 0
    private var random: SeededGenerator
    private var output = ""
    /// Atoms left to write: `(((){10000}){10000}){10000}` writes nothing a trillion times.
    private var steps = 0

    init(pattern: String, random: SeededGenerator) {
        scalars = Array(pattern.unicodeScalars)
        self.random = random
    }

    mutating func sample() -> String? {
        position = 0
        output = ""
        steps = 0
        guard alternation(depth: 0) else { return nil }
        return position == scalars.count ? output : nil
    }

    private var current: Unicode.Scalar? { position < scalars.count ? scalars[position] : nil }

    /// `a|b|c` at one level: one branch is drawn, the others are skipped.
    private mutating func alternation(depth: Int) -> Bool {
        guard depth < 16 else { return false }
        var branches: [Int] = [position]
        var level = 0
        var index = position
        var inClass = false
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "\\" {
                index += 2
                continue
            }
            if inClass {
                if scalar == "]" { inClass = false }
            } else if scalar == "[" {
                inClass = true
            } else if scalar == "(" {
                level += 1
            } else if scalar == ")" {
                if level == 0 { break }
                level -= 1
            } else if scalar == "|", level == 0 {
                branches.append(index + 1)
            }
            index += 1
        }
        let end = index
        let chosen = branches[Int(random.next() % UInt64(branches.count))]
        position = chosen
        let branchEnd = branches.first { $0 > chosen }.map { $0 - 1 } ?? end
        while position < branchEnd {
            guard term(depth: depth) else { return false }
        }
        position = end
        return true
    }

    /// One atom and its quantifier.
    private mutating func term(depth: Int) -> Bool {
        guard let scalar = current else { return false }
        if scalar == "^" || scalar == "$" {
            position += 1
            return true
        }
        let start = position
        guard skipAtom() else { return false }
        let atomEnd = position
        var (low, high) = (1, 1)
        if let quantifier = current {
            switch quantifier {
            case "?": (low, high) = (0, 1); position += 1
            case "*": (low, high) = (0, 3); position += 1
            case "+": (low, high) = (1, 3); position += 1
            case "{":
                guard let (from, to) = readBraces(), from >= 0, to >= from, from <= Self.maximumLength else {
                    return false
                }
                (low, high) = (from, min(to, from + 3))
            default: break
            }
            if current == "?" || current == "+" { position += 1 }
        }
        let afterQuantifier = position
        let count = low + Int(random.next() % UInt64(high - low + 1))
        for _ in 0..<count {
            position = start
            // `((a{1000}){1000}){1000}` would be a billion characters: give up instead.
            guard output.unicodeScalars.count <= Self.maximumLength, emitAtom(until: atomEnd, depth: depth) else {
                return false
            }
        }
        position = afterQuantifier
        return true
    }

    private mutating func readBraces() -> (Int, Int)? {
        var index = position + 1
        var text = ""
        while index < scalars.count, scalars[index] != "}" {
            text.unicodeScalars.append(scalars[index])
            index += 1
        }
        guard index < scalars.count else { return nil }
        position = index + 1
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard let low = Int(parts[0]) else { return nil }
        if parts.count == 1 { return (low, low) }
        return (low, parts[1].isEmpty ? low + 3 : Int(parts[1]) ?? low)
    }

    /// Moves past one atom without writing it.
    private mutating func skipAtom() -> Bool {
        guard let scalar = current else { return false }
        switch scalar {
        case "\\": position += 2
        case "[":
            position += 1
            if current == "^" { position += 1 }
            if current == "]" { position += 1 }
            while let next = current, next != "]" { position += next == "\\" ? 2 : 1 }
            guard current == "]" else { return false }
            position += 1
        case "(":
            var level = 0
            while let next = current {
                if next == "\\" { position += 2; continue }
                if next == "(" { level += 1 }
                if next == ")" {
                    level -= 1
                    if level == 0 { break }
                }
                position += 1
            }
            guard current == ")" else { return false }
            position += 1
        case ")", "|", "*", "+", "?", "{": return false
        default: position += 1
        }
        return position <= scalars.count
    }

    private mutating func emitAtom(until end: Int, depth: Int) -> Bool {
        steps += 1
        guard steps <= 100_000, let scalar = current else { return false }
        switch scalar {
        case "\\":
            guard position + 1 < scalars.count else { return false }
            let escaped = scalars[position + 1]
            switch escaped {
            case "d": emit(from: Array("0123456789".unicodeScalars))
            case "w": emit(from: Self.word)
            case "s": output += " "
            case "D", "W", "S", "b", "B": return false
            default: output.unicodeScalars.append(escaped)
            }
        case "[": return emitClass(until: end)
        case "(":
            position += 1
            if current == "?" {
                guard position + 1 < scalars.count, scalars[position + 1] == ":" else { return false }
                position += 2
            }
            guard alternation(depth: depth + 1), current == ")" else { return false }
        case ".": emit(from: Self.word)
        default: output.unicodeScalars.append(scalar)
        }
        position = end
        return true
    }

    private mutating func emitClass(until end: Int) -> Bool {
        var index = position + 1
        // `[^...]`: any of letters, digits and a few marks that the class does not name.
        let isNegated = index < end && scalars[index] == "^"
        if isNegated { index += 1 }
        var choices: [Unicode.Scalar] = []
        while index < end - 1 {
            var scalar = scalars[index]
            if scalar == "\\", index + 1 < end - 1 {
                index += 1
                switch scalars[index] {
                case "d": choices += Array("0123456789".unicodeScalars)
                case "w": choices += Self.word
                case "s": choices.append(" ")
                default: choices.append(scalars[index])
                }
                index += 1
                continue
            }
            if index + 2 < end - 1, scalars[index + 1] == "-" {
                let last = scalars[index + 2]
                guard scalar.value <= last.value, last.value - scalar.value < 4096 else { return false }
                while scalar.value <= last.value {
                    choices.append(scalar)
                    guard let next = Unicode.Scalar(scalar.value + 1) else { break }
                    scalar = next
                }
                index += 3
                continue
            }
            choices.append(scalar)
            index += 1
        }
        if isNegated {
            let excluded = Set(choices)
            choices = (Self.word + [" ", "-", ".", "~"]).filter { !excluded.contains($0) }
        }
        guard !choices.isEmpty else { return false }
        emit(from: choices)
        position = end
        return true
    }

    private mutating func emit(from choices: [Unicode.Scalar]) {
        output.unicodeScalars.append(choices[Int(random.next() % UInt64(choices.count))])
    }

    /// The longest sample made; longer patterns fall back to a plain string.
    static let maximumLength = 10_000

    private static let word = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_".unicodeScalars)
}
