import Foundation

extension SchemaTable {
    /// Schemas whose own `example` or `default` break them (Xero's `'false'` for a boolean, PagerDuty's text for an
    /// integer): a scalar written as text that the schema's only type reads is read so (`'false'` as `false`,
    /// `'20'` as `20`); anything else is left out, so that values are made from the schema instead. Each is a
    /// deviation at the schema.
    /// - Returns: The deviations, in the table's order.
    func repairOwnValues() -> [OpenAPIDeviation] {
        var found: [OpenAPIDeviation] = []
        for (index, schema) in schemas.enumerated() {
            for keyword in ["example", "default"] {
                guard let value = keyword == "example" ? schema.example : schema.defaultValue else { continue }
                let broken = SchemaValidator(table: self, direction: .either).validate(value, against: index, at: "")
                guard let first = broken.first else { continue }
                let fixed = coerced(value, to: types(of: index)).flatMap { candidate in
                    SchemaValidator(table: self, direction: .either).validate(candidate, against: index, at: "")
                        .isEmpty ? candidate : nil
                }
                let reading = fixed.map { "read as \($0.jsonText)" } ?? "left out (values are made from the schema)"
                let what = first.location.isEmpty ? "" : " at \(first.location)"
                found.append(
                    OpenAPIDeviation(
                        location: schema.location,
                        message: "the schema's \(keyword) \(Self.shortened(value.jsonText)) breaks it\(what) "
                            + "(\(first.message)): \(reading)"))
                if keyword == "example" { schema.example = fixed } else { schema.defaultValue = fixed }
            }
        }
        return found
    }

    /// A scalar written as text, as the one scalar type a schema has reads it; `nil` when it does not.
    private func coerced(_ value: SchemaValue, to types: SchemaTypes?) -> SchemaValue? {
        guard case .string(let text) = value, let types else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch types.subtracting(.null) {
        case .boolean where ["true", "false"].contains(trimmed.lowercased()):
            return .bool(trimmed.lowercased() == "true")
        case .integer:
            return Int(trimmed).map { .number(Double($0), text: String($0)) }
        case .number, [.integer, .number]:
            return Double(trimmed).flatMap { $0.isFinite ? .number($0, text: trimmed) : nil }
        default:
            return types.contains(.null) && trimmed == "null" ? .null : nil
        }
    }

    private static func shortened(_ text: String) -> String {
        text.count > 40 ? String(text.prefix(37)) + "..." : text
    }
}
