import Foundation

/// Why a patch could not be applied: `422` for a patch document that is not one (an unknown `op`, a `path` that
/// is no JSON Pointer), `409` for one that does not fit the resource (a path that is not there, a failed
/// `test`), as RFC 5789 words the two.
struct PatchFailure: Error, Sendable {
    let status: Int
    let message: String
}

extension SchemaValue {
    /// The value with a JSON Merge Patch (RFC 7396) applied: members of an object patch replace or, when
    /// `null`, remove the value's; any other patch replaces the value.
    func mergePatched(with patch: SchemaValue) -> SchemaValue {
        guard case .object(let changes) = patch else { return patch }
        var members: [(String, SchemaValue)] = if case .object(let members) = self { members } else { [] }
        for (name, change) in changes {
            let index = members.firstIndex { $0.0 == name }
            if case .null = change {
                if let index { members.remove(at: index) }
            } else if let index {
                members[index].1 = members[index].1.mergePatched(with: change)
            } else {
                members.append((name, SchemaValue.null.mergePatched(with: change)))
            }
        }
        return .object(members)
    }

    /// The value with a JSON Patch (RFC 6902) applied: every operation in order, or none when one fails.
    func jsonPatched(with patch: SchemaValue) throws(PatchFailure) -> SchemaValue {
        guard case .array(let operations) = patch else {
            throw PatchFailure(status: 422, message: "a JSON Patch is an array of operations")
        }
        var document = self
        for (index, operation) in operations.enumerated() {
            guard case .object = operation, case .string(let op)? = operation["op"] else {
                throw PatchFailure(status: 422, message: "operation \(index) has no op")
            }
            guard case .string(let pathText)? = operation["path"] else {
                throw PatchFailure(status: 422, message: "operation \(index) (\(op)) has no path")
            }
            let path = try Self.pointer(pathText, operation: index)
            func from() throws(PatchFailure) -> [String] {
                guard case .string(let text)? = operation["from"] else {
                    throw PatchFailure(status: 422, message: "operation \(index) (\(op)) has no from")
                }
                return try Self.pointer(text, operation: index)
            }
            func value() throws(PatchFailure) -> SchemaValue {
                guard let value = operation["value"] else {
                    throw PatchFailure(status: 422, message: "operation \(index) (\(op)) has no value")
                }
                return value
            }
            switch op {
            case "add":
                try document.add(try value(), at: path[...], text: pathText)
            case "remove":
                _ = try document.remove(at: path[...], text: pathText)
            case "replace":
                _ = try document.remove(at: path[...], text: pathText)
                try document.add(try value(), at: path[...], text: pathText)
            case "move":
                let source = try from()
                if path.count > source.count, Array(path.prefix(source.count)) == source {
                    throw PatchFailure(status: 422, message: "operation \(index) moves \(pathText) into itself")
                }
                let moved = try document.remove(at: source[...], text: Self.text(of: source))
                try document.add(moved, at: path[...], text: pathText)
            case "copy":
                let source = try from()
                guard let copied = document.value(at: source[...]) else {
                    throw PatchFailure(
                        status: 409, message: "operation \(index): \(Self.text(of: source)) is not there")
                }
                try document.add(copied, at: path[...], text: pathText)
            case "test":
                let expected = try value()
                guard let found = document.value(at: path[...]) else {
                    throw PatchFailure(status: 409, message: "operation \(index): \(pathText) is not there")
                }
                guard found == expected else {
                    throw PatchFailure(
                        status: 409,
                        message: "operation \(index): \(pathText) is \(found.excerpt), not \(expected.excerpt)")
                }
            default:
                throw PatchFailure(
                    status: 422,
                    message:
                        "operation \(index): \"\(op)\" is no JSON Patch op (add, remove, replace, move, copy, test)")
            }
        }
        return document
    }

    /// A JSON Pointer's reference tokens (RFC 6901), `~1` and `~0` read back.
    private static func pointer(_ text: String, operation: Int) throws(PatchFailure) -> [String] {
        guard !text.isEmpty else { return [] }
        guard text.hasPrefix("/") else {
            throw PatchFailure(status: 422, message: "operation \(operation): \"\(text)\" is no JSON Pointer")
        }
        return text.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map {
            $0.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
        }
    }

    private static func text(of tokens: [String]) -> String {
        tokens.map { "/" + $0.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1") }
            .joined()
    }

    /// An array index token: digits without a leading zero.
    private static func index(_ token: String) -> Int? {
        guard !token.isEmpty, token.allSatisfy(\.isASCII), token.allSatisfy(\.isNumber),
            token == "0" || !token.hasPrefix("0")
        else { return nil }
        return Int(token)
    }

    func value(at tokens: ArraySlice<String>) -> SchemaValue? {
        guard let token = tokens.first else { return self }
        switch self {
        case .object: return self[token]?.value(at: tokens.dropFirst())
        case .array(let items):
            guard let index = Self.index(token), index < items.count else { return nil }
            return items[index].value(at: tokens.dropFirst())
        default: return nil
        }
    }

    private mutating func add(_ value: SchemaValue, at tokens: ArraySlice<String>, text: String) throws(PatchFailure) {
        guard let token = tokens.first else {
            self = value
            return
        }
        let rest = tokens.dropFirst()
        switch self {
        case .object(var members):
            let index = members.firstIndex { $0.0 == token }
            if rest.isEmpty {
                if let index { members[index].1 = value } else { members.append((token, value)) }
            } else {
                guard let index else { throw PatchFailure(status: 409, message: "\(text) is not there") }
                try members[index].1.add(value, at: rest, text: text)
            }
            self = .object(members)
        case .array(var items):
            if rest.isEmpty {
                if token == "-" {
                    items.append(value)
                } else if let index = Self.index(token), index <= items.count {
                    items.insert(value, at: index)
                } else {
                    throw PatchFailure(status: 409, message: "\(text) is past the array's end (\(items.count) items)")
                }
            } else {
                guard let index = Self.index(token), index < items.count else {
                    throw PatchFailure(status: 409, message: "\(text) is not there")
                }
                try items[index].add(value, at: rest, text: text)
            }
            self = .array(items)
        default:
            throw PatchFailure(status: 409, message: "\(text) runs through a value that is neither object nor array")
        }
    }

    private mutating func remove(at tokens: ArraySlice<String>, text: String) throws(PatchFailure) -> SchemaValue {
        guard let token = tokens.first else {
            throw PatchFailure(status: 422, message: "the whole resource cannot be removed (path \"\")")
        }
        let rest = tokens.dropFirst()
        switch self {
        case .object(var members):
            guard let index = members.lastIndex(where: { $0.0 == token }) else {
                throw PatchFailure(status: 409, message: "\(text) is not there")
            }
            let removed: SchemaValue
            if rest.isEmpty {
                removed = members.remove(at: index).1
            } else {
                removed = try members[index].1.remove(at: rest, text: text)
            }
            self = .object(members)
            return removed
        case .array(var items):
            guard let index = Self.index(token), index < items.count else {
                throw PatchFailure(status: 409, message: "\(text) is not there")
            }
            let removed: SchemaValue
            if rest.isEmpty {
                removed = items.remove(at: index)
            } else {
                removed = try items[index].remove(at: rest, text: text)
            }
            self = .array(items)
            return removed
        default:
            throw PatchFailure(status: 409, message: "\(text) is not there")
        }
    }
}
