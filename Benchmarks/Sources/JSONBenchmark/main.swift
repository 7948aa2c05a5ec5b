// How fast stub files are read: the lenient JSON parser that reads them, against Foundation's JSONSerialization
// on the same bytes, and whole stub-file folders (reading and loading into a stubber) of 1,000 and 10,000
// mappings, in one file and in one file each.
//
//   swift run -c release --package-path Benchmarks JSONBenchmark [--quick] [--templates]
//
// The document: WireMock mappings of about 1 KB each (a URL, headers, a JSON body with escapes and non-ASCII
// text), 10 MB in all. Each figure is the best of five runs. Targets: the parser at least 5 times the 13 MB/s it
// had before (issue 16), and loading linear in the number of mappings (10,000 within 12 times 1,000). Then a
// typical response template, compiled once and rendered per request.

import Foundation
@_spi(Benchmarks) import StuntDouble
import StuntDoubleWireMock

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

let quick = CommandLine.arguments.contains("--quick")
let rounds = quick ? 2 : 5

/// One mapping of about 1 KB, in the two shapes real files have: a JSON body as JSON (`jsonBody`), or as a string
/// full of escaped quotes (`body`).
func mapping(_ index: Int) -> String {
    let items = (0..<6).map {
        #"{"id": \#($0), "name": "item \#(index)-\#($0) caf\u00e9 \"quoted\"", "price": 12.5e0}"#
    }
    let body =
        index % 2 == 0
        ? #""jsonBody": {"index": \#(index), "ok": true, "none": null, "items": [\#(items.joined(separator: ", "))]}"#
        : #""body": "\#(escaped(#"{"index": \#(index), "items": [\#(items.joined(separator: ", "))]}"#))""#
    return #"""
        {"id": "\#(uuid(index))", "name": "mapping \#(index)", "priority": 5,
         "request": {"method": "GET", "urlPath": "/items/\#(index)", "headers": {"Accept": {"equalTo": "application/json"}},
                     "queryParameters": {"page": {"matches": "[0-9]+"}}},
         "response": {"status": 200, "headers": {"Content-Type": "application/json", "X-Index": "\#(index)"}, \#(body)}}
        """#
}

/// Text as the inside of a JSON string: backslashes and quotes escaped.
func escaped(_ text: String) -> String {
    text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
}

func uuid(_ index: Int) -> String {
    String(format: "%08x-0000-4000-8000-%012x", index, index)
}

func best(_ body: () throws -> Void) rethrows -> Double {
    var times: [Double] = []
    for _ in 0..<rounds {
        let start = ContinuousClock.now
        try body()
        let elapsed = ContinuousClock.now - start
        times.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }
    return times.min() ?? 0
}

// The stub-file part, unless only templates are asked for (`--templates`, for a profiler).
if !CommandLine.arguments.contains("--templates") {
    // MARK: - The parser

    var document = "{\"mappings\": ["
    var count = 0
    while document.utf8.count < 10_000_000 {
        document += (count == 0 ? "" : ",\n") + mapping(count)
        count += 1
    }
    document += "]}"
    let bytes = Array(document.utf8)
    let data = Data(bytes)
    let megabytes = Double(bytes.count) / 1_000_000

    var values = 0
    let ours = best { values = BenchmarkHooks.parseStubFileJSON(bytes) ?? -1 }
    var foundationCount = 0
    let foundation = best {
        let object = try! JSONSerialization.jsonObject(with: data)
        foundationCount = ((object as? [String: Any])?["mappings"] as? [Any])?.count ?? -1
    }
    precondition(values > 0 && foundationCount == count, "both parsers read the document")
    print(String(format: "JSON, %.1f MB (%d mappings), best of %d:", megabytes, count, rounds))
    print(String(format: "  StuntDouble's lenient parser   %7.1f MB/s  (%.3f s)", megabytes / ours, ours))
    print(String(format: "  Foundation's JSONSerialization %7.1f MB/s  (%.3f s)", megabytes / foundation, foundation))
    print(
        String(
            format: "  ratio: %.2f of JSONSerialization; %.1fx the 13 MB/s before issue 16", foundation / ours,
            megabytes / ours / 13))

    // MARK: - Stub-file folders

    func folder(mappings: Int, filePerMapping: Bool) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("json-benchmark-\(UUID().uuidString)")
        let folder = root.appendingPathComponent("mappings")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        if filePerMapping {
            for index in 0..<mappings {
                try Data(mapping(index).utf8).write(to: folder.appendingPathComponent("m\(index).json"))
            }
        } else {
            let text = "{\"mappings\": [" + (0..<mappings).map(mapping).joined(separator: ",\n") + "]}"
            try Data(text.utf8).write(to: folder.appendingPathComponent("all.json"))
        }
        return root
    }

    print("stub-file folders, read and loaded into a stubber (HTTPStubber.load(stubFilesAt:)), best of \(rounds):")
    var times: [String: Double] = [:]
    for filePerMapping in [false, true] {
        for mappings in [1_000, 10_000] {
            let root = try folder(mappings: mappings, filePerMapping: filePerMapping)
            defer { try? FileManager.default.removeItem(at: root) }
            let time = try best {
                let stubber = HTTPStubber()
                let (_, loaded) = try stubber.load(stubFilesAt: root)
                precondition(loaded.count == mappings)
            }
            let layout = filePerMapping ? "one file each" : "one file"
            times["\(layout) \(mappings)"] = time
            print(
                String(
                    format: "  %6d mappings, %-14s %7.3f s  (%.0f mappings/s)", mappings, layout, time,
                    Double(mappings) / time))
        }
        let layout = filePerMapping ? "one file each" : "one file"
        if let small = times["\(layout) 1000"], let large = times["\(layout) 10000"] {
            print(String(format: "  growth from 1,000 to 10,000 (%@): %.1fx (linear is 10x)", layout, large / small))
        }
    }
}

// MARK: - Response templates

/// A typical templated body (the kind real mapping files have): the request's path segment, query and header,
/// a JSONPath from its body, a condition, a loop, a date and a random id. Target: at most 15 µs a render
/// (measured 10 µs when set, 173k instructions a render; 7.1 µs and 104k since the query is decoded once a render
/// and numeric dates are written without DateFormatter).
let templateText = #"""
    {"id": "{{request.pathSegments.[1]}}", "name": "{{jsonPath request.body '$.name'}}",
     "page": {{#if request.query.page}}{{request.query.page}}{{else}}1{{/if}},
     "trace": "{{request.headers.X-Trace}}", "tags": [{{#each request.query.tag}}"{{this}}"{{#unless @last}}, {{/unless}}{{/each}}],
     "at": "{{now format='yyyy-MM-dd'}}", "ref": "{{randomValue length=12 type='ALPHANUMERIC'}}"}
    """#
var templateRequest = URLRequest(url: URL(string: "http://localhost:8080/users/42?page=3&tag=a&tag=b")!)
templateRequest.httpMethod = "POST"
templateRequest.setValue("t-1", forHTTPHeaderField: "X-Trace")
templateRequest.httpBody = Data(#"{"name": "Ada", "roles": ["admin"]}"#.utf8)
let incoming = try HTTPIncomingRequest(templateRequest)
let renders = quick ? 2_000 : 20_000
var compiled: ResponseTemplate?
let compileTime = best { compiled = try? ResponseTemplate(templateText) }
guard let template = compiled else { fatalError("the benchmark's template compiles") }
let environment = TemplateEnvironment(now: { Date(timeIntervalSince1970: 1_767_225_600) }, seed: 1)
var rendered = 0
let renderTime = best {
    for _ in 0..<renders { rendered &+= template.render(for: incoming, environment: environment).utf8.count }
}
precondition(rendered > 0)
let microseconds = renderTime / Double(renders) * 1e6
print("response templates (\(templateText.utf8.count) bytes, 8 helpers and paths), best of \(rounds):")
print(String(format: "  compile once   %8.1f µs", compileTime * 1e6))
print(String(format: "  render         %8.1f µs per request (%d renders)", microseconds, renders))
print(microseconds <= 15 ? "  target met (at most 15 µs)" : "  target missed: more than 15 µs per render")

/// The most common templated body in real files: a value or two from the request.
let simpleText = #"{"id": "{{request.pathSegments.[1]}}", "trace": "{{request.headers.X-Trace}}", "state": "ok"}"#
guard let simple = try? ResponseTemplate(simpleText) else { fatalError("the simple template compiles") }
var simpleRendered = 0
let simpleTime = best {
    for _ in 0..<renders { simpleRendered &+= simple.render(for: incoming, environment: environment).utf8.count }
}
precondition(simpleRendered > 0)
print(
    String(
        format: "  render, a value or two from the request (%d bytes): %.1f µs", simpleText.utf8.count,
        simpleTime / Double(renders) * 1e6))

/// One helper at a time, each in a typical use: what a render that uses it costs (helpers that make a formatter
/// keep it, by pattern and locale, so the cost is the formatting).
let helperCases: [(name: String, template: String, body: String)] = [
    (
        "xPath (a text, 4 elements)", "{{xPath request.body '/order/item[2]/sku/text()'}}",
        "<order><item><sku>a1</sku></item><item><sku>b2</sku></item></order>"
    ),
    (
        "xPath (an element as XML)", "{{{xPath request.body '/order/item[2]'}}}",
        "<order><item><sku>a1</sku></item><item><sku>b2</sku></item></order>"
    ),
    (
        "soapXPath", "{{soapXPath request.body '/GetPrice/Item/text()'}}",
        "<soap:Envelope xmlns:soap=\"http://www.w3.org/2003/05/soap-envelope\"><soap:Body><m:GetPrice "
            + "xmlns:m=\"urn:x\"><m:Item>Apples</m:Item></m:GetPrice></soap:Body></soap:Envelope>"
    ),
    ("numberFormat (a pattern)", "{{numberFormat 1234567.891 '#,##0.00' 'de_DE'}}", ""),
    ("numberFormat (currency)", "{{numberFormat 1234.5 'currency' 'en_GB'}}", ""),
    ("stringFormat", "{{stringFormat '%05d and %.2f' 42 3.14159}}", ""),
    ("dateFormat (a style, a locale)", "{{dateFormat (parseDate '2024-02-29T13:45:30Z') 'full' 'fr'}}", ""),
    ("math (BigDecimal)", "{{math '0.1' '+' '0.2'}}", ""),
    ("jsonMerge", "{{{jsonMerge request.body '{\"b\": {\"d\": 3}}'}}}", "{\"a\": 1, \"b\": {\"c\": 2}}"),
    ("formatJson", "{{{formatJson request.body}}}", "{\"a\": 1, \"b\": [1, 2], \"c\": {\"d\": null}}"),
    ("slugify", "{{slugify 'Hello, World: a title'}}", ""),
]
print("one helper a render (µs, best of \(rounds)):")
for helper in helperCases {
    guard let compiledHelper = try? ResponseTemplate(helper.template) else {
        fatalError("the \(helper.name) template compiles")
    }
    var helperRequest = URLRequest(url: URL(string: "http://localhost:8080/x")!)
    helperRequest.httpMethod = "POST"
    helperRequest.httpBody = Data(helper.body.utf8)
    let helperIncoming = try HTTPIncomingRequest(helperRequest)
    let count = renders / 4
    var bytes = 0
    let time = best {
        for _ in 0..<count {
            bytes &+= compiledHelper.render(for: helperIncoming, environment: environment).utf8.count
        }
    }
    precondition(bytes > 0 && !compiledHelper.render(for: helperIncoming, environment: environment).contains("[ERROR"))
    let name = helper.name.padding(toLength: 32, withPad: " ", startingAt: 0)
    print("  \(name) " + String(format: "%6.1f µs", time / Double(count) * 1e6))
}
