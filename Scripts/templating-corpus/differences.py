"""Where StuntDouble answers a corpus case differently from WireMock 2.35.1 on purpose, with the answer it gives
and why. Each is where WireMock 3 answers as we do (its helpers and request model, read in its 3.13 sources and
tests), or where 2.35.1 writes something no one can want. The DocC article Response Templating lists the same.
"""


def ok(body, why):
    return {"answer": {"status": 200, "body": body}, "why": why}


WM3 = "a WireMock 3 helper that 2.35.1 lacks (it answers 500)"

DIFFERENCES = {
    "body as base64": ok("aGVsbG8sIHdvcmxk", "request.bodyAsBase64 is WireMock 3's (2.35.1 writes nothing)"),
    "upper as a block": ok("INSIDE GET", "2.35.1 writes its whole context in upper case, not the block's text"),
    "toJson of parsed": ok('{\n  "a" : [ 1, 2 ],\n  "b" : "x"\n}', WM3),
    "toJson of a list": ok('[ 1, "two", true ]', WM3),
    "toJson of text": ok('"text"', WM3),
    "formatJson": ok('{\n  "a" : 1,\n  "b" : [ 1, 2 ],\n  "c" : { }\n}', WM3),
    "formatJson compact": ok('{"a":1,"b":{"c":2}}', WM3),
    "formatJson of the body": ok('{\n  "x" : {\n    "y" : [ true, null ]\n  }\n}', WM3),
    "jsonMerge": ok('{"a":1,"b":{"c":2,"d":3},"e":4}', WM3),
    "jsonMerge replaces": ok('{"a":[2]}', WM3),
    "jsonArrayAdd": ok("[1,2,3]", WM3),
    "jsonArrayAdd an object": ok('[{"a":1},{"b":2}]', WM3),
    "jsonArrayAdd maxItems": ok("[2,3,4]", WM3 + "; maxItems keeps the last items"),
    "jsonArrayAdd flatten": ok("[1,2,3]", WM3),
    "jsonRemove": ok('{"b":2}', WM3),
    "jsonRemove from an array": ok('[{"id":2}]', WM3),
    "arrayAdd": ok("[1, 2, 3]", WM3),
    "arrayAdd at a position": ok("[9, 1, 2]", WM3),
    "arrayAdd at the end": ok("[1, 2, 9]", WM3),
    "arrayRemove": ok("[1, 3]", WM3),
    "arrayRemove the last": ok("[1, 2]", WM3),
    "arrayJoin": ok("a,b,c", WM3),
    "arrayJoin prefix suffix": ok("&lt;a, b&gt;", WM3),
    "arrayJoin block": ok("n1;n2", WM3),
    "val present": ok("x", WM3),
    "val missing default": ok("d", WM3),
    "val or": ok("o", WM3),
    "val into a variable": ok("kept", WM3),
    "pickRandom with a count": ok("(matches)", "count= is WireMock 3's (2.35.1 ignores it and picks one)"),
    "xPath count(//book)": ok("[2]", "WireMock 3 gives an XPath's number (2.35.1 writes an error)"),
    "xPath name(/library/*[1])": ok("[book]", "WireMock 3 gives an XPath's text (2.35.1 writes an error)"),
    "xPath string(/library/book[2]/title)": ok(
        "[Vendredi]", "WireMock 3 gives an XPath's text (2.35.1 writes an error)"),
    "xPath sum()": ok("[3,932]", "WireMock 3 gives an XPath's number, as Java's NumberFormat writes it"),
    "formatXml": ok('<a>\n  <b>1</b>\n  <c x="y"/>\n</a>\n', WM3),
    "formatXml compact": ok("<a><b>1</b></a>", WM3),
    "xPath of CDATA": ok(
        "x &lt; y", "a CDATA section's text is its text (WireMock writes Java DOM's [#cdata-section: ...])"),
    "math 9007199254740993 + 0": ok(
        "9007199254740993", "a whole number keeps its digits (WireMock reads a long through a double, losing the last)"),
}
