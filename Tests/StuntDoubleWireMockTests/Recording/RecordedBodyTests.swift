import Testing

@testable import StuntDoubleWireMock

/// What both recorders (in process and the server's admin recorder) decide alike about bodies and repeats.
@Suite struct RecordedBodyTests {
    @Test(arguments: [
        ("application/json", true, "json"), ("application/vnd.api+json; charset=utf-8", true, "json"),
        ("application/problem+xml", true, "xml"), ("image/svg+xml", true, "xml"), ("text/html", true, "html"),
        ("application/xhtml+xml", true, "xml"), ("text/plain", true, "txt"), ("text/csv", true, "csv"),
        ("text/css", true, "css"), ("application/javascript", true, "js"),
        ("application/x-www-form-urlencoded", true, "txt"), ("image/png", false, "png"), ("image/jpeg", false, "jpg"),
        ("application/pdf", false, "pdf"), ("application/octet-stream", false, "bin"), ("", false, "bin"),
        ("application/zip ; q=1", false, "zip"), ("video/mp4", false, "bin"),
    ])
    func textAndFileExtensionByContentType(contentType: String, isText: Bool, fileExtension: String) {
        #expect(RecordedBody.isText(contentType: contentType) == isText)
        #expect(RecordedBody.fileExtension(for: contentType, isText: isText) == fileExtension)
    }

    @Test func repeatsAreGroupedInTheOrderTheyFirstCame() {
        #expect(RecordedBody.repeats(of: []) == [])
        #expect(RecordedBody.repeats(of: ["a", "b", "c"]) == [])
        #expect(RecordedBody.repeats(of: ["b", "a", "b", "c", "a", "b"]) == [[0, 2, 5], [1, 4]])
        #expect(RecordedBody.repeats(of: ["x", "x"]) == [[0, 1]])
    }
}
