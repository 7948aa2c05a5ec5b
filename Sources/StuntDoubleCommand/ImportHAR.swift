import ArgumentParser
import Foundation
import Logging
import StuntDouble
import StuntDoubleServer
import StuntDoubleWireMock

/// `stuntdouble import-har`: a HAR file's exchanges as stub files.
struct ImportHAR: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import-har",
        abstract: "Write the exchanges of a HAR file (HAR 1.2) as stub files.",
        discussion: """
            Reads a HAR file saved by a browser's developer tools, mitmproxy (--set hardump=FILE) or another \
            tool, and writes one mapping per exchange to --root, as `stuntdouble record` would: credential \
            headers redacted, repeated requests answering in order. Serve them with `stuntdouble serve --root DIR`.
            """)

    @Argument(help: "The HAR file.")
    var file: String

    @Option(help: "The folder to write mappings/ and __files/ to (its files are replaced).")
    var root: String

    @OptionGroup var redaction: Redaction

    func run() async throws {
        defer { OutputSink.flushAll() }
        let options = redaction.options
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: file))
            let archive = try HAR.read(data, name: file)
            for skipped in archive.skipped {
                printError("warning: \(file): left out \(skipped)")
            }
            let written = try HTTPRecording.write(archive.exchanges, to: URL(fileURLWithPath: root), options: options)
            say("Wrote \(written) exchange\(written == 1 ? "" : "s") from \(file) to \(root)")
        } catch let error as HTTPStubberError {
            printError("error: \(error.message)")
            throw ExitCode.failure
        } catch {
            printError("error: \(file) cannot be read: \(error.localizedDescription)")
            throw ExitCode.failure
        }
    }
}
