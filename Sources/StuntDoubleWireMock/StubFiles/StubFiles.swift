import Foundation
import StuntDouble

/// Stub files in WireMock's mapping format, read from a root folder: `mappings/*.json` (each one mapping, or
/// `{"mappings": [...]}`; sub-folders too) and `__files/` for the bodies that `bodyFileName` names.
///
/// Reading never throws: every problem becomes a `StubFileDiagnostic` with its file, line, column and
/// field. Load the mappings into a stubber with `HTTPStubber.load(_:)`, or read and load in one step with
/// `HTTPStubber.load(stubFilesAt:unsupportedFeatures:templating:)`.
///
/// ```swift
/// let files = StubFiles(root: URL(fileURLWithPath: "Tests/Stubs"))
/// for problem in files.diagnostics { print(problem) }   // mappings/users.json:4:7: warning: ...
/// ```
public struct StubFiles: Sendable {
    /// The root folder (the one that holds `mappings/`).
    public let root: URL
    /// Every problem found, in file order.
    public let diagnostics: [StubFileDiagnostic]
    /// The mapping files read, as diagnostics name them, in the order their mappings are added.
    public let files: [String]
    /// The mappings that can be served, in the order they are added (files sorted by path, then in the order
    /// written): at equal priority, the last one added wins.
    package let specs: [MappingSpec]
    /// The message stub mappings (WireMock 4's WebSocket stubs, `message-mappings/*.json`), in file order.
    package let messageSpecs: [MessageMappingSpec]

    /// How many mappings can be served.
    public var mappingCount: Int { specs.count }

    /// How many message stub mappings (from `message-mappings/`) can be served.
    public var messageMappingCount: Int { messageSpecs.count }

    /// The problems that stop the files being served.
    public var errors: [StubFileDiagnostic] { diagnostics.filter { $0.severity == .error } }

    /// The problems that do not stop the files being served, but probably make them serve other than meant.
    public var warnings: [StubFileDiagnostic] { diagnostics.filter { $0.severity == .warning } }

    /// What becomes of a mapping that uses a feature WireMock has and StuntDouble does not support yet (such
    /// as response templating, webhooks, an XPath matcher): never a stub that answers differently.
    public enum UnsupportedFeatures: Sendable {
        /// An error for each such feature: the files are not loaded (the default in Swift, and
        /// `stuntdouble serve --strict`).
        case refuse
        /// A warning for each such feature; the mapping is loaded, and its stub answers `500` with a text naming
        /// each feature with its file, line and column (the default of `stuntdouble serve`, so that one such
        /// stub does not stop a whole root).
        case answerWithError
    }

    /// Which mappings' responses are templates (WireMock's response templating), and what rendering them reads.
    public struct ResponseTemplating: Sendable {
        /// Whether every response is a template, not only those whose `transformers` name `response-template`
        /// (WireMock's `--global-response-templating`).
        public var isGlobal: Bool
        /// The clock and the random source the templates read.
        public var environment: TemplateEnvironment
        /// Whether `{{value}}` is escaped for HTML (`&` as `&amp;`), as WireMock 2 did; WireMock 3 writes values
        /// as they are (`serve --template-html-escaping` escapes).
        public var escapesHTML: Bool
        /// Whether responses are templates at all; off (WireMock 3's `--disable-response-templating`), a
        /// `response-template` transformer is read and does nothing: bodies and headers are served as written.
        public var isEnabled = true

        /// Creates a templating setting.
        /// - Parameters:
        ///   - isGlobal: Whether every response is a template.
        ///   - environment: The clock and the random source the templates read.
        ///   - escapesHTML: Whether `{{value}}` is escaped for HTML, as WireMock 2 did (not WireMock 3).
        public init(isGlobal: Bool = false, environment: TemplateEnvironment = .system, escapesHTML: Bool = false) {
            self.isGlobal = isGlobal
            self.environment = environment
            self.escapesHTML = escapesHTML
        }

        /// The responses whose `transformers` name `response-template` (WireMock 3's default).
        public static let local = ResponseTemplating()
        /// Every response (`--global-response-templating`).
        public static let global = ResponseTemplating(isGlobal: true)
        /// No response (`--disable-response-templating`).
        public static let disabled: ResponseTemplating = {
            var templating = ResponseTemplating()
            templating.isEnabled = false
            return templating
        }()
    }

    /// Reads a root folder: the one holding `mappings/` (a `mappings` folder itself works too; then `__files/`
    /// is its sibling).
    /// - Parameters:
    ///   - root: The folder.
    ///   - unsupportedFeatures: What a mapping that uses a feature StuntDouble lacks becomes.
    ///   - templating: Which responses are templates, and what rendering them reads.
    ///   - extensions: The custom matchers the files may name (`customMatcher`), such as
    ///     `StubFileExtension.graphQL`.
    public init(
        root: URL, unsupportedFeatures: UnsupportedFeatures = .refuse, templating: ResponseTemplating = .local,
        extensions: [StubFileExtension] = []
    ) {
        self.init(
            root: root, displayPath: root.path, unsupportedFeatures: unsupportedFeatures, templating: templating,
            extensions: extensions)
    }

    /// Reads a root folder, naming files in diagnostics from `path` as given (relative paths stay relative).
    /// - Parameters:
    ///   - path: The folder's path.
    ///   - unsupportedFeatures: What a mapping that uses a feature StuntDouble lacks becomes.
    ///   - templating: Which responses are templates, and what rendering them reads.
    ///   - extensions: The custom matchers the files may name (`customMatcher`).
    public init(
        path: String, unsupportedFeatures: UnsupportedFeatures = .refuse, templating: ResponseTemplating = .local,
        extensions: [StubFileExtension] = []
    ) {
        self.init(
            root: URL(fileURLWithPath: path), displayPath: path, unsupportedFeatures: unsupportedFeatures,
            templating: templating, extensions: extensions)
    }

    /// Reads a root folder, naming files in diagnostics from `displayPath` (such as `examples`).
    /// - Parameters:
    ///   - root: The folder.
    ///   - displayPath: How diagnostics and listings name the folder.
    ///   - unsupportedFeatures: What a mapping that uses a feature StuntDouble lacks becomes.
    ///   - templating: Which responses are templates, and what rendering them reads.
    ///   - extensions: The custom matchers the files may name (`customMatcher`).
    public init(
        root: URL, displayPath: String, unsupportedFeatures: UnsupportedFeatures = .refuse,
        templating: ResponseTemplating = .local, extensions: [StubFileExtension] = []
    ) {
        self.init(
            root: root, displayPath: displayPath, unsupportedFeatures: unsupportedFeatures, templating: templating,
            sendsWebhooks: false, extensions: extensions)
    }

    /// Reads a root folder for a stub server, which sends the mappings' webhooks (elsewhere a mapping with a
    /// webhook uses a feature StuntDouble lacks there).
    package init(
        root: URL, displayPath: String, unsupportedFeatures: UnsupportedFeatures, templating: ResponseTemplating,
        sendsWebhooks: Bool, extensions: [StubFileExtension] = []
    ) {
        self.root = root
        var diagnostics: [StubFileDiagnostic] = []
        var specs: [MappingSpec] = []
        var files: [String] = []
        let fileManager = FileManager.default
        var isDirectory: ObjCBool = false
        let mappingsFolder: URL
        let mappingsDisplay: String
        let filesFolder: URL
        if fileManager.fileExists(atPath: root.appendingPathComponent("mappings").path, isDirectory: &isDirectory),
            isDirectory.boolValue
        {
            mappingsFolder = root.appendingPathComponent("mappings")
            mappingsDisplay = Self.join(displayPath, "mappings")
            filesFolder = root.appendingPathComponent("__files")
        } else if root.lastPathComponent == "mappings",
            fileManager.fileExists(atPath: root.path, isDirectory: &isDirectory),
            isDirectory.boolValue
        {
            mappingsFolder = root
            mappingsDisplay = displayPath
            filesFolder = root.deletingLastPathComponent().appendingPathComponent("__files")
        } else if Self.messageFolderNames.contains(where: { name in
            fileManager.fileExists(atPath: root.appendingPathComponent(name).path, isDirectory: &isDirectory)
                && isDirectory.boolValue
        }) {
            // A root of WebSocket stubs only.
            mappingsFolder = root.appendingPathComponent("mappings")
            mappingsDisplay = Self.join(displayPath, "mappings")
            filesFolder = root.appendingPathComponent("__files")
        } else {
            let exists = fileManager.fileExists(atPath: root.path, isDirectory: &isDirectory)
            diagnostics.append(
                StubFileDiagnostic(
                    severity: .error, file: displayPath, line: 1, column: 1, field: nil,
                    message: !exists
                        ? "no such folder: give the root folder of the stub files (the one holding mappings/)"
                        : "no mappings/ folder here: stub files live in ROOT/mappings/*.json, bodies in ROOT/__files/"))
            self.diagnostics = diagnostics
            self.specs = []
            self.messageSpecs = []
            self.files = []
            return
        }
        for relative in Self.jsonFiles(in: mappingsFolder) {
            let display = Self.join(mappingsDisplay, relative)
            files.append(display)
            let url = mappingsFolder.appendingPathComponent(relative)
            guard let data = fileManager.contents(atPath: url.path) else {
                diagnostics.append(
                    StubFileDiagnostic(
                        severity: .error, file: display, line: 1, column: 1, field: nil,
                        message: "the file cannot be read (check its permissions)"))
                continue
            }
            var reader = StubFileReader(
                file: display, bytes: Array(data), filesDirectory: filesFolder, unsupportedFeatures: unsupportedFeatures
            )
            reader.templating = templating
            reader.sendsWebhooks = sendsWebhooks
            reader.extensions = Self.byName(extensions)
            reader.read()
            diagnostics += reader.diagnostics
            specs += reader.specs
        }
        var messageSpecs: [MessageMappingSpec] = []
        // WireMock's code reads message-mappings/; its documentation names messages/: both are read.
        for folderName in Self.messageFolderNames {
            let messagesFolder = filesFolder.deletingLastPathComponent().appendingPathComponent(folderName)
            let messagesDisplay = Self.join(
                mappingsDisplay.hasSuffix("mappings")
                    ? String(mappingsDisplay.dropLast("mappings".count)) : displayPath,
                folderName)
            for relative in Self.jsonFiles(in: messagesFolder) {
                let display = Self.join(messagesDisplay, relative)
                files.append(display)
                let read = Self.readMessageFile(
                    at: messagesFolder.appendingPathComponent(relative), display: display, filesFolder: filesFolder,
                    templating: templating)
                diagnostics += read.diagnostics
                messageSpecs += read.specs
            }
        }
        self.diagnostics = diagnostics
        self.specs = specs
        self.messageSpecs = messageSpecs
        self.files = files
    }

    /// The folders of a root that hold message mappings: `message-mappings/`, which WireMock's code reads, and
    /// `messages/`, which its documentation names.
    package static let messageFolderNames = ["message-mappings", "messages"]

    /// Reads one message mapping file (`message-mappings/*.json` or `messages/*.json`).
    private static func readMessageFile(
        at url: URL, display: String, filesFolder: URL?, templating: ResponseTemplating
    ) -> (diagnostics: [StubFileDiagnostic], specs: [MessageMappingSpec]) {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            return (
                [
                    StubFileDiagnostic(
                        severity: .error, file: display, line: 1, column: 1, field: nil,
                        message: "the file cannot be read (check its permissions)")
                ], []
            )
        }
        var reader = StubFileReader(file: display, bytes: Array(data), filesDirectory: filesFolder)
        reader.templating = templating
        reader.readMessageFile()
        return (reader.diagnostics, reader.messageSpecs)
    }

    /// Reads one message mapping (or `{"messageMappings": [...]}`) from JSON text, as the admin API receives it.
    /// - Parameters:
    ///   - json: The text.
    ///   - name: How diagnostics name it.
    ///   - filesDirectory: The `__files` folder for `filePath`, if any.
    ///   - templating: What rendering templates reads.
    /// - Returns: The mappings (none when there are errors) and every diagnostic.
    package static func readMessageMappings(
        json: Data, name: String, filesDirectory: URL?, templating: ResponseTemplating = .local
    ) -> (specs: [MessageMappingSpec], diagnostics: [StubFileDiagnostic]) {
        var reader = StubFileReader(file: name, bytes: Array(json), filesDirectory: filesDirectory)
        reader.templating = templating
        reader.refusesUnknownFields = true
        reader.readMessageFile()
        let hasErrors = reader.diagnostics.contains { $0.severity == .error }
        return (hasErrors ? [] : reader.messageSpecs, reader.diagnostics)
    }

    /// Reads stub files given one by one (for checking them), as diagnostics will name them. A file in a
    /// `mappings/` folder finds its bodies in the sibling `__files/`.
    /// - Parameter paths: The files' paths.
    /// - Returns: Every problem, in file order.
    public static func check(files paths: [String]) -> [StubFileDiagnostic] {
        check(files: paths, sendsWebhooks: false)
    }

    /// Reads stub files given one by one (for checking them), with the custom matchers they may name.
    /// - Parameters:
    ///   - paths: The files' paths.
    ///   - extensions: The custom matchers the files may name (`customMatcher`).
    /// - Returns: Every problem, in file order.
    public static func check(files paths: [String], extensions: [StubFileExtension]) -> [StubFileDiagnostic] {
        check(files: paths, sendsWebhooks: false, extensions: extensions)
    }

    /// Reads stub files given one by one, for serving where webhooks are sent (`sendsWebhooks`) or not.
    package static func check(files paths: [String], sendsWebhooks: Bool, extensions: [StubFileExtension] = [])
        -> [StubFileDiagnostic]
    {
        read(files: paths, sendsWebhooks: sendsWebhooks, extensions: extensions).diagnostics
    }

    /// The extensions by name (of two with one name, the last).
    static func byName(_ extensions: [StubFileExtension]) -> [String: StubFileExtension] {
        Dictionary(extensions.map { ($0.name, $0) }, uniquingKeysWith: { $1 })
    }

    /// Reads stub files given one by one: their problems and mappings.
    package static func read(files paths: [String], sendsWebhooks: Bool, extensions: [StubFileExtension] = []) -> (
        diagnostics: [StubFileDiagnostic], specs: [MappingSpec]
    ) {
        var diagnostics: [StubFileDiagnostic] = []
        var specs: [MappingSpec] = []
        for path in paths {
            let url = URL(fileURLWithPath: path)
            guard let data = FileManager.default.contents(atPath: url.path) else {
                diagnostics.append(
                    StubFileDiagnostic(
                        severity: .error, file: path, line: 1, column: 1, field: nil,
                        message: "no such file, or it cannot be read"))
                continue
            }
            var filesFolder: URL?
            var isMessageFile = false
            var folder = url.deletingLastPathComponent()
            while folder.path != "/" && !folder.path.isEmpty {
                if folder.lastPathComponent == "mappings" || Self.messageFolderNames.contains(folder.lastPathComponent)
                {
                    filesFolder = folder.deletingLastPathComponent().appendingPathComponent("__files")
                    isMessageFile = Self.messageFolderNames.contains(folder.lastPathComponent)
                    break
                }
                folder = folder.deletingLastPathComponent()
            }
            if isMessageFile {
                diagnostics +=
                    readMessageFile(
                        at: url, display: path, filesFolder: filesFolder, templating: .local
                    ).diagnostics
                continue
            }
            var reader = StubFileReader(file: path, bytes: Array(data), filesDirectory: filesFolder)
            reader.sendsWebhooks = sendsWebhooks
            reader.extensions = byName(extensions)
            reader.read()
            diagnostics += reader.diagnostics
            specs += reader.specs
        }
        return (diagnostics, specs)
    }

    /// Reads one mapping, or `{"mappings": [...]}`, from JSON text (as WireMock's admin API receives it).
    /// - Parameters:
    ///   - json: The text.
    ///   - name: How diagnostics name the text.
    ///   - filesDirectory: The `__files` folder for `bodyFileName`, if any.
    ///   - unsupportedFeatures: What a mapping that uses a feature StuntDouble lacks becomes.
    ///   - refusingUnknownFields: Whether an unknown field is an error, as WireMock's admin API makes it.
    ///   - templating: Which responses are templates, and what rendering them reads.
    ///   - sendsWebhooks: Whether the mappings are served where webhooks are sent (a stub server).
    ///   - extensions: The custom matchers the mappings may name (`customMatcher`).
    package init(
        json: Data, name: String, filesDirectory: URL?, unsupportedFeatures: UnsupportedFeatures = .refuse,
        refusingUnknownFields: Bool = false, templating: ResponseTemplating = .local, sendsWebhooks: Bool = false,
        extensions: [StubFileExtension] = []
    ) {
        root = filesDirectory?.deletingLastPathComponent() ?? URL(fileURLWithPath: "/")
        var reader = StubFileReader(
            file: name, bytes: Array(json), filesDirectory: filesDirectory, unsupportedFeatures: unsupportedFeatures)
        reader.refusesUnknownFields = refusingUnknownFields
        reader.templating = templating
        reader.sendsWebhooks = sendsWebhooks
        reader.extensions = Self.byName(extensions)
        reader.read()
        diagnostics = reader.diagnostics
        specs = reader.specs
        messageSpecs = []
        files = [name]
    }

    /// Where the file `name` of a `__files/` folder is (whether it exists or not), or `nil` when the name leads
    /// outside the folder: an absolute path, `..`, a symbolic link out.
    package static func fileURL(named name: String, in filesDirectory: URL) -> URL? {
        guard !name.isEmpty, !name.hasPrefix("/"), !name.hasPrefix("\\"), !name.contains("\u{0}") else { return nil }
        let base = filesDirectory.resolvingSymlinksInPath().standardizedFileURL
        let target = base.appendingPathComponent(name).resolvingSymlinksInPath().standardizedFileURL
        let basePath = base.path.hasSuffix("/") ? base.path : base.path + "/"
        return target.path.hasPrefix(basePath) ? target : nil
    }

    /// The file `name` of a root's `__files/` folder, or `nil` when it is missing, a folder, or outside
    /// `__files/` (by `..`, an absolute path or a symbolic link): what `bodyFileName` may read.
    package static func bodyFile(named name: String, in filesDirectory: URL) -> Data? {
        try? StubFileReader.readBodyFile(name, in: filesDirectory).get()
    }

    private static func join(_ folder: String, _ relative: String) -> String {
        folder.hasSuffix("/") ? folder + relative : folder + "/" + relative
    }

    /// The `.json` files under a folder, recursively, as sorted paths relative to it (other files, such as
    /// `.gitkeep` or notes, are skipped as WireMock skips them).
    static func jsonFiles(in folder: URL) -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: folder.path) else { return [] }
        var found: [String] = []
        while let relative = enumerator.nextObject() as? String {
            guard relative.hasSuffix(".json") else { continue }
            var isDirectory: ObjCBool = false
            let full = folder.appendingPathComponent(relative).path
            if FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory), !isDirectory.boolValue {
                found.append(relative)
            }
        }
        return found.sorted()
    }
}
