/// Stubs in precedence order, lowest first (so the usual insertion, the newest stub, is an append).
struct Bucket: Sendable {
    private(set) var entries: [RegisteredStub] = []

    var isEmpty: Bool { entries.isEmpty }

    mutating func insert(_ entry: RegisteredStub) {
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entry.precedes(entries[middle]) {
                low = middle + 1
            } else {
                high = middle
            }
        }
        entries.insert(entry, at: low)
    }

    mutating func remove(_ id: UInt64) {
        if let index = entries.lastIndex(where: { $0.stub.id == id }) {
            entries.remove(at: index)
        }
    }
}

/// URI template stubs by the complete path segments of their literal prefix.
struct TemplateTrie: Sendable {
    var bucket = Bucket()
    /// Keyed by `String`: most segments are short enough to be stored inline, so comparing keys reads no
    /// other memory (a cache miss per lookup saved when stubs number in the thousands).
    var children: [String: TemplateTrie] = [:]

    var isEmpty: Bool { bucket.isEmpty && children.isEmpty }

    mutating func insert(_ entry: RegisteredStub, at segments: ArraySlice<String>) {
        guard let first = segments.first else {
            bucket.insert(entry)
            return
        }
        children[first, default: TemplateTrie()].insert(entry, at: segments.dropFirst())
    }

    mutating func remove(_ id: UInt64, at segments: ArraySlice<String>) {
        guard let first = segments.first else {
            bucket.remove(id)
            return
        }
        let key = first
        children[key]?.remove(id, at: segments.dropFirst())
        if children[key]?.isEmpty == true {
            children[key] = nil
        }
    }

    /// The buckets on the path of the request's segments: every template whose literal segments are a
    /// prefix of the request's path (`/a/b` walks the root, then `a`, then `b`).
    func collect(path: Substring, into buckets: inout [Bucket]) {
        collect(segmentsOf: path.utf8.first == UInt8(ascii: "/") ? path.dropFirst() : path[...], into: &buckets)
    }

    /// The buckets on the path of a text's `/`-separated segments, from its first character.
    func collect(segmentsOf text: Substring, into buckets: inout [Bucket]) {
        var node = self
        var rest = text
        while true {
            if !node.bucket.isEmpty {
                buckets.append(node.bucket)
            }
            let end = rest.utf8.firstIndex(of: UInt8(ascii: "/")) ?? rest.endIndex
            guard let child = node.children[String(rest[..<end])] else { return }
            node = child
            guard end < rest.endIndex else {
                if !node.bucket.isEmpty { buckets.append(node.bucket) }
                return
            }
            rest = rest[rest.utf8.index(after: end)...]
        }
    }
}
