import Testing

@testable import StuntDouble

/// Inputs the fuzzer FuzzURITemplate found, kept as regression tests.
@Suite struct URITemplateFuzzRegressionTests {
    static let template = "{+keys*}{+x,heeys*}{+x}{+x,list*}{&keyt*}{&key}s"
    static let input =
        "httpa://api&s:/\n/p:\u{FFFD}}{&keyt*s\nhttpa://api&s:/\n/p:\u{FFFD}}{&keyt*}\u{FFFD}\u{FFFD}\u{FFFD}/b|."
        + "\u{FFFD}/heeys*}{+x,helo,y}\nhelo,y}\ni\0\0\0\0,helx,\0c?a\0r0ho"

    /// Found by FuzzURITemplate: adjacent `{+...}` expressions with exploded lists made matching backtrack
    /// through every split of a long string (about 15 seconds in a fuzzing build): the step budget counted
    /// calls, not the work each did. The work a match does must stay small, whatever the template.
    @Test func adjacentReservedExpressionsDoNotBacktrackForever() throws {
        let template = try URITemplate(Self.template)
        var matcher = PartMatcher(CompiledParts(template.parts), lenientQuery: nil)
        let bytes = Array(Self.input.utf8)
        let variables = bytes.withUnsafeBufferPointer { matcher.match($0) }
        #expect(variables == nil)
        #expect(matcher.work <= 1_000_000, "bytes examined: \(matcher.work)")
        #expect(template.match(Self.input) == nil)
    }
}
