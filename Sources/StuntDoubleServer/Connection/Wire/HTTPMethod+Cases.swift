import NIOHTTP1

extension NIOHTTP1.HTTPMethod {
    /// Whether the method is `method`: for the usual methods their cases compared, for any other the texts (as
    /// `==` compares, which builds both methods' texts: 50 instructions, several times a request).
    @inline(__always)
    func isMethod(_ method: NIOHTTP1.HTTPMethod) -> Bool {
        if let number = usualNumber, let other = method.usualNumber { return number == other }
        return self == method
    }

    /// A number for each usual method's case, or `nil` (another case, or a method kept as text).
    private var usualNumber: Int? {
        switch self {
        case .GET: 1
        case .HEAD: 2
        case .POST: 3
        case .PUT: 4
        case .DELETE: 5
        case .PATCH: 6
        case .OPTIONS: 7
        case .CONNECT: 8
        default: nil
        }
    }
}
