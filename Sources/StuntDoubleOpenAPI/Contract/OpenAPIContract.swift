import Foundation
import OpenAPIKit
import OpenAPIKit30
import StuntDouble

/// An OpenAPI document (3.0 or 3.1, JSON or YAML, with `$ref`s to other local files), compiled for answering
/// and checking requests: each operation's parameters, bodies, responses and security, every schema, and the
/// line each rule is written on.
///
/// ```swift
/// let contract = try OpenAPIContract(contentsOf: URL(fileURLWithPath: "openapi.yaml"))
/// let stubber = HTTPStubber()
/// try stubber.load(contract)
/// ```
public struct OpenAPIContract: Sendable {
    /// The document's `info.title`.
    public let title: String
    /// The document's `openapi` version, as written (`3.0.3`, `3.1.0`).
    public let version: String
    /// The main file, as given.
    public let file: String
    /// Every file the document was read from: the main file, then those its `$ref`s name, in the order read
    /// (a server watching them reloads the document when one changes); for a document given as text, the files its
    /// `$ref`s name.
    public let sourceFiles: [URL]
    /// Things in the document that work, but not as it may mean (a pattern this platform cannot read), and each
    /// deviation from the specification it was read with.
    public let warnings: [String]
    /// Where the document breaks the letter of the specification in a way its meaning survives, and how each was
    /// read (with ``Deviations/tolerate``).
    public let deviations: [OpenAPIDeviation]

    /// What becomes of a document that breaks the letter of the specification where its meaning survives (a
    /// server variable's enum listing a number, an operation written as a `$ref`, a 3.0 bound in a 3.1 document):
    /// the deviations real documents have, each read on purpose.
    public enum Deviations: Sendable {
        /// Read as it means, each deviation in ``OpenAPIContract/deviations`` and ``OpenAPIContract/warnings``
        /// (the default).
        case tolerate
        /// Refused, naming each deviation (`serve --strict`).
        case refuse
    }
    let operations: [ContractOperation]
    /// The document's `webhooks` (3.1): requests the API makes that no operation causes.
    let webhooks: [ContractCallback]
    let schemas: SchemaTable
    let router: PathRouter
    /// The servers' URLs, variables at their defaults.
    let serverURLs: [String]

    /// The main file's name, without its folder.
    public var fileName: String { URL(fileURLWithPath: file).lastPathComponent }

    /// The number of operations (a method on a path).
    public var operationCount: Int { operations.count }

    /// `GET /pets (listPets)`, one per operation, in the document's order.
    public var operationTitles: [String] { operations.map(\.title) }

    /// The callbacks the document's operations declare, as `POST /subscriptions (subscribe) → onEvent: POST
    /// {$request.body#/callbackUrl}`, in the document's order: what a server sends after answering them.
    public var callbackTitles: [String] {
        operations.flatMap { operation in
            operation.callbacks.map { callback in
                "\(operation.title) → \(callback.name): \(callback.operation.method.rawValue) \(callback.expression)"
            }
        }
    }

    /// The names of the document's webhooks (OpenAPI 3.1's top-level `webhooks`), which a server fires when asked
    /// (`POST /__admin/stuntdouble/openapi/webhooks/{name}`).
    public var webhookNames: [String] {
        var seen: Set<String> = []
        return webhooks.map(\.name).filter { seen.insert($0).inserted }
    }

    /// Reads and compiles a document.
    /// - Parameters:
    ///   - url: The document: a `.yaml`, `.yml` or `.json` file.
    ///   - deviations: Whether deviations from the specification real documents have are read as they mean (the
    ///     default) or refused.
    /// - Throws: ``OpenAPIContractError`` naming the file, line and what is wrong.
    public init(contentsOf url: URL, deviations: Deviations = .tolerate) throws(OpenAPIContractError) {
        let display = url.isFileURL ? url.relativePath : url.absoluteString
        guard url.isFileURL else {
            throw OpenAPIContractError(
                "\(display): only local files are read (tests must not need the network). Download the document "
                    + "and give its path.")
        }
        self = try Self.onLargeStack {
            () throws(OpenAPIContractError) in
            try OpenAPIContract(
                documents: DocumentSet(mainFile: url, displayName: url.lastPathComponent), file: display,
                deviations: deviations)
        }
    }

    /// Compiles a document given as text (JSON or YAML); `$ref`s to other files are read from `folder`.
    /// - Parameters:
    ///   - text: The document.
    ///   - folder: Where files its `$ref`s name are; the current directory by default.
    ///   - deviations: Whether deviations from the specification are read as they mean (the default) or refused.
    /// - Throws: ``OpenAPIContractError``.
    public init(
        text: String, folder: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath),
        deviations: Deviations = .tolerate
    ) throws(OpenAPIContractError) {
        self = try Self.onLargeStack {
            () throws(OpenAPIContractError) in
            try OpenAPIContract(
                documents: DocumentSet(text: text, name: "openapi", folder: folder), file: "openapi",
                deviations: deviations)
        }
    }

    /// Runs the reading of a document on a thread of its own with a 64 MB stack, and waits for it: parsing and
    /// compiling recurse once per level of nesting, and a test's task may run on a thread whose stack is 512 KB.
    private static func onLargeStack(
        _ body: @escaping @Sendable () throws(OpenAPIContractError) -> OpenAPIContract
    ) throws(OpenAPIContractError) -> OpenAPIContract {
        let result = Locked<Result<OpenAPIContract, OpenAPIContractError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            let outcome = Result { () throws(OpenAPIContractError) in try body() }
            result.withLock { $0 = outcome }
            done.signal()
        }
        thread.stackSize = 64 << 20
        thread.start()
        done.wait()
        guard let outcome = result.withLock({ $0 }) else {
            throw OpenAPIContractError("the document could not be read (its reading thread ended without a result)")
        }
        return try outcome.get()
    }

    private init(documents: DocumentSet, file: String, deviations tolerance: Deviations) throws(OpenAPIContractError) {
        var root = documents.main
        self.file = file
        guard root.isMapping else {
            throw OpenAPIContractError("\(file): an OpenAPI document is an object with openapi, info and paths.")
        }
        guard let version = root["openapi"]?.text else {
            if root["swagger"] != nil {
                throw OpenAPIContractError(
                    "\(file): this is a Swagger 2.0 document; OpenAPI 3.0 or 3.1 is read. Convert it (for example "
                        + "with swagger2openapi) and load the result.")
            }
            throw OpenAPIContractError("\(file): no \"openapi\" field: is this an OpenAPI document?")
        }
        self.version = version
        let isVersion30 = version.hasPrefix("3.0")
        guard isVersion30 || version.hasPrefix("3.1") || version.hasPrefix("3.2") else {
            throw OpenAPIContractError("\(file): openapi \(version) is not read; 3.0, 3.1 and 3.2 are.")
        }
        // The deviations real documents have are repaired first (so that OpenAPIKit's check and the compilers read
        // the same document), or, when refused, found and named.
        documents.repairsAsVersion30 = isVersion30
        var repair = DocumentRepair(documents: documents, isVersion30: isVersion30)
        root = try repair.repairMain(root)
        documents.replaceMain(root)
        if tolerance == .refuse, let first = (repair.deviations + documents.deviations).first {
            let all = repair.deviations + documents.deviations
            throw OpenAPIContractError(
                "\(first.location): the document breaks the OpenAPI specification (refused: strict reading):\n"
                    + all.map { "- \($0)" }.joined(separator: "\n")
                    + "\nFix each, or read the document without --strict to have each read as it means.")
        }
        try Self.checkStructure(of: documents, isVersion30: isVersion30)
        title = root["info"]?["title"]?.text ?? "OpenAPI"
        let schemaCompiler = SchemaCompiler(documents: documents, isVersion30: isVersion30)
        let compiler = ContractCompiler(documents: documents, schemas: schemaCompiler)
        var compiled = try compiler.operations()
        webhooks = try compiler.webhooks()
        sourceFiles = documents.filesOnDisk
        schemas = schemaCompiler.table
        // Examples and defaults that break their own schemas, repaired where the meaning is plain, else left out;
        // then the answers' examples that break theirs, which are not served.
        let valueDeviations = schemas.repairOwnValues() + Self.markBrokenExamples(in: &compiled, schemas: schemas)
        operations = compiled
        // Files read while compiling were repaired as they came.
        // In file order (the main file first), then by line and column.
        let fileOrder = Dictionary(
            documents.files.enumerated().map { ($1.displayName, $0) }, uniquingKeysWith: { first, _ in first })
        var seen: Set<String> = []
        deviations = (repair.deviations + documents.deviations + valueDeviations).filter {
            seen.insert($0.description).inserted
        }.sorted {
            let (left, right) = (fileOrder[$0.location.file] ?? 0, fileOrder[$1.location.file] ?? 0)
            return (left, $0.location.line, $0.location.column) < (right, $1.location.line, $1.location.column)
        }
        let lateDeviations = documents.deviations + valueDeviations
        if tolerance == .refuse, let first = lateDeviations.first {
            throw OpenAPIContractError(
                "\(first.location): the document breaks the OpenAPI specification (refused: strict reading):\n"
                    + lateDeviations.map { "- \($0)" }.joined(separator: "\n"))
        }
        warnings = deviations.map { "\($0) (a deviation from the specification, tolerated)" } + schemaCompiler.warnings
        serverURLs =
            root["servers"]?.items.compactMap { server -> String? in
                guard var url = server["url"]?.text else { return nil }
                for (name, variable) in server["variables"]?.members ?? [] {
                    url = url.replacingOccurrences(of: "{\(name)}", with: variable["default"]?.text ?? "")
                }
                return url
            } ?? []
        router = PathRouter(operations: operations, basePaths: Self.basePaths(of: serverURLs))
    }

    /// The paths of the servers' URLs (`https://api.example.com/v1` -> `/v1`).
    private static func basePaths(of urls: [String]) -> [String] {
        urls.map { url -> String in
            let path: Substring
            if let scheme = url.range(of: "://") {
                let afterHost = url[scheme.upperBound...]
                path = afterHost.firstIndex(of: "/").map { afterHost[$0...] } ?? ""
            } else {
                path = url[...]
            }
            let trimmed = path.hasSuffix("/") ? path.dropLast() : path
            return String(trimmed)
        }
    }

    /// Decodes the main file with OpenAPIKit: a document that does not follow the specification is refused
    /// with OpenAPIKit's explanation and the line the problem is on.
    private static func checkStructure(of documents: DocumentSet, isVersion30: Bool) throws(OpenAPIContractError) {
        let data = Data(DocumentRepair.forStructureCheck(documents.main).jsonText.utf8)
        let decoder = JSONDecoder()
        // Vendor extensions (`x-...`) are not read here; decoding them reads every object twice over (a
        // document of 10,000 operations took 6 s with them, most of it there).
        decoder.userInfo[OpenAPIKit.VendorExtensionsConfiguration.enabledKey] = false
        decoder.userInfo[OpenAPIKit30.VendorExtensionsConfiguration.enabledKey] = false
        do {
            if isVersion30 {
                _ = try decoder.decode(OpenAPIKit30.OpenAPI.Document.self, from: data)
            } else {
                _ = try decoder.decode(OpenAPIKit.OpenAPI.Document.self, from: data)
            }
        } catch {
            let readable = OpenAPIKit.OpenAPI.Error(from: error)
            var node = documents.main
            for key in readable.codingPath {
                if let index = key.intValue, node.items.indices.contains(index) {
                    node = node.items[index]
                } else if let next = node[key.stringValue] {
                    node = next
                } else {
                    break
                }
            }
            throw OpenAPIContractError(
                "\(documents.location(of: node)): not a valid OpenAPI \(isVersion30 ? "3.0" : "3.1") document: "
                    + readable.localizedDescription)
        }
    }
}

extension OpenAPIContract {
    /// Marks the examples of answers (JSON ones) that break their schemas, so that the mock does not serve them
    /// unless asked to (``OpenAPIAnswering/servesExamplesAsWritten``): each is a deviation at the example.
    /// - Returns: The deviations, in the operations' order.
    static func markBrokenExamples(in operations: inout [ContractOperation], schemas: SchemaTable)
        -> [OpenAPIDeviation]
    {
        let validator = SchemaValidator(table: schemas, direction: .response)
        var found: [OpenAPIDeviation] = []
        for operation in operations.indices {
            let title = operations[operation].title
            for response in operations[operation].responses.indices {
                let code = operations[operation].responses[response].code
                for content in operations[operation].responses[response].contents.indices {
                    var media = operations[operation].responses[response].contents[content]
                    guard let schema = media.schema, MediaTypes.isJSON(media.name) else { continue }
                    func check(_ value: SchemaValue, _ name: String, _ location: OpenAPISourceLocation) -> Bool {
                        guard let first = validator.validate(value, against: schema, at: "").first else {
                            return false
                        }
                        let place = first.location.isEmpty ? "" : " at \(first.location)"
                        found.append(
                            OpenAPIDeviation(
                                location: location,
                                message: "the \(name) of \(title) \(code) \(media.name) breaks its schema\(place) "
                                    + "(\(first.message)): not served; answers are made from the schema "
                                    + "(--examples-as-written serves it)"))
                        return true
                    }
                    for (position, example) in media.examples.enumerated()
                    where check(example.value, "example \"\(example.name)\"", example.location) {
                        media.brokenExamples.insert(position)
                    }
                    if let example = media.example {
                        media.isExampleBroken = check(example.value, "example", example.location)
                    }
                    operations[operation].responses[response].contents[content] = media
                }
            }
        }
        return found
    }
}
