import Testing

@testable import StuntDouble
@testable import StuntDoubleWireMock

/// The XML parser, XPath 1.0 and the XML serializer behind the `xPath`, `soapXPath` and `formatXml` helpers, as
/// Java's JAXP gives them to WireMock.
@Suite struct XPathTests {
    static let library = """
        <library><book id="1" lang="en"><title>Dune</title><year>1965</year></book><book id="2" lang="fr">\
        <title>Vendredi</title><year>1967</year></book><note>two &amp; more</note></library>
        """

    static let soap = """
        <soap:Envelope xmlns:soap="http://www.w3.org/2003/05/soap-envelope" xmlns:m="http://example.org/stock">\
        <soap:Body><m:GetStockPrice><m:StockName>ACME</m:StockName></m:GetStockPrice></soap:Body></soap:Envelope>
        """

    /// A small tree for the axes: `r` holds `a` (`b`, `c` (`d`), `e`) and `f`.
    static let axes = #"<r><a><b/><c k="v"><d/></c><e/></a><f/></r>"#

    func evaluate(_ expression: String, _ xml: String = library) throws -> XPathValue {
        try XPathExpression(expression).evaluate(in: try XMLTree(parsing: xml))
    }

    /// The names of the nodes an expression selects (a text's value, a comment's `#comment`).
    func names(_ expression: String, _ xml: String = library) throws -> [String] {
        let tree = try XMLTree(parsing: xml)
        guard case .nodes(let nodes) = try XPathExpression(expression).evaluate(in: tree) else {
            Issue.record("\(expression) is not a node-set")
            return []
        }
        return nodes.map { node in
            switch tree.kind(of: node) {
            case .text: tree.value(of: node)
            case .comment: "#comment"
            case .document: "#document"
            default: tree.name(of: node)
            }
        }
    }

    /// The text content of each node an expression selects.
    func texts(_ expression: String, _ xml: String = library) throws -> [String] {
        let tree = try XMLTree(parsing: xml)
        guard case .nodes(let nodes) = try XPathExpression(expression).evaluate(in: tree) else {
            Issue.record("\(expression) is not a node-set")
            return []
        }
        return nodes.map(tree.textContent(of:))
    }

    /// An expression's value as XPath's `string()` converts it.
    func string(_ expression: String, _ xml: String = library) throws -> String {
        let tree = try XMLTree(parsing: xml)
        return try XPathExpression(expression).evaluate(in: tree).string(in: tree)
    }

    func parseError(_ xml: String) -> XMLSyntaxError? {
        do {
            _ = try XMLTree(parsing: xml)
            return nil
        } catch {
            return error
        }
    }

    func expressionError(_ expression: String) -> XPathSyntaxError? {
        do {
            _ = try XPathExpression(expression)
            return nil
        } catch {
            return error
        }
    }

    func pretty(_ xml: String, _ expression: String? = nil) throws -> String {
        let tree = try XMLTree(parsing: xml)
        guard let expression else { return tree.serialized(tree.root, pretty: true) }
        guard case .nodes(let nodes) = try XPathExpression(expression).evaluate(in: tree), let node = nodes.first
        else { return "(nothing)" }
        return tree.serialized(node, pretty: true)
    }

    // MARK: - Parsing

    @Test func parsesElementsAttributesAndText() throws {
        let tree = try XMLTree(parsing: #"<a z="1" b='2' m="3">x<b>y</b>z</a>"#)
        let root = try #require(tree.documentElement)
        #expect(tree.kind(of: tree.root) == .document)
        #expect(tree.name(of: root) == "a")
        #expect(tree.parent(of: root) == tree.root)
        #expect(tree.parent(of: tree.root) == nil)
        #expect(
            tree.attributes(of: root).map(tree.name(of:)) == ["b", "m", "z"], "sorted by name, as Xerces keeps them")
        #expect(tree.attribute("z", of: root) == "1")
        #expect(tree.attribute("missing", of: root) == nil)
        let children = tree.children(of: root)
        #expect(children.map(tree.kind(of:)) == [.text, .element, .text])
        #expect(children.map(tree.textContent(of:)) == ["x", "y", "z"])
        #expect(tree.textContent(of: root) == "xyz")
        #expect(tree.textContent(of: tree.root) == "xyz")
        #expect(tree.attributes(of: root).map(tree.textContent(of:)) == ["2", "3", "1"])
        #expect(children.allSatisfy { $0 > root } && root > tree.root, "document order")
    }

    @Test func readsThePrologCommentsInstructionsAndSkipsTheDoctype() throws {
        let xml = """
            \u{FEFF}<?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE r [ <!ENTITY x "]>"> <!-- a ']' and a '>' --> <?pi ]> ?> ]>
            <!--before--><?style href="a"?>
            <r><?inner data?><!--inside--></r>
            <!--after-->
            """
        let tree = try XMLTree(parsing: xml)
        let top = tree.children(of: tree.root)
        #expect(top.map(tree.kind(of:)) == [.comment, .processingInstruction, .element, .comment])
        #expect(tree.value(of: top[0]) == "before")
        #expect(tree.name(of: top[1]) == "style")
        #expect(tree.value(of: top[1]) == #"href="a""#)
        #expect(try names("/r/node()", xml) == ["inner", "#comment"])
        #expect(try string("/processing-instruction('style')", xml) == #"href="a""#)
        #expect(try names("//processing-instruction()", xml) == ["style", "inner"])
        #expect(try string("count(//comment())", xml) == "3")
    }

    @Test func replacesEntitiesAndCharacterReferences() throws {
        let tree = try XMLTree(
            parsing: #"<a t="&lt;&#38;&#x26;&quot;&apos;">&lt;&gt;&amp;&apos;&quot;&#65;&#x1F600;</a>"#)
        let root = try #require(tree.documentElement)
        #expect(tree.attribute("t", of: root) == "<&&\"'")
        #expect(tree.textContent(of: root) == "<>&'\"A😀")
    }

    @Test func mergesCDATAWithAdjacentTextAndKeepsWhitespace() throws {
        let tree = try XMLTree(parsing: "<a>x<![CDATA[<y>&amp;]]>z<![CDATA[]]></a>")
        let root = try #require(tree.documentElement)
        #expect(tree.children(of: root).count == 1)
        #expect(tree.textContent(of: root) == "x<y>&amp;z")
        #expect(try names("/a/text()", "<a>x<![CDATA[y]]><!--c-->z</a>") == ["xy", "z"], "a comment splits the text")
        #expect(try names("/a/node()", "<a> <b/>\n</a>") == [" ", "b", "\n"], "whitespace-only text is kept")
        #expect(try names("/node()", " \n<a/>\n ") == ["a"], "whitespace outside the root is not")
    }

    @Test func normalizesLineEnds() throws {
        let tree = try XMLTree(parsing: "<a x='1\r\n2\t3\n4'>l1\r\nl2\rl3<!--c\r\nd--></a>")
        let root = try #require(tree.documentElement)
        #expect(tree.attribute("x", of: root) == "1 2 3 4")
        #expect(try string("/a/text()", "<a>l1\r\nl2\rl3</a>") == "l1\nl2\nl3")
        #expect(try string("/a/comment()", "<a><!--c\r\nd--></a>") == "c\nd")
        #expect(try string("/a/@x", "<a x='&#10;&#13;'/>") == "\n\r", "references are not normalized")
    }

    static let malformed: [(xml: String, offset: Int, message: String)] = [
        ("<a></b>", 3, "does not match the start tag <a>"),
        ("<a><b></a>", 6, "does not match the start tag <b>"),
        ("<a>", 3, "ends before the end tag of <a>"),
        ("<a/><b/>", 4, "a second root element"),
        ("text<a/>", 0, "text before the root element"),
        ("<a/>text", 4, "text after the root element"),
        ("", 0, "no root element"),
        ("   ", 3, "no root element"),
        ("<a x=1/>", 5, "must be in quotes"),
        ("<a x='1' x='2'/>", 9, "\"x\" appears twice"),
        ("<a x='1'y='2'/>", 8, "expected whitespace"),
        ("<a x/>", 4, "expected '='"),
        ("<a x='1/>", 5, "is not closed"),
        ("<a x='<'/>", 6, "'<' is not allowed"),
        ("<a>&nbsp;</a>", 3, "the entity \"nbsp\" is not declared"),
        ("<a>&amp</a>", 3, "must end with ';'"),
        ("<a>& b</a>", 3, "'&' must start a reference"),
        ("<a>&#0;</a>", 3, "not a character XML allows"),
        ("<a>&#xD800;</a>", 3, "not a character XML allows"),
        ("<a>&#99999999999999999999;</a>", 3, "not a character XML allows"),
        ("<a>&#x;</a>", 3, "malformed character reference"),
        ("<a>\u{1}</a>", 3, "not a character XML allows"),
        ("<a>]]></a>", 3, "']]>' is not allowed"),
        ("<a><![CDATA[x</a>", 3, "CDATA section is not closed"),
        ("<a><!-- x -- y --></a>", 10, "'--' is not allowed"),
        ("<a><!-- x", 3, "comment is not closed"),
        (" <?xml version='1.0'?><a/>", 1, "XML declaration is only allowed"),
        ("<a><?xml version='1.0'?></a>", 3, "XML declaration is only allowed"),
        ("<a><?pi x</a>", 3, "is not closed"),
        ("<!DOCTYPE a [ <!ENTITY x 'y'> <a/>", 0, "DOCTYPE declaration is not closed"),
        ("<a><!DOCTYPE a></a>", 3, "DOCTYPE declaration inside an element"),
        ("<a/><!DOCTYPE a>", 4, "DOCTYPE declaration after the root element"),
        ("</a>", 0, "an end tag with no element open"),
        ("<a>< b/></a>", 4, "unexpected byte 0x20"),
        ("<a></a >x", 8, "text after the root element"),
        ("<1a/>", 1, "unexpected '1'"),
        ("<a", 2, "is not closed"),
        ("<a/ >", 3, "expected '>' after '/'"),
    ]

    @Test(arguments: malformed)
    func reportsMalformedDocuments(xml: String, offset: Int, message: String) {
        let error = parseError(xml)
        #expect(error?.offset == offset, "\(error?.description ?? "parsed")")
        #expect(error?.message.contains(message) == true, "\(error?.description ?? "parsed")")
    }

    @Test func neverExpandsEntitiesFromTheDoctype() throws {
        var doctype = #"<!DOCTYPE lolz [<!ENTITY lol "lol">"#
        for level in 1...9 {
            let reference = level == 1 ? "&lol;" : "&lol\(level - 1);"
            doctype += "<!ENTITY lol\(level) \"" + String(repeating: reference, count: 10) + "\">"
        }
        doctype += "]>"
        let error = parseError(doctype + "<lolz>&lol9;</lolz>")
        #expect(error?.message.contains("the entity \"lol9\" is not declared") == true)
        #expect(try string("/lolz", doctype + "<lolz>safe</lolz>") == "safe")
    }

    @Test func parsesADocumentNested100000Deep() throws {
        let depth = 100_000
        let xml = String(repeating: "<a>", count: depth) + "x" + String(repeating: "</a>", count: depth)
        let tree = try XMLTree(parsing: xml)
        #expect(tree.nodeCount == depth + 2)
        #expect(tree.textContent(of: tree.root) == "x")
        #expect(try XPathExpression("count(//a)").evaluate(in: tree) == .number(Double(depth)))
        #expect(try XPathExpression("count(//*//*//*)").evaluate(in: tree) == .number(Double(depth - 2)))
        #expect(try XPathExpression("count(//text()/ancestor::*)").evaluate(in: tree) == .number(Double(depth)))
        #expect(try XPathExpression("count(//a/ancestor-or-self::a)").evaluate(in: tree) == .number(Double(depth)))
        #expect(try XPathExpression("count(//a/..)").evaluate(in: tree) == .number(Double(depth)))
        #expect(try XPathExpression("count(//a[not(a)]/preceding::*)").evaluate(in: tree) == .number(0))
        #expect(try XPathExpression("string(//a[a][last()])").evaluate(in: tree) == .string("x"))
        let compact = tree.serialized(tree.root, pretty: false)
        #expect(compact == xml)
        let unclosed = parseError(String(repeating: "<a>", count: depth))
        #expect(unclosed?.offset == depth * 3)
        let mismatched = parseError(String(repeating: "<a>", count: depth) + "</b>")
        #expect(mismatched?.offset == depth * 3)
    }

    @Test func parsesAFiveMegabyteDocumentInReasonableTime() throws {
        var xml = "<catalog>\n"
        var count = 0
        while xml.utf8.count < 5_000_000 {
            count += 1
            xml += """
                  <item id="\(count)" kind="k\(count % 7)"><name>Item &amp; \(count)</name>\
                <price currency="EUR">\(count % 100).5</price><![CDATA[<raw>]]></item>

                """
        }
        xml += "</catalog>"
        let clock = ContinuousClock()
        let start = clock.now
        let tree = try XMLTree(parsing: xml)
        let parsed = clock.now - start
        #expect(parsed < .seconds(20), "parsed \(xml.utf8.count) bytes in \(parsed)")
        #expect(try XPathExpression("count(//item)").evaluate(in: tree) == .number(Double(count)))
        #expect(
            try XPathExpression("//item[@id='777']/name/text()").evaluate(in: tree).string(in: tree) == "Item & 777")
        #expect(try XPathExpression("count(//*//*//*)").evaluate(in: tree) == .number(Double(count * 2)))
        let kind3 = (1...count).filter { $0 % 7 == 3 }.count
        #expect(try XPathExpression("count(//item[@kind='k3'])").evaluate(in: tree) == .number(Double(kind3)))
        #expect(try XPathExpression("/catalog/item[last()]/@id").evaluate(in: tree).string(in: tree) == "\(count)")
        #expect(clock.now - start < .seconds(40), "parsed and evaluated in \(clock.now - start)")
    }

    // MARK: - Axes

    static let axisCases: [(expression: String, names: [String])] = [
        ("//c/child::*", ["d"]),
        ("//c/descendant::*", ["d"]),
        ("//a/descendant::*", ["b", "c", "d", "e"]),
        ("//c/descendant-or-self::*", ["c", "d"]),
        ("//c/parent::*", ["a"]),
        ("//c/ancestor::*", ["r", "a"]),
        ("//c/ancestor-or-self::*", ["r", "a", "c"]),
        ("//c/following-sibling::*", ["e"]),
        ("//c/preceding-sibling::*", ["b"]),
        ("//c/following::*", ["e", "f"]),
        ("//d/preceding::*", ["b"]),
        ("//c/attribute::*", ["k"]),
        ("//c/self::*", ["c"]),
        ("//c/self::b", []),
        ("//c/namespace::*", []),
        ("//@k/parent::*", ["c"]),
        ("//@k/following::*", ["d", "e", "f"]),
        ("//@k/preceding::*", ["b"]),
        ("//@k/ancestor::*", ["r", "a", "c"]),
        ("//@k/following-sibling::node()", []),
        ("/descendant::*", ["r", "a", "b", "c", "d", "e", "f"]),
        ("/child::node()", ["r"]),
        ("/self::node()", ["#document"]),
        ("/..", []),
        ("//*/following-sibling::*", ["c", "e", "f"]),
        ("//*/preceding-sibling::*", ["a", "b", "c"]),
        ("//*/following::*", ["c", "d", "e", "f"]),
        ("//*/preceding::*", ["a", "b", "c", "d", "e"]),
        ("//*/parent::*", ["r", "a", "c"]),
        ("(//c | //@k)/descendant-or-self::node()", ["c", "k", "d"]),
        ("//@k/descendant-or-self::node()", ["k"]),
        ("//@k/descendant::node()", []),
        ("//@k/self::node()", ["k"]),
        ("//@k/self::*", []),
    ]

    @Test(arguments: axisCases)
    func walksEachAxis(expression: String, names expected: [String]) throws {
        #expect(try names(expression, Self.axes) == expected)
    }

    @Test func countsPositionsInEachAxisDirection() throws {
        #expect(try names("//c/ancestor::*[1]", Self.axes) == ["a"], "reverse axes count from the nearest")
        #expect(try names("//c/ancestor-or-self::*[last()]", Self.axes) == ["r"])
        #expect(try names("(//c/ancestor::*)[1]", Self.axes) == ["r"], "a filter counts in document order")
        #expect(try names("//d/preceding::*[1]", Self.axes) == ["b"])
        #expect(try names("//e/preceding-sibling::*[1]", Self.axes) == ["c"])
        #expect(try names("//e/preceding-sibling::*[2]", Self.axes) == ["b"])
        #expect(try names("//b/following-sibling::*[2]", Self.axes) == ["e"])
        #expect(try names("//b/following::*[3]", Self.axes) == ["e"])
        #expect(try names("//*[position() = 2]", Self.axes) == ["c", "f"])
    }

    // MARK: - Location paths and predicates

    @Test func selectsWithPathsAndPredicates() throws {
        #expect(try texts("/library/book[1]/title/text()") == ["Dune"])
        #expect(try texts("/library/book[2]/@lang") == ["fr"])
        #expect(try texts("/library/book/title") == ["Dune", "Vendredi"])
        #expect(try texts("/library/book[@id='2']/year/text()") == ["1967"])
        #expect(try texts("//book[year > 1966]/title/text()") == ["Vendredi"])
        #expect(try texts("//book[last()]/title") == ["Vendredi"])
        #expect(try texts("//book[position() < 2]/title") == ["Dune"])
        #expect(try texts("//book[@lang][2]/@id") == ["2"], "predicates apply one after the other")
        #expect(try texts("//book[title='Vendredi'][1]/year") == ["1967"])
        #expect(try texts("//book[2][title='Dune']") == [])
        #expect(try texts("//title[. = 'Dune']/../year") == ["1965"])
        #expect(try texts("/library/missing/text()") == [])
        #expect(try texts("//book[@lang='fr']/@id") == ["2"])
        #expect(try texts("//*[@id]/title") == ["Dune", "Vendredi"])
        #expect(try texts("//book[1.5]/@id") == ["1"], "a position is truncated, as Xalan does")
        #expect(try texts("(//book)[2.7]/@id") == ["2"])
        #expect(try texts("//book[0.5]") == [])
        #expect(try texts("//book[last() - 0.5]/@id") == ["1"])
        #expect(try texts("//book[position() = 1.5]") == [], "a comparison is not")
        #expect(try texts("//book[number(@id) + 0]/@id") == ["1", "2"], "a number predicate is a position")
        #expect(try texts("//book[string(@id)]/@id") == ["1", "2"], "a string predicate is a boolean")
        #expect(try texts("/library/*[3]") == ["two & more"])
        #expect(try texts("/*/*[name() = 'note']") == ["two & more"])
    }

    @Test func tellsAStepPositionFromAFilterPosition() throws {
        let xml = "<r><a><b>1</b><b>2</b></a><a><b>3</b></a></r>"
        #expect(try texts("//b[1]", xml) == ["1", "3"])
        #expect(try texts("(//b)[1]", xml) == ["1"])
        #expect(try texts("(//b)[last()]", xml) == ["3"])
        #expect(try texts("//a/b[last()]", xml) == ["2", "3"])
        #expect(try texts("(/r/a)[2]/b", xml) == ["3"])
        #expect(try texts("(//a)[1]//b", xml) == ["1", "2"])
        #expect(try texts("//b[. > 1][1]", xml) == ["2", "3"])
    }

    @Test func abbreviatesSteps() throws {
        #expect(try names("//title/..") == ["book", "book"])
        #expect(try names("//book[1]/.") == ["book"])
        #expect(try names("//@id") == ["id", "id"])
        #expect(try names("//book[1]/@*") == ["id", "lang"])
        #expect(try names("/library/book[1]/*") == ["title", "year"])
        #expect(try names("//book//text()") == ["Dune", "1965", "Vendredi", "1967"])
        #expect(try names("/library//node()[self::year or self::note]") == ["year", "year", "note"])
        #expect(try names("//book/title/following-sibling::year/../@id") == ["id", "id"])
        #expect(try names("/") == ["#document"])
    }

    @Test func testsNodeKinds() throws {
        let xml = "<r>t<!--c--><?p d?><?q?><e>u</e></r>"
        #expect(try names("/r/node()", xml) == ["t", "#comment", "p", "q", "e"])
        #expect(try names("/r/text()", xml) == ["t"])
        #expect(try names("//text()", xml) == ["t", "u"])
        #expect(try names("/r/comment()", xml) == ["#comment"])
        #expect(try names("/r/processing-instruction()", xml) == ["p", "q"])
        #expect(try names("/r/processing-instruction('q')", xml) == ["q"])
        #expect(try names("/r/*", xml) == ["e"])
        #expect(try names("/r/e/@node()", #"<r><e a="1"/></r>"#) == ["a"])
    }

    @Test func unitesNodeSetsInDocumentOrder() throws {
        #expect(try texts("//year | //title") == ["Dune", "1965", "Vendredi", "1967"])
        #expect(try texts("//book | //book[1]").count == 2, "without duplicates")
        #expect(try texts("(//title | //year)[3]") == ["Vendredi"])
        #expect(try texts("//note | /library/book[2]/title | //book[1]/@id") == ["1", "Vendredi", "two & more"])
        #expect(try texts("(//book)[2]/title") == ["Vendredi"])
        #expect(try texts("(//book)[last()]/@id") == ["2"])
        #expect(try texts("(//book | //note)[position() > 1]") == ["Vendredi1967", "two & more"])
    }

    // MARK: - Operators

    static let operatorCases: [(expression: String, value: String)] = [
        ("1 + 2 * 3", "7"),
        ("(1 + 2) * 3", "9"),
        ("7 div 2", "3.5"),
        ("7 mod 3", "1"),
        ("-7 mod 3", "-1"),
        ("7.5 mod 2", "1.5"),
        ("1 - 2 - 3", "-4"),
        ("- - 2", "2"),
        ("--2", "2"),
        ("-(1 + 1)", "-2"),
        ("1 div 0", "Infinity"),
        ("-1 div 0", "-Infinity"),
        ("0 div 0", "NaN"),
        ("5 mod 0", "NaN"),
        ("0.1 + 0.2", "0.30000000000000004"),
        ("1000000 * 1000000 * 1000000 * 1000", "1000000000000000000000"),
        ("1 div 3", "0.3333333333333333"),
        ("0.0000001", "0.0000001"),
        ("12.50", "12.5"),
        (".5", "0.5"),
        ("5.", "5"),
        ("-0", "0"),
        ("2 < 3", "true"),
        ("3 <= 2", "false"),
        ("1 = 1 = 1", "true"),
        ("2 > 1 > 0", "true"),
        ("1 < 2 and 2 < 1", "false"),
        ("1 < 2 or 2 < 1", "true"),
        ("'a' = 'a'", "true"),
        ("'a' != 'b'", "true"),
        ("'10' < '9'", "false"),
        ("'abc' < 1", "false"),
        ("true() = 1", "true"),
        ("false() = ''", "true"),
        ("'1' = 1.0", "true"),
        ("0 div 0 = 0 div 0", "false"),
        ("0 div 0 != 0 div 0", "true"),
        ("1 = true()", "true"),
        ("2 = true()", "true"),
        ("'' = false()", "true"),
        ("'a' + 1", "NaN"),
        ("true() + true()", "2"),
        ("4 div 2 * 3 mod 4", "2"),
        ("1 -1", "0"),
        ("2*2", "4"),
    ]

    @Test(arguments: operatorCases)
    func appliesOperators(expression: String, value: String) throws {
        #expect(try string(expression) == value)
    }

    @Test func comparesNodeSetsAsXPathSays() throws {
        let cases: [(String, Bool)] = [
            ("//year = 1965", true),
            ("//year = 1966", false),
            ("//year != 1965", true),
            ("/library/book[1]/year != 1965", false),
            ("//year = '1967'", true),
            ("//year > 1966", true),
            ("//year < 1965", false),
            ("//year <= 1965", true),
            ("1966 < //year", true),
            ("1968 < //year", false),
            ("'1966' < //year", true),
            ("//year = //year", true),
            ("//year != //year", true),
            ("//title != //title[1]", true),
            ("(//title)[1] != (//title)[1]", false),
            ("//title = //year", false),
            ("//book/@id = //book/@id", true),
            ("//year > //year", true),
            ("(//year)[1] > //year", false),
            ("(//year)[1] >= //year", true),
            ("//missing = //missing", false),
            ("//missing != //missing", false),
            ("//missing = 1", false),
            ("//missing != 1", false),
            ("//missing = ''", false),
            ("//book = true()", true),
            ("//missing = false()", true),
            ("//missing < 1", false),
            ("//note = 'two & more'", true),
            ("//book[1]/@id = 1", true),
            ("//title = 'Vendredi'", true),
            ("not(//title != 'Vendredi')", false),
        ]
        for (expression, expected) in cases {
            #expect(try evaluate(expression) == .boolean(expected), "\(expression)")
        }
    }

    // MARK: - Functions

    static let functionCases: [(expression: String, value: String)] = [
        ("concat('a', 1, true(), //title)", "a1trueDune"),
        ("starts-with('hello', 'he')", "true"),
        ("starts-with('hello', '')", "true"),
        ("starts-with('hello', 'lo')", "false"),
        ("contains(//note, '&')", "true"),
        ("contains('abc', 'd')", "false"),
        ("contains('abc', '')", "true"),
        ("substring-before('1999/04/01', '/')", "1999"),
        ("substring-after('1999/04/01', '/')", "04/01"),
        ("substring-after('1999/04/01', '19')", "99/04/01"),
        ("substring-before('abc', 'x')", ""),
        ("substring-after('abc', '')", "abc"),
        ("substring('12345', 2, 3)", "234"),
        ("substring('12345', 2)", "2345"),
        ("substring('12345', 1.5, 2.6)", "234"),
        ("substring('12345', 0, 3)", "12"),
        ("substring('12345', 0 div 0, 3)", ""),
        ("substring('12345', 1, 0 div 0)", ""),
        ("substring('12345', -42, 1 div 0)", "12345"),
        ("substring('12345', -1 div 0, 1 div 0)", ""),
        ("substring('12345', 5, 10)", "5"),
        ("substring('12345', 0 div 0)", "12345"),
        ("substring('12345', 3, -1)", ""),
        ("substring('12345', 1000000000000)", ""),
        ("substring('12345', -1000000000000, 1000000000002)", "1"),
        ("substring('é😀x', 2, 2)", "😀"),
        ("substring('é😀x', 4)", "x"),
        ("string-length('é😀x')", "4"),
        ("string-length(//title)", "4"),
        ("normalize-space('  a \t b\n\nc  ')", "a b c"),
        ("normalize-space('   ')", ""),
        ("translate('bar', 'abc', 'ABC')", "BAr"),
        ("translate('--aaa--', 'abc-', 'ABC')", "AAA"),
        ("translate('aaa', 'aa', 'bc')", "bbb"),
        ("string(//book[2]/@id)", "2"),
        ("string(//missing)", ""),
        ("string(//book)", "Dune1965"),
        ("string(1 div 0)", "Infinity"),
        ("string(true())", "true"),
        ("number('  12.5 ')", "12.5"),
        ("number('-.5')", "-0.5"),
        ("number('1e3')", "NaN"),
        ("number('+1')", "NaN"),
        ("number('')", "NaN"),
        ("number('1.2.3')", "NaN"),
        ("number(true())", "1"),
        ("number(//year)", "1965"),
        ("sum(//year)", "3932"),
        ("sum(//missing)", "0"),
        ("sum(//title)", "NaN"),
        ("count(//book)", "2"),
        ("count(//book/@*)", "4"),
        ("floor(-1.5)", "-2"),
        ("floor(2.7)", "2"),
        ("ceiling(1.2)", "2"),
        ("ceiling(-1.2)", "-1"),
        ("ceiling(-0.5)", "0"),
        ("round(2.5)", "3"),
        ("round(-2.5)", "-2"),
        ("round(-0.4)", "0"),
        ("round(0.49999999999999994)", "0"),
        ("round(1 div 0)", "Infinity"),
        ("round(0 div 0)", "NaN"),
        ("boolean('')", "false"),
        ("boolean('false')", "true"),
        ("boolean(0)", "false"),
        ("boolean(0 div 0)", "false"),
        ("boolean(//missing)", "false"),
        ("boolean(//book)", "true"),
        ("not(//missing)", "true"),
        ("true()", "true"),
        ("false()", "false"),
        ("last()", "0"),
        ("position()", "-1"),
        ("name(/*)", "library"),
        ("name(//book[1]/@*[2])", "lang"),
        ("name(//text()[1])", ""),
        ("local-name(/library/*[1])", "book"),
        ("name(/library/*[1])", "book"),
        ("string(/library/book[2]/title)", "Vendredi"),
        ("count(id('1'))", "0"),
        ("name()", ""),
        ("string()", "Dune1965Vendredi1967two & more"),
        ("string-length()", "30"),
        ("//book[string-length(title) > 4]/title", "Vendredi"),
        ("//book[position() = last()]/@lang", "fr"),
        ("//book[count(*) = 2][2]/title", "Vendredi"),
        ("//book[not(@lang = 'en')]/title", "Vendredi"),
        ("//book[contains(title, 'end')]/year", "1967"),
        ("//*[local-name() = 'note']", "two & more"),
    ]

    @Test(arguments: functionCases)
    func callsCoreFunctions(expression: String, value: String) throws {
        #expect(try string(expression) == value)
    }

    @Test func seesNoNamespacesOrLanguagesAsJAXPDoesWithoutNamespaceProcessing() throws {
        let xml = #"<r xml:lang="en"><a><b xml:lang="fr">x</b></a></r>"#
        #expect(try names("//*[lang('en')]", xml) == [])
        #expect(try string("lang('en')", xml) == "false")
        #expect(try string("namespace-uri(/*)", Self.soap) == "")
        #expect(try string("namespace-uri(//*[local-name() = 'StockName'])", Self.soap) == "")
        #expect(try string("namespace-uri()", xml) == "")
        #expect(try names("//*[@xml:lang]", xml) == [], "a prefixed attribute name test matches nothing either")
        #expect(try names("//*[@lang]", xml) == ["r", "b"], "but its local part does")
    }

    // MARK: - Namespaces

    @Test func matchesNamesWithoutNamespaces() throws {
        #expect(try texts("/Envelope/Body/GetStockPrice/StockName/text()", Self.soap) == ["ACME"])
        #expect(try texts("/soap:Envelope", Self.soap) == [], "a prefix binds to nothing")
        #expect(try texts("//m:StockName", Self.soap) == [])
        #expect(try texts("//m:*", Self.soap) == [])
        #expect(try texts("//*[local-name() = 'StockName']", Self.soap) == ["ACME"])
        #expect(try string("name(//StockName)", Self.soap) == "m:StockName")
        #expect(try string("local-name(//StockName)", Self.soap) == "StockName")
        #expect(try string("count(/Envelope/@*)", Self.soap) == "0", "xmlns attributes are not XPath attributes")
        #expect(try string("count(//@xmlns:m)", Self.soap) == "0")
        #expect(try string("count(/*/namespace::*)", Self.soap) == "0")
        #expect(try string("count(//@x)", #"<a p:x="1" x="2" xmlns:p="u"/>"#) == "2", "both local names are x")
        #expect(try string("count(//@*)", #"<a xmlns="u" xmlnsx="1"/>"#) == "1")
        let tree = try XMLTree(parsing: Self.soap)
        let envelope = try #require(tree.documentElement)
        #expect(tree.attributes(of: envelope).map(tree.name(of:)) == ["xmlns:m", "xmlns:soap"], "as a DOM has them")
        #expect(tree.localName(of: envelope) == "Envelope")
        let body = try XPathExpression("Body").evaluate(in: tree, context: envelope)
        #expect(body.string(in: tree) == "ACME", "evaluated from another context node")
        let fromBody = try XPathExpression("/Envelope/Body/GetStockPrice/StockName").evaluate(in: tree)
        guard case .nodes(let nodes) = fromBody else { throw XPathSyntaxError(message: "not nodes") }
        #expect(nodes.map { tree.serialized($0, pretty: true) } == ["<m:StockName>ACME</m:StockName>\n"])
    }

    // MARK: - Expression errors

    static let badExpressions: [(expression: String, message: String)] = [
        ("", "empty"),
        ("///", "expected a step after '//'"),
        ("//book[", "expected an expression"),
        ("//book[]", "cannot be empty"),
        ("//book[1", "expected ']'"),
        ("foo(1)", "unknown function foo()"),
        ("m:count(//a)", "unknown function m:count()"),
        ("count(1)", "must be a node-set"),
        ("sum('a')", "must be a node-set"),
        ("name('a')", "must be a node-set"),
        ("count()", "count() takes 1 argument, not 0"),
        ("concat('a')", "takes at least 2 arguments"),
        ("substring('a')", "takes 2 to 3 arguments"),
        ("true(1)", "takes 0 arguments"),
        ("1 | //a", "operands of '|' must be node-sets"),
        ("(1)[1]", "a predicate can only follow a node-set"),
        ("'a'/b", "a path can only follow a node-set"),
        ("$x", "variables are not supported"),
        (")", "expected an expression"),
        ("book/", "expected a step"),
        ("@", "expected a node test"),
        ("'unclosed", "not closed"),
        ("bogus::a", "unknown axis 'bogus'"),
        ("a b", "expected an operator at position 2, found 'b'"),
        ("1 2", "unexpected the number 2"),
        ("a = ", "expected an expression"),
        ("a ! b", "expected '=' after '!'"),
        ("#", "unexpected character '#'"),
        ("a:", "expected a name after 'a:'"),
        ("processing-instruction(1)", "expected ')'"),
        ("child::", "expected a node test"),
        ("//book[1]]", "unexpected ']'"),
        ("(1", "expected ')'"),
        ("a:b:c", "unexpected ':'"),
    ]

    @Test(arguments: badExpressions)
    func rejectsBadExpressions(expression: String, message: String) {
        let error = expressionError(expression)
        #expect(error?.message.contains(message) == true, "\(expression): \(error?.message ?? "parsed")")
    }

    @Test func boundsNesting() throws {
        let nested = String(repeating: "(", count: 30) + "1" + String(repeating: ")", count: 30)
        #expect(try string(nested) == "1")
        let tooDeep = String(repeating: "(", count: 100_000) + "1" + String(repeating: ")", count: 100_000)
        #expect(expressionError(tooDeep)?.message.contains("more than 32 levels") == true)
        let predicates = "//a" + String(repeating: "[b", count: 1000) + String(repeating: "]", count: 1000)
        #expect(expressionError(predicates) != nil)
        let long = (1...10_000).map(String.init).joined(separator: " + ")
        #expect(try string(long) == "50005000", "a long chain of operators does not nest")
        let negations = String(repeating: "-", count: 10_001) + "1"
        #expect(try string(negations) == "-1")
        let union = Array(repeating: "//title", count: 5000).joined(separator: " | ")
        #expect(try string("count(\(union))") == "2")
    }

    // MARK: - Serializing

    @Test func serializesAsWireMockDoes() throws {
        #expect(
            try pretty(Self.library, "/library/book[1]")
                == "<book id=\"1\" lang=\"en\">\n  <title>Dune</title>\n  <year>1965</year>\n</book>\n")
        #expect(try pretty(Self.library, "//title") == "<title>Dune</title>\n")
        #expect(try pretty(#"<a><b>1</b><c x="y"/></a>"#) == "<a>\n  <b>1</b>\n  <c x=\"y\"/>\n</a>\n")
        #expect(try pretty("<a>\n  <b>1</b>\n</a>") == "<a>\n  <b>1</b>\n</a>\n", "whitespace text is dropped")
        #expect(try pretty("<a><b><c>1</c></b></a>") == "<a>\n  <b>\n    <c>1</c>\n  </b>\n</a>\n")
        #expect(try pretty("<a><b/></a>") == "<a>\n  <b/>\n</a>\n")
        #expect(try pretty("<a/>") == "<a/>\n")
        #expect(try pretty("<a>  </a>") == "<a>  </a>\n", "an element with only text keeps it")
        #expect(try pretty("<a>line 1\nline 2</a>") == "<a>line 1\nline 2</a>\n")
        #expect(try pretty(#"<e z="1" a="2" m="3"/>"#) == "<e a=\"2\" m=\"3\" z=\"1\"/>\n")
        #expect(try pretty(Self.library, "//note/text()") == "two &amp; more", "a text alone, escaped")
        #expect(try pretty(Self.library, "//book/@lang") == "lang=\"en\"")
        #expect(try pretty("<a>x&#13;y</a>", "//text()") == "x\ry", "a text alone has no element to escape in")
    }

    @Test func serializesMixedContentCommentsAndInstructions() throws {
        #expect(try pretty("<a>x<b/>y</a>") == "<a>\n  x\n  <b/>\n  y\n</a>\n", "text among elements, on lines")
        #expect(try pretty("<a><!--c--></a>") == "<a>\n  <!--c-->\n</a>\n")
        #expect(try pretty("<a><?p d?><b>1</b></a>") == "<a>\n  <?p d?>\n  <b>1</b>\n</a>\n")
        #expect(try pretty("<!--top--><?p?><a><b/></a><!--end-->") == "<!--top--><?p?><a>\n  <b/>\n</a><!--end-->\n")
        #expect(
            try pretty("<a xml:space='preserve'> <b> x </b> </a>") == "<a xml:space=\"preserve\"> <b> x </b> </a>\n")
    }

    @Test func escapesTextAndAttributes() throws {
        let tree = try XMLTree(
            parsing: "<a q='&quot;&apos;&lt;&gt;&amp;&#9;&#10;&#13;'>&lt;&gt;&amp;\"'&#13;\u{85}😀</a>")
        #expect(
            tree.serialized(tree.root, pretty: false)
                == "<a q=\"&quot;'&lt;&gt;&amp;&#9;&#10;&#13;\">&lt;&gt;&amp;\"'&#13;&#133;&#128512;</a>")
    }

    @Test func writesTheFirstElementsOwnPrefixFirst() throws {
        let xml =
            "<r><p:a xmlns:z='1' c='x' xmlns:p='2' xmlns:b='3'><p:c xmlns:z='1' xmlns:p='5' xmlns:b='6'/></p:a></r>"
        let tree = try XMLTree(parsing: xml)
        let root = try #require(tree.documentElement)
        let first = try #require(tree.children(of: root).first)
        #expect(
            tree.serialized(first, pretty: false)
                == #"<p:a xmlns:p="2" xmlns:b="3" xmlns:z="1" c="x"><p:c xmlns:b="6" xmlns:p="5"/></p:a>"#)
        #expect(
            tree.serialized(tree.root, pretty: false)
                == #"<r><p:a xmlns:b="3" xmlns:p="2" xmlns:z="1" c="x"><p:c xmlns:b="6" xmlns:p="5"/></p:a></r>"#)
        let odd = try XMLTree(parsing: "<p:a xmlns:p='' xmlns:b='1'><b xmlns:xmlfoo='x' xmlnsfoo='y'/></p:a>")
        #expect(
            odd.serialized(odd.root, pretty: false) == #"<p:a xmlns:b="1"><b xmlns="y"/></p:a>"#, "as DOM2TO reads them"
        )
    }

    @Test func writesNamespaceDeclarationsFirstAndOnce() throws {
        let xml = #"<p:a z="1" xmlns:p="u" b="2"><p:b xmlns:p="u"/><p:c xmlns:p="v"/><d xmlns=""/></p:a>"#
        let tree = try XMLTree(parsing: xml)
        #expect(
            tree.serialized(tree.root, pretty: false)
                == #"<p:a xmlns:p="u" b="2" z="1"><p:b/><p:c xmlns:p="v"/><d/></p:a>"#)
    }

    @Test func serializesCompactly() throws {
        let tree = try XMLTree(parsing: "<a>\n  <b>1</b>\n  <c x=\"y\"> t </c>\n</a>")
        #expect(tree.serialized(tree.root, pretty: false) == "<a><b>1</b><c x=\"y\"> t </c></a>")
        let nodes = try XPathExpression("//b | //c").evaluate(in: tree)
        guard case .nodes(let selected) = nodes else { throw XPathSyntaxError(message: "not nodes") }
        #expect(selected.map { tree.serialized($0, pretty: false) } == ["<b>1</b>", "<c x=\"y\"> t </c>"])
    }

    // MARK: - Robustness

    @Test func survivesArbitraryInput() throws {
        var random = XPathTestRandom(seed: 7)
        let pieces = [
            "<a>", "</a>", "<b x='1'>", "</b>", "<c/>", "text", "&amp;", "&#", ";", "<!--", "-->", "<![CDATA[", "]]>",
            "<?p ", "?>", "<!DOCTYPE", "[", "]", ">", "<", "&", "'", "\"", "=", " ", "\n", "\r", "é", "😀", "\u{0}",
        ]
        let expressions = try ["//*", "//node()", "//@*/..", "count(//a//b)", "//*[1]/following::node()", "string(/)"]
            .map { try XPathExpression($0) }
        var parsed = 0
        for _ in 0..<3000 {
            let text = (0..<Int(random.next() % 16)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }
                .joined()
            guard let tree = try? XMLTree(parsing: "<r>" + text + "</r>") else { continue }
            parsed += 1
            for expression in expressions { _ = expression.evaluate(in: tree) }
            let compact = tree.serialized(tree.root, pretty: false)
            _ = tree.serialized(tree.root, pretty: true)
            #expect((try? XMLTree(parsing: compact)) != nil, "\(text) written as \(compact) reads back")
        }
        #expect(parsed > 100)
        let tokens = ["/", "//", "a", "*", "@", "[", "]", "(", ")", "1", "'x'", "|", "=", "and", ".", "..", "::", "-"]
        for _ in 0..<3000 {
            let text = (0..<Int(random.next() % 10)).map { _ in tokens[Int(random.next() % UInt64(tokens.count))] }
                .joined(separator: " ")
            if let expression = try? XPathExpression(text) {
                _ = expression.evaluate(in: try XMLTree(parsing: Self.axes))
            }
        }
    }
}

/// SplitMix64: reproducible random numbers for the robustness test.
private struct XPathTestRandom: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
