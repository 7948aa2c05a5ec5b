import ArgumentParser
import Foundation
import StuntDouble
import StuntDoubleOpenAPI
import StuntDoubleWireMock

/// `stuntdouble check`: validates stub files without serving them.
struct Check: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Validate stub files without serving them; fails on any error or warning.",
        discussion: """
            Each PATH is a root folder (holding mappings/), a mappings/ folder, or a single mapping file. \
            Problems are printed as `file:line:column: error|warning: field: message`, so editors and CI \
            annotate them. The check is strict: a warning fails it too, even where serving would go on (an \
            unknown field such as "bodee" is ignored when serving, and almost surely a typo).

            With --openapi, every mapping is also checked against an OpenAPI document: the document must have \
            the operation the mapping answers, and the mapping's response must keep to it (status, media type, \
            body schema, required headers). Drift between recordings and the API shows without the network. \
            The document's own deviations from the specification (which serve reads as they mean) are warnings.

            Examples:
              stuntdouble check Tests/Stubs mappings/extra.json
              stuntdouble check --openapi openapi.yaml Tests/Stubs
              stuntdouble check --openapi openapi.yaml
            """)

    @Option(name: .customLong("openapi"), help: "An OpenAPI document (3.0 or 3.1) the mappings must keep to.")
    var openAPI: String?

    @Argument(help: "Root folders, mappings/ folders or mapping files (none: only the --openapi document).")
    var paths: [String] = []

    func validate() throws {
        if paths.isEmpty && openAPI == nil {
            throw ValidationError(
                "Give stub files to check (a root folder, a mappings/ folder or files), or --openapi.")
        }
    }

    func run() async throws {
        defer { OutputSink.flushAll() }
        var contract: OpenAPIContract?
        if let openAPI {
            do {
                contract = try OpenAPIContract(contentsOf: URL(fileURLWithPath: openAPI))
            } catch {
                printError("error: \(error.message)")
                throw ExitCode.failure
            }
        }
        var diagnostics: [StubFileDiagnostic] = []
        if let contract, let openAPI {
            // The document's deviations, named from the path given (its files are named from its folder).
            let folder = (openAPI as NSString).deletingLastPathComponent
            diagnostics += contract.deviations.map { deviation in
                StubFileDiagnostic(
                    severity: .warning,
                    file: folder.isEmpty ? deviation.location.file : folder + "/" + deviation.location.file,
                    line: deviation.location.line, column: deviation.location.column, field: nil,
                    message: deviation.message + " (serve reads it so; --strict refuses it)")
            }
        }
        var fileCount = openAPI == nil ? 0 : 1
        var mappingCount = 0
        for path in paths {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
                // As `serve` reads them: a stub server sends webhooks.
                let files = StubFiles(
                    root: URL(fileURLWithPath: path), displayPath: path, unsupportedFeatures: .refuse,
                    templating: .local, sendsWebhooks: true, extensions: StubFileExtension.shipped)
                diagnostics += files.diagnostics
                if let contract { diagnostics += files.violations(against: contract) }
                fileCount += files.files.count
                mappingCount += files.mappingCount + files.messageMappingCount
            } else {
                let (found, specs) = StubFiles.read(
                    files: [path], sendsWebhooks: true, extensions: StubFileExtension.shipped)
                diagnostics += found
                if let contract { diagnostics += contract.violations(ofMappings: specs) }
                fileCount += 1
            }
        }
        for diagnostic in diagnostics {
            print(diagnostic.description)
        }
        let errors = diagnostics.count(where: { $0.severity == .error })
        let warnings = diagnostics.count - errors
        let summary =
            "checked \(fileCount) file\(fileCount == 1 ? "" : "s"): \(errors) error\(errors == 1 ? "" : "s"), "
            + "\(warnings) warning\(warnings == 1 ? "" : "s")"
        if diagnostics.isEmpty {
            print(summary + (mappingCount > 0 ? " (\(mappingCount) mappings)" : ""))
        } else {
            printError(summary)
            throw ExitCode.failure
        }
    }
}
