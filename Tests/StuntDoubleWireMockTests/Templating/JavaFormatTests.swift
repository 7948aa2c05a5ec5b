import Foundation
import Testing

@testable import StuntDouble
@testable import StuntDoubleWireMock

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `JavaFormat` (the `stringFormat` helper) alone: a width or a precision past what a response can carry is
/// refused with a message, rather than written (Java would try: a gigabyte for `%.1111111111f`).
@Suite struct JavaFormatTests {
    @Test(arguments: [
        ("%.1111111111f", TemplateValue.double(3.14159)), ("%1111111111d", .int(7)), ("%.1048577s", .string("x")),
        ("%1048577s", .string("x")), ("%099999999999999999999d", .int(1)), ("%.99999999999999999999f", .double(1)),
    ])
    func aSizePastTheLimitIsRefusedNamingIt(format: String, value: TemplateValue) {
        switch JavaFormat.format(format, [value]) {
        case .success(let text): Issue.record("wrote \(text.utf8.count) bytes for \(format)")
        case .failure(let failure):
            #expect(failure.message.contains("at most \(JavaFormat.maximumSize)"), "\(failure.message)")
        }
    }

    @Test func sizesUpToTheLimitAreWritten() throws {
        let padded = try JavaFormat.format("%\(JavaFormat.maximumSize)s", [.string("x")]).get()
        #expect(padded.utf8.count == JavaFormat.maximumSize)
        #expect(
            try JavaFormat.format("%.3f|%5d|%-4s|", [.double(3.14159), .int(42), .string("ab")]).get()
                == "3.142|   42|ab  |")
    }

    /// What FuzzTemplate found: this template took longer than 10 seconds to render.
    @Test func theFuzzersTemplateAnswersAtOnce() throws {
        let template = "{{stringFormat '%.1111111111f1111111111111111111111112\u{d6}f' 3.14159}}"
        var request = URLRequest(url: URL(string: "http://localhost/")!)
        request.httpMethod = "GET"
        let text = try ResponseTemplate(template).render(for: try HTTPIncomingRequest(request))
        #expect(text.hasPrefix("[ERROR:") && text.contains("at most"), "\(text)")
    }
}
