import StuntDouble

extension HTTPStubber {
    /// Records a test failure at the caller unless a stub answered a number of requests in this stubber.
    ///
    /// ```swift
    /// HTTPStubber.current.expect(loginStub, called: .once)
    /// ```
    /// In a Swift Testing test the failure is an `Issue`; in an XCTest test, an `XCTFail`. Its message says what
    /// was expected and found, quotes the journal, and for too few calls shows the requests that came closest
    /// to the stub with the checks they failed.
    /// - Parameters:
    ///   - stub: The stub.
    ///   - count: The expected number of answers.
    ///   - fileID: The caller's file; leave the default.
    ///   - filePath: The caller's file path; leave the default.
    ///   - line: The caller's line; leave the default.
    ///   - column: The caller's column; leave the default.
    /// - Returns: Whether the expectation was met.
    @discardableResult
    public func expect(
        _ stub: HTTPStubRequest, called count: HTTPCallCount, fileID: String = #fileID,
        filePath: StaticString = #filePath, line: UInt = #line, column: Int = #column
    ) -> Bool {
        check(CallSite(fileID: fileID, filePath: filePath, line: line, column: column)) { () throws(HTTPStubberError) in
            try verify(stub, called: count)
        }
    }

    /// Records a test failure at the caller unless a number of the requests in the journal match a pattern.
    ///
    /// ```swift
    /// HTTPStubber.current.expect(HTTPRequestPattern(.post).match(URL: loginURL).match(json: credentials),
    ///                            called: .once)
    /// ```
    /// - Parameters:
    ///   - pattern: The requests to count.
    ///   - count: The expected number of matching requests.
    ///   - fileID: The caller's file; leave the default.
    ///   - filePath: The caller's file path; leave the default.
    ///   - line: The caller's line; leave the default.
    ///   - column: The caller's column; leave the default.
    /// - Returns: Whether the expectation was met.
    @discardableResult
    public func expect(
        _ pattern: HTTPRequestPattern, called count: HTTPCallCount, fileID: String = #fileID,
        filePath: StaticString = #filePath, line: UInt = #line, column: Int = #column
    ) -> Bool {
        check(CallSite(fileID: fileID, filePath: filePath, line: line, column: column)) { () throws(HTTPStubberError) in
            try verify(pattern, called: count)
        }
    }

    /// Records a test failure at the caller for the requests that no stub matched, each with its report: the
    /// request, the closest stubs and what differed.
    /// - Parameters:
    ///   - fileID: The caller's file; leave the default.
    ///   - filePath: The caller's file path; leave the default.
    ///   - line: The caller's line; leave the default.
    ///   - column: The caller's column; leave the default.
    /// - Returns: Whether every request matched a stub.
    @discardableResult
    public func expectNoUnmatchedRequests(
        fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: Int = #column
    ) -> Bool {
        check(CallSite(fileID: fileID, filePath: filePath, line: line, column: column)) { () throws(HTTPStubberError) in
            try verifyNoUnmatchedRequests()
        }
    }

    private func check(_ site: CallSite, _ verification: () throws(HTTPStubberError) -> Void) -> Bool {
        do {
            try verification()
            return true
        } catch {
            TestFailure.record(error.message, at: site)
            return false
        }
    }
}
