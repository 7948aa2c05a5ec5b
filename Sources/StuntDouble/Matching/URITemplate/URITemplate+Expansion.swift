extension URITemplate {
    /// Expands the template with the given variables (RFC 6570 section 3).
    ///
    /// Missing variables, empty lists and empty pairs are undefined: their expressions expand to nothing.
    /// - Parameter variables: The variables' values by name.
    /// - Returns: The expanded URI.
    public func expand(_ variables: [String: Value]) -> String {
        var output = ""
        for part in parts {
            switch part {
            case .literal(let literal):
                output += literal
            case .expression(let expression):
                output += Self.expand(expression, variables)
            }
        }
        return output
    }

    private static func expand(_ expression: Expression, _ variables: [String: Value]) -> String {
        let op = expression.op
        var pieces: [String] = []
        for variable in expression.variables {
            guard let value = variables[variable.name], let piece = expand(variable, value, op) else { continue }
            pieces.append(piece)
        }
        return pieces.isEmpty ? "" : op.first + pieces.joined(separator: op.separator)
    }

    private static func expand(_ variable: Variable, _ value: Value, _ op: Operator) -> String? {
        let encode = { (text: String) in PercentEncoding.encode(text, allowReserved: op.allowsReserved) }
        let name = variable.name
        switch value {
        case .string(var text):
            if let prefix = variable.prefix {
                text = String(text.prefix(prefix))
            }
            guard op.isNamed else { return encode(text) }
            return text.isEmpty ? name + op.ifEmpty : name + "=" + encode(text)
        case .list(let items):
            guard !items.isEmpty else { return nil }
            if variable.explode {
                return items.map { item in
                    guard op.isNamed else { return encode(item) }
                    return item.isEmpty ? name + op.ifEmpty : name + "=" + encode(item)
                }.joined(separator: op.separator)
            }
            let joined = items.map(encode).joined(separator: ",")
            return op.isNamed ? name + "=" + joined : joined
        case .associative(let pairs):
            guard !pairs.isEmpty else { return nil }
            if variable.explode {
                return pairs.map { pair in
                    op.isNamed && pair.value.isEmpty
                        ? encode(pair.key) + op.ifEmpty : encode(pair.key) + "=" + encode(pair.value)
                }.joined(separator: op.separator)
            }
            let joined = pairs.flatMap { [encode($0.key), encode($0.value)] }.joined(separator: ",")
            return op.isNamed ? name + "=" + joined : joined
        }
    }
}
