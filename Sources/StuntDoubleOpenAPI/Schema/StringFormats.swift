import Foundation

/// The string formats the contract checks and generates; any other format is not checked (as JSON Schema
/// says: formats are annotations unless a validator knows them).
enum StringFormats {
    static func conforms(_ text: String, to format: String) -> Bool {
        switch format {
        case "date-time": isDateTime(text)
        case "date": isDate(text[...])
        case "time": isTime(text[...])
        case "email": isEmail(text)
        case "uuid": UUID(uuidString: text) != nil
        case "uri", "url": isURI(text)
        case "hostname": isHostname(text)
        case "ipv4": isIPv4(text)
        case "ipv6": isIPv6(text)
        case "byte": isBase64(text)
        default: true
        }
    }

    /// A value of a format made from a random number, or `nil` for formats this does not know.
    static func sample(_ format: String, random: UInt64) -> String? {
        switch format {
        case "date-time":
            let date = dateParts(random)
            return
                "\(date)T\(two(Int(random >> 20) % 24)):\(two(Int(random >> 25) % 60)):\(two(Int(random >> 31) % 60))Z"
        case "date": return dateParts(random)
        case "time":
            return "\(two(Int(random >> 20) % 24)):\(two(Int(random >> 25) % 60)):\(two(Int(random >> 31) % 60))Z"
        case "email": return "user\(random % 1000)@example.com"
        case "uuid":
            var bytes = [UInt8](repeating: 0, count: 16)
            var state = random
            for index in bytes.indices {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                bytes[index] = UInt8(truncatingIfNeeded: state >> 56)
            }
            bytes[6] = (bytes[6] & 0x0F) | 0x40
            bytes[8] = (bytes[8] & 0x3F) | 0x80
            let uuid = UUID(
                uuid: (
                    bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                    bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
                ))
            return uuid.uuidString.lowercased()
        case "uri", "url": return "https://example.com/resources/\(random % 10_000)"
        case "hostname": return "host\(random % 1000).example.com"
        case "ipv4": return "192.0.2.\(random % 255)"
        case "ipv6": return "2001:db8::\(String(random % 0xFFFF, radix: 16))"
        case "byte": return Data("sample\(random % 1000)".utf8).base64EncodedString()
        default: return nil
        }
    }

    private static func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    private static func dateParts(_ random: UInt64) -> String {
        "\(2000 + Int(random % 30))-\(two(1 + Int(random >> 8) % 12))-\(two(1 + Int(random >> 12) % 28))"
    }

    private static func digits(_ text: Substring, _ count: Int) -> Int? {
        guard text.count == count, text.allSatisfy(\.isASCII), text.allSatisfy(\.isNumber) else { return nil }
        return Int(text)
    }

    static func isDate(_ text: Substring) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, digits(parts[0], 4) != nil, let month = digits(parts[1], 2),
            let day = digits(parts[2], 2)
        else { return false }
        return (1...12).contains(month) && (1...31).contains(day)
    }

    static func isTime(_ text: Substring) -> Bool {
        // hh:mm:ss(.fraction)?(Z|±hh:mm)
        var body = text
        if body.hasSuffix("Z") || body.hasSuffix("z") {
            body = body.dropLast()
        } else if body.count > 6, let sign = body.suffix(6).first, sign == "+" || sign == "-" {
            // ±hh:mm, the last six characters.
            let parts = body.suffix(5).split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, let hours = digits(parts[0], 2), let minutes = digits(parts[1], 2),
                hours < 24, minutes < 60
            else { return false }
            body = body.dropLast(6)
        } else {
            return false
        }
        if let dot = body.firstIndex(of: ".") {
            let fraction = body[body.index(after: dot)...]
            guard !fraction.isEmpty, fraction.allSatisfy({ $0.isASCII && $0.isNumber }) else { return false }
            body = body[..<dot]
        }
        let parts = body.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, let hour = digits(parts[0], 2), let minute = digits(parts[1], 2),
            let second = digits(parts[2], 2)
        else { return false }
        return hour < 24 && minute < 60 && second <= 60
    }

    static func isDateTime(_ text: String) -> Bool {
        guard let separator = text.firstIndex(where: { $0 == "T" || $0 == "t" || $0 == " " }) else { return false }
        return isDate(text[..<separator]) && isTime(text[text.index(after: separator)...])
    }

    /// RFC 5321's mailbox, as JSON Schema's `email` means it: a local part of at most 64 bytes (a dot-atom, or a
    /// quoted string), `@`, and a host name or an address literal (`[192.0.2.1]`, `[IPv6:2001:db8::1]`).
    private static func isEmail(_ text: String) -> Bool {
        guard let at = text.lastIndex(of: "@") else { return false }
        let local = text[..<at]
        let domain = text[text.index(after: at)...]
        guard !local.isEmpty, local.utf8.count <= 64, !domain.isEmpty else { return false }
        if local.hasPrefix("\""), local.hasSuffix("\""), local.count >= 2 {
            guard local.dropFirst().dropLast().allSatisfy({ $0.isASCII && $0 != "\n" && $0 != "\r" }) else {
                return false
            }
        } else {
            let atext = "!#$%&'*+-/=?^_`{|}~"
            let atoms = local.split(separator: ".", omittingEmptySubsequences: false)
            guard
                atoms.allSatisfy({ atom in
                    !atom.isEmpty
                        && atom.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || atext.contains($0)) }
                })
            else { return false }
        }
        if domain.hasPrefix("["), domain.hasSuffix("]") {
            let literal = domain.dropFirst().dropLast()
            return literal.hasPrefix("IPv6:") ? isIPv6(String(literal.dropFirst(5))) : isIPv4(String(literal))
        }
        return isHostname(String(domain))
    }

    private static func isURI(_ text: String) -> Bool {
        guard let colon = text.firstIndex(of: ":"), colon > text.startIndex, !text.contains(" ") else { return false }
        let scheme = text[..<colon]
        return scheme.first?.isLetter == true
            && scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
    }

    private static func isHostname(_ text: String) -> Bool {
        guard !text.isEmpty, text.utf8.count <= 253 else { return false }
        return text.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            !label.isEmpty && label.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        }
    }

    private static func isIPv4(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4
            && parts.allSatisfy { part in
                guard (1...3).contains(part.count), part.allSatisfy({ $0.isASCII && $0.isNumber }),
                    let value = Int(part)
                else { return false }
                return value <= 255 && (part.count == 1 || part.first != "0")
            }
    }

    private static func isIPv6(_ text: String) -> Bool {
        guard text.contains(":"), text.count <= 45 else { return false }
        var address = in6_addr()
        return inet_pton(AF_INET6, text, &address) == 1
    }

    private static func isBase64(_ text: String) -> Bool {
        Data(base64Encoded: text) != nil
            || Data(
                base64Encoded: text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
                    + String(repeating: "=", count: (4 - text.count % 4) % 4)) != nil
    }
}
