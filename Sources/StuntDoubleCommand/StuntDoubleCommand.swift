import ArgumentParser

/// `stuntdouble`: serve stubs over HTTP from WireMock-format stub files, check those files, and record them.
@main
struct StuntDoubleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stuntdouble",
        abstract: "Serve HTTP stubs from WireMock-format stub files (mappings/ and __files/), and check those files.",
        discussion: """
            Examples:
              stuntdouble serve                       serve the bundled examples on http://127.0.0.1:8080
              stuntdouble serve --root Tests/Stubs    serve your stub files
              stuntdouble check Tests/Stubs           validate stub files without serving them
              stuntdouble record --upstream https://api.example.com --root Tests/Stubs
                                                      record real traffic as stub files, through a proxy
              stuntdouble import-har session.har --root Tests/Stubs    a HAR file's exchanges as stub files
            """,
        subcommands: [Serve.self, Check.self, Record.self, ImportHAR.self])
}
