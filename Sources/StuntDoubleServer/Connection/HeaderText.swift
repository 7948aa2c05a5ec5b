/// Text from input (a stub's name, a diagnostic that quotes a field name) made safe for an HTTP header value.
///
/// Every character outside printable ASCII is written as an escape (`\u{15}`), so that no input can end a header
/// or start another, or make a client refuse the whole response; and the text is cut to a length clients
/// accept.
enum HeaderText {
    /// The longest value written; longer text ends with `...`.
    static let maximumLength = 1024

    /// The text as a header value.
    static func value(_ text: String) -> String {
        let utf8 = text.utf8
        if utf8.count <= maximumLength, utf8.allSatisfy({ (0x20...0x7E).contains($0) }) { return text }
        var output = ""
        for scalar in text.unicodeScalars {
            if output.utf8.count >= maximumLength {
                output += "..."
                break
            }
            if (0x20...0x7E).contains(scalar.value) {
                output.unicodeScalars.append(scalar)
            } else {
                output += "\\u{" + String(scalar.value, radix: 16) + "}"
            }
        }
        return output
    }
}
