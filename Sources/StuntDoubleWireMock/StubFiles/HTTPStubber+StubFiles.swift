import Foundation
import StuntDouble

extension HTTPStubber {
    /// Reads the stub files of a root folder (WireMock's `mappings/` and `__files/`) and adds their mappings.
    ///
    /// ```swift
    /// let stubber = HTTPStubber()
    /// try stubber.load(stubFilesAt: Bundle.module.url(forResource: "Stubs", withExtension: nil)!)
    /// ```
    ///
    /// Mappings are added in file order (files sorted by path), so at equal priority a later file wins, and
    /// a stub added in code afterwards wins over them all.
    /// - Parameters:
    ///   - root: The folder holding `mappings/`.
    ///   - unsupportedFeatures: What a mapping that uses a feature StuntDouble lacks becomes: an error (the
    ///     default), or a stub answering `500` naming the feature.
    ///   - templating: Which responses are templates (those whose `transformers` name `response-template`, by
    ///     default), and what rendering them reads.
    ///   - extensions: The custom matchers the files may name (`customMatcher`), such as
    ///     `StubFileExtension.graphQL`.
    /// - Returns: The files read (with their warnings) and the mappings added.
    /// - Throws: `HTTPStubberError` with code `HTTPStubberError.Code.invalidStubFile` when the files have
    ///   errors (each diagnostic names the file, line, column and field); nothing is added then.
    @discardableResult
    public func load(
        stubFilesAt root: URL, unsupportedFeatures: StubFiles.UnsupportedFeatures = .refuse,
        templating: StubFiles.ResponseTemplating = .local, extensions: [StubFileExtension] = []
    ) throws(HTTPStubberError) -> (files: StubFiles, mappings: [StubMapping]) {
        let files = StubFiles(
            root: root, unsupportedFeatures: unsupportedFeatures, templating: templating, extensions: extensions)
        return (files, try load(files))
    }

    /// Adds the mappings of stub files that were read.
    /// - Parameter files: The files.
    /// - Returns: The mappings added, in order.
    /// - Throws: `HTTPStubberError` with code `HTTPStubberError.Code.invalidStubFile` when the files have
    ///   errors; nothing is added then.
    @discardableResult
    public func load(_ files: StubFiles) throws(HTTPStubberError) -> [StubMapping] {
        let errors = files.errors
        guard errors.isEmpty else {
            throw HTTPStubberError(
                code: .invalidStubFile,
                message:
                    "The stub files in \(files.root.path) have \(errors.count) error\(errors.count == 1 ? "" : "s"); "
                    + "nothing was loaded:\n" + errors.map(\.description).joined(separator: "\n"),
                diagnostics: files.diagnostics)
        }
        var mappings: [StubMapping] = []
        for spec in files.specs {
            let stub = spec.makeStub { self.scenario(named: $0) }
            add(stub: stub)
            mappings.append(
                StubMapping(
                    id: spec.id, name: spec.name, priority: spec.priority, stub: stub, file: spec.file, line: spec.line,
                    requestSummary: "\(spec.method?.rawValue ?? "ANY") \(spec.urlSummary)"))
        }
        for spec in files.messageSpecs {
            add(messageStub: spec.makeStub())
        }
        return mappings
    }
}
