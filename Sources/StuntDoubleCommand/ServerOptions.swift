import ArgumentParser
import StuntDoubleServer

/// The admin API's options, the same for `serve` and `record`.
struct AdminOptions: ParsableArguments {
    @Flag(name: .customLong("no-admin"), help: "Turn off WireMock's admin API and the traffic page (/__admin/).")
    var noAdmin = false

    @Option(
        help:
            "A token every admin call must carry (Authorization: Bearer TOKEN); needed with --host other than loopback."
    )
    var adminToken: String?

    func apply(to configuration: inout HTTPStubServer.Configuration) {
        configuration.isAdminAPIEnabled = !noAdmin
        configuration.adminToken = adminToken
    }
}

/// The request journal's options, named as WireMock's.
struct JournalOptions: ParsableArguments {
    @Option(
        name: .customLong("max-request-journal-entries"),
        help: "How many requests the journal keeps (the newest; counts and finds say when older ones were dropped).")
    var maximumEntries = 10_000

    @Flag(
        name: .customLong("no-request-journal"),
        help: "Keep no journal: no request can be counted or found, and memory stays flat.")
    var noJournal = false

    @Option(
        name: .customLong("journal-body-limit"),
        help: "How many bytes of each request body the journal keeps (entries note the true length).")
    var bodyLimit = 64 << 10

    func validate() throws {
        if maximumEntries < 0 {
            throw ValidationError("--max-request-journal-entries must be 0 or more (0 keeps no journal).")
        }
        if bodyLimit < 0 {
            throw ValidationError("--journal-body-limit must be 0 or more bytes.")
        }
    }

    func apply(to configuration: inout HTTPStubServer.Configuration) {
        configuration.journalCapacity = noJournal ? 0 : maximumEntries
        configuration.journalBodyLimit = bodyLimit
    }
}
