"""The templating corpus: templated stubs and the requests that render them, written for StuntDouble (none is
copied from WireMock's tests). `Scripts/compare-templating` serves them from WireMock 2.35.1 and from
`stuntdouble serve` and compares the answers.

Each case is one stub at its own path (`/c<number>` and anything below it) and one request to it. A case's answer
is its status, its body and the headers it names. Where an answer cannot repeat (the time, random values, the
host's name) a case gives `pattern`, a regular expression both answers' bodies must match whole. Where we follow
WireMock 3 rather than 2.35.1, the case is listed in DIFFERENCES (in `differences.py`) with the answer we give.
"""

CASES = []


def case(name, template, path="", method="GET", headers=None, body=None, *, pattern=None, response=None,
         files=None, headers_compared=(), request=None, proxy=False):
    """Adds a case.

    name: unique, says what the case shows. template: the response body (a template). path: below the case's
    own path, with its query. response: more of the stub's response (headers, bodyFileName, ...), which replaces
    `body` when it names `bodyFileName` or `jsonBody`. files: {name: text} put in __files. request: more of the
    stub's request pattern. proxy: the stub proxies to the script's upstream, whose base URL is written
    `{upstream}` (the Swift tests, which have no upstream, leave these out).
    """
    CASES.append(dict(name=name, template=template, path=path, method=method, headers=headers or {}, body=body,
                      pattern=pattern, response=response or {}, files=files or {},
                      headers_compared=list(headers_compared), request=request or {}, proxy=proxy))


# ---------------------------------------------------------------------------------------------------------------
# The request model
JSON_HEADERS = {"Content-Type": "application/json"}

case("url with its query", "{{request.url}}", "/a/b?x=1&y=two")
case("url with encoded characters", "{{request.url}}", "/a%20b/c%2Fd?q=a+b%26c")
case("path", "{{request.path}}", "/users/42")
case("path decoded", "{{request.path}}", "/a%20b/caf%C3%A9")
case("path segment by index", "{{request.path.[1]}}", "/users/42/orders")
case("path segment 0 is the case's", "{{request.path.[0]}}", "/users/42")
case("path segment past the end", "[{{request.path.[9]}}]", "/users/42")
case("pathSegments by index", "{{request.pathSegments.[2]}}", "/users/42/orders")
case("pathSegments decoded", "{{request.pathSegments.[1]}}", "/a%20b")
case("pathSegments as a whole", "{{request.pathSegments}}", "/x/y")
case("each over path segments", "{{#each request.pathSegments}}<{{this}}>{{/each}}", "/p/q/r")
case("query parameter", "{{request.query.name}}", "?name=Ada")
case("query parameter decoded", "{{request.query.q}}", "?q=a+b%20c%26d")
case("query parameter repeated", "{{request.query.tag}}", "?tag=a&tag=b&tag=c")
case("query parameter repeated by index", "{{request.query.tag.[1]}}", "?tag=a&tag=b&tag=c")
case("query parameter first", "{{request.query.tag.first}}", "?tag=a&tag=b&tag=c")
case("query parameter last", "{{request.query.tag.last}}", "?tag=a&tag=b&tag=c")
case("query parameter single first", "{{request.query.id.first}}", "?id=7")
case("query parameter missing", "[{{request.query.nope}}]", "?id=7")
case("query parameter empty value", "[{{request.query.e}}]", "?e=&f=1")
case("query parameter without a value", "[{{request.query.flag}}]", "?flag&f=1")
case("query each over a repeated parameter", "{{#each request.query.tag}}{{this}};{{/each}}", "?tag=a&tag=b")
case("query size of a repeated parameter", "{{size request.query.tag}}", "?tag=a&tag=b&tag=c")
case("query parameter with a dash", "{{request.query.[x-y]}}", "?x-y=dash")
case("header", "{{request.headers.X-Id}}", headers={"X-Id": "h7"})
case("header in another case", "{{request.headers.x-id}}", headers={"X-Id": "h8"})
case("header missing", "[{{request.headers.X-None}}]")
case("header with commas", "{{request.headers.X-List}}", headers={"X-List": "a, b, c"})
case("header first", "{{request.headers.X-Id.first}}", headers={"X-Id": "one"})
case("header by index", "{{request.headers.X-Id.[0]}}", headers={"X-Id": "zero"})
case("cookie", "{{request.cookies.session}}", headers={"Cookie": "theme=dark; session=s3cr3t"})
case("cookie missing", "[{{request.cookies.none}}]", headers={"Cookie": "a=1"})
case("cookie with an equals sign in its value", "{{request.cookies.t}}", headers={"Cookie": "t=a=b; u=2"})
case("method GET", "{{request.method}}")
case("method POST", "{{request.method}}", method="POST", body="x")
case("method PUT", "{{request.method}}", method="PUT", body="x")
case("method DELETE", "{{request.method}}", method="DELETE")
case("method PATCH", "{{request.method}}", method="PATCH", body="x")
case("method OPTIONS", "{{request.method}}", method="OPTIONS")
case("scheme", "{{request.scheme}}")
case("host", "{{request.host}}")
case("port is a number", "{{#if (gt request.port 0)}}yes{{/if}}")
case("baseUrl", "{{request.baseUrl}}", pattern=r"http://127\.0\.0\.1:\d+")
case("body", "{{{request.body}}}", method="POST", body="plain <text> & more")
case("body escaped", "{{request.body}}", method="POST", body="a<b>&\"c'=`")
case("body empty", "[{{request.body}}]", method="POST", body="")
case("body as base64", "{{request.bodyAsBase64}}", method="POST", body="hello, world")
case("body unicode", "{{{request.body}}}", method="POST", body="caf\u00e9 \u2603 \U0001F600")
case("requestLine method", "{{request.requestLine.method}}", method="DELETE")
case("requestLine path", "{{request.requestLine.path}}", "/x/y?z=1")
case("requestLine path segments", "{{request.requestLine.pathSegments.[1]}}", "/x/y")
case("requestLine query", "{{request.requestLine.query.z}}", "?z=1")
case("requestLine scheme", "{{request.requestLine.scheme}}")
case("requestLine host", "{{request.requestLine.host}}")
case("requestLine port", "{{#if request.requestLine.port}}has a port{{/if}}")
case("requestLine baseUrl", "{{request.requestLine.baseUrl}}", pattern=r"http://127\.0\.0\.1:\d+")
case("unknown request field", "[{{request.nothing}}]")
case("request alone", "{{#if request}}there{{/if}}")

# ---------------------------------------------------------------------------------------------------------------
# Escaping, whitespace, comments and literal braces
case("html escaping of a value", "{{request.query.v}}", "?v=%3Ca+href%3D%27x%27%3E%26%22%60")
case("triple braces do not escape", "{{{request.query.v}}}", "?v=%3Ca+href%3D%27x%27%3E%26%22%60")
case("ampersand does not escape", "{{&request.query.v}}", "?v=%3Cb%3E")
case("escaped mustache later in the text", "a {{request.method}} \\{{request.method}} b")
case("escaped mustache first", "\\{{request.method}} and {{request.method}}")
case("escaped mustache only", "x \\{{not a tag}} y")
case("lone opening braces", "a {{ b")
case("lone braces not closed at the end", "text {{request.method}")
case("braces in JSON", '{"a": {"b": "{{request.method}}"}}')
case("single braces stay", "{a} {{request.method}} {b}")
case("tilde strips after", "[{{~request.method~}}   ]")
case("tilde strips before, later text", "x {{request.method}}   {{~request.method}}")
case("tilde on the first tag keeps the leading text", "   {{~request.method}}")
case("tilde after", "{{request.method~}}   \n  next")
case("comment", "a{{! a comment }}b")
case("long comment", "a{{!-- has }} inside --}}b")
case("newlines kept", "line1\n{{request.method}}\nline3\n")
case("standalone block lines", "[\n  {{#each request.query.t}}\n  \"{{this}}\",\n  {{/each}}\n]", "?t=a&t=b")
case("standalone if lines", "a\n{{#if request.query.x}}\nyes\n{{else}}\nno\n{{/if}}\nz", "?x=1")
case("standalone else lines", "a\n{{#if request.query.x}}\nyes\n{{else}}\nno\n{{/if}}\nz")
case("standalone with indentation", "{\n    {{#with request}}\n    \"m\": \"{{method}}\"\n    {{/with}}\n}")
case("standalone comment line", "a\n{{! note }}\nb")
case("standalone tags with crlf", "a\r\n{{#if true}}\r\nb\r\n{{/if}}\r\nc")
case("inline block keeps spaces", "a {{#if true}} b {{/if}} c")
case("not standalone with text", "a {{#if true}}\nb\n{{/if}} c")
case("text before the first tag with tilde and backslash", "  \\{{request.method}} {{~request.method}}")
case("crlf text", "a\r\nb {{request.method}}\r\n")
case("unicode around tags", "\u00e9{{request.method}}\u2603")
case("quotes in a literal", "{{upper 'it\\'s'}}")
case("double-quoted literal", '{{upper "say \\"hi\\""}}')
case("a dot path", "{{#with request}}{{this.method}}{{/with}}")
case("this in each", "{{#each request.pathSegments}}{{this}}{{#unless @last}},{{/unless}}{{/each}}", "/a/b/c")
case("parent scope", "{{#each request.pathSegments}}{{../request.method}}:{{this}} {{/each}}", "/a/b")
case("root data", "{{#each request.pathSegments}}{{@root.request.method}}{{/each}}", "/a")
case("segment literal path", "{{request.[method]}}")
case("slash path separator", "{{request/method}}")

# ---------------------------------------------------------------------------------------------------------------
# Blocks and logic
case("if true", "{{#if request.query.a}}A{{else}}none{{/if}}", "?a=1")
case("if missing", "{{#if request.query.a}}A{{else}}none{{/if}}")
case("if empty string", "{{#if request.query.a}}A{{else}}none{{/if}}", "?a=")
case("if zero string", "{{#if request.query.a}}A{{else}}none{{/if}}", "?a=0")
case("if false string", "{{#if request.query.a}}A{{else}}none{{/if}}", "?a=false")
case("if literal zero", "{{#if 0}}A{{else}}none{{/if}}")
case("if literal zero includeZero", "{{#if 0 includeZero=true}}A{{else}}none{{/if}}")
case("if empty list", "{{#if (array)}}A{{else}}none{{/if}}")
case("unless", "{{#unless request.query.a}}no a{{else}}a{{/unless}}")
case("else if chain", "{{#if (eq request.query.n '1')}}one{{else if (eq request.query.n '2')}}two{{else}}many{{/if}}",
     "?n=2")
case("else if chain falls through", "{{#if (eq request.query.n '1')}}one{{else if (eq request.query.n '2')}}two"
     "{{else}}many{{/if}}", "?n=5")
case("each with index first last", "{{#each request.query.t}}{{@index}}{{@first}}{{@last}}|{{/each}}", "?t=a&t=b&t=c")
case("each with else", "{{#each request.query.none}}x{{else}}empty{{/each}}")
case("each over an object keeps key order", "{{#each (parseJson '{\"z\":1,\"a\":2,\"m\":3}')}}{{@key}}={{this}};"
     "{{/each}}")
case("each over a parsed array", "{{#each (parseJson '[3,1,2]')}}{{this}}{{/each}}")
case("each with block params", "{{#each request.pathSegments as |s i|}}{{i}}:{{s}} {{/each}}", "/a/b")
case("nested each", "{{#each (parseJson '[[1,2],[3]]')}}[{{#each this}}{{this}}{{/each}}]{{/each}}")
case("with", "{{#with request.headers}}{{X-A}}{{/with}}", headers={"X-A": "with"})
case("with else", "{{#with request.query.none}}x{{else}}nothing{{/with}}")
case("lookup in a list", "{{lookup request.pathSegments 1}}", "/a/b")
case("lookup by name", "{{lookup request.query 'k'}}", "?k=v")
case("eq strings", "{{#eq request.query.a 'x'}}same{{else}}different{{/eq}}", "?a=x")
case("eq strings differ", "{{#eq request.query.a 'x'}}same{{else}}different{{/eq}}", "?a=y")
case("eq numbers", "{{#if (eq 1 1.0)}}same{{else}}different{{/if}}")
case("eq number and string", "{{#if (eq 5 '5')}}same{{else}}different{{/if}}")
case("eq a repeated query with a value", "{{#if (eq request.query.a 'x')}}same{{else}}different{{/if}}", "?a=x&a=y")
case("eq a single query with a value", "{{#if (eq request.query.a 'x')}}same{{else}}different{{/if}}", "?a=x")
case("eq a header with a value", "{{#if (eq request.headers.X-A 'v')}}same{{else}}different{{/if}}",
     headers={"X-A": "v"})
case("eq as a value", "{{eq 'a' 'a'}}")
case("neq", "{{#neq 'a' 'b'}}differ{{/neq}}")
case("gt numbers", "{{#gt request.query.n 10}}big{{else}}small{{/gt}}", "?n=11")
case("gt numbers as text", "{{#gt request.query.n '10'}}big{{else}}small{{/gt}}", "?n=9")
case("gte equal", "{{#gte 3 3}}yes{{else}}no{{/gte}}")
case("lt", "{{#lt 2 3}}yes{{else}}no{{/lt}}")
case("lte", "{{#lte 4 3}}yes{{else}}no{{/lte}}")
case("gt strings", "{{#gt 'b' 'a'}}yes{{else}}no{{/gt}}")
case("and", "{{#and true request.query.a}}both{{else}}not both{{/and}}", "?a=1")
case("and false", "{{#and true request.query.a}}both{{else}}not both{{/and}}")
case("or", "{{#or false request.query.a}}either{{else}}neither{{/or}}", "?a=1")
case("not", "{{#not request.query.a}}no a{{/not}}")
case("and as a value", "{{and true false}}")
case("or as a value", "{{or false 'x'}}")
case("contains text", "{{#contains request.body 'needle'}}found{{else}}missing{{/contains}}", method="POST",
     body="hay needle hay")
case("contains in a list", "{{#contains (array 'a' 'b') 'b'}}found{{else}}missing{{/contains}}")
case("contains as a value", "{{contains 'abc' 'z'}}")
case("matches", "{{#matches request.query.id '[0-9]+'}}number{{else}}not{{/matches}}", "?id=123")
case("matches partly is not a match", "{{#matches request.query.id '[0-9]+'}}number{{else}}not{{/matches}}",
     "?id=12a")
case("matches as a value", "{{matches 'abc' 'a.c'}}")
case("assign and use", "{{#assign 'greeting'}}Hi {{request.query.n}}{{/assign}}{{greeting}}!", "?n=Bo")
case("assign in a loop", "{{#each request.query.t}}{{#assign 'last'}}{{this}}{{/assign}}{{/each}}{{last}}",
     "?t=a&t=z")

# ---------------------------------------------------------------------------------------------------------------
# Text helpers
WORDS = ["hello world", "", "  padded  ", "MiXeD cAsE", "\u00e9t\u00e9 \u00e0 paris", "a-b_c d.e",
         "<b>bold</b> text", "o'neil & co"]
for index, word in enumerate(WORDS):
    q = {"w": word}
    import urllib.parse as _parse
    query = "?" + _parse.urlencode(q)
    for helper in ["upper", "lower", "capitalize", "capitalizeFirst", "trim", "slugify", "stripTags"]:
        case(f"{helper} of text {index}", "[{{%s request.query.w}}]" % helper, query)
case("capitalize fully", "{{capitalize 'hELLO wORLD' fully=true}}")
case("capitalize not fully", "{{capitalize 'hELLO wORLD'}}")
case("upper of a number", "{{upper 12}}")
case("upper as a block", "{{#upper}}inside {{request.method}}{{/upper}}")
case("trim as a block", "[{{#trim}}   spaced   {{/trim}}]")
case("lower of nothing", "[{{lower request.query.none}}]")
for width in [0, 3, 5, 11, 12, 20]:
    case(f"center {width}", "[{{center 'hello' size=%d}}]" % width)
    case(f"ljust {width}", "[{{ljust 'hello' size=%d}}]" % width)
    case(f"rjust {width}", "[{{rjust 'hello' size=%d}}]" % width)
case("center with pad", "[{{center 'hi' size=9 pad='*'}}]")
case("ljust with pad", "[{{ljust 'hi' size=6 pad='-'}}]")
case("rjust with pad", "[{{rjust '42' size=6 pad='0'}}]")
case("rjust of a number", "[{{rjust 42 size=6 pad='0'}}]")
case("center without size", "[{{center 'hi'}}]")
case("cut spaces", "{{cut 'a b c' ' '}}")
case("cut a word", "{{cut 'banana' 'an'}}")
case("cut nothing found", "{{cut 'banana' 'x'}}")
case("defaultIfEmpty empty", "{{defaultIfEmpty request.query.v 'nothing'}}", "?v=")
case("defaultIfEmpty missing", "{{defaultIfEmpty request.query.v 'nothing'}}")
case("defaultIfEmpty present", "{{defaultIfEmpty request.query.v 'nothing'}}", "?v=x")
case("stringFormat text", "{{stringFormat 'Hello %s, you are %s' 'Ada' 'late'}}")
case("stringFormat number padding", "{{stringFormat '%05d' 42}}")
case("stringFormat float", "{{stringFormat '%.2f' 3.14159}}")
case("stringFormat hex", "{{stringFormat '%x' 255}}")
case("stringFormat percent", "{{stringFormat '100%%'}}")
case("stringFormat width", "[{{stringFormat '%-6s|%6s' 'ab' 'cd'}}]")
case("wordWrap", "{{wordWrap 'the quick brown fox jumps over the lazy dog' 10}}")
case("wordWrap long word", "{{wordWrap 'supercalifragilistic is long' 5}}")
case("yesno true", "{{yesno true}}")
case("yesno false", "{{yesno false}}")
case("yesno null", "{{yesno request.query.none}}")
case("yesno custom", "{{yesno true yes='aye' no='nay'}}")
case("yesno custom maybe", "{{yesno request.query.none yes='aye' no='nay' maybe='perhaps'}}")
case("abbreviate", "{{abbreviate 'Lorem ipsum dolor sit amet' 12}}")
case("abbreviate short", "{{abbreviate 'Lorem' 12}}")
case("abbreviate minimum", "{{abbreviate 'Lorem ipsum' 4}}")
case("replace", "{{replace 'a-b-c' '-' '+'}}")
case("replace nothing", "{{replace 'abc' 'x' 'y'}}")
case("substring from", "{{substring 'hello world' 6}}")
case("substring range", "{{substring 'hello world' 0 5}}")
case("join a list", "{{join (array 'a' 'b' 'c') ','}}")
case("join separator first", "{{join ',' 'a' 'b' 'c'}}")
case("join with prefix and suffix", "{{join ', ' (array 'a' 'b') prefix='[' suffix=']'}}")
case("join a repeated query", "{{join request.query.t '|'}}", "?t=x&t=y")
case("base64 encode", "{{base64 'hello world'}}")
case("base64 encode no padding", "{{base64 'hi' padding=false}}")
case("base64 decode", "{{base64 'aGVsbG8gd29ybGQ=' decode=true}}")
case("base64 of a block", "{{#base64}}block text{{/base64}}")
case("urlEncode", "{{urlEncode 'a b&c=d/e?f'}}")
case("urlEncode unicode", "{{urlEncode 'caf\u00e9'}}")
case("urlEncode decode", "{{urlEncode 'a+b%26c' decode=true}}")
case("regexExtract", "{{regexExtract request.body '[A-Z]+[0-9]+'}}", method="POST", body="order AB123 done")
case("regexExtract groups", "{{regexExtract request.body '([a-z]+)-([0-9]+)' 'parts'}}{{parts.1}}/{{parts.0}}",
     method="POST", body="id abc-77")
case("regexExtract default", "{{regexExtract 'abc' '[0-9]+' default='none'}}")
case("size of text", "{{size 'hello'}}")
case("size of a list", "{{size (array 1 2 3)}}")
case("size of parsed JSON", "{{size (parseJson '{\"a\":1,\"b\":2}')}}")
case("split", "{{#each (split 'a,b,c' ',')}}<{{this}}>{{/each}}")
case("split to a value", "{{split 'a,b' ','}}")

# ---------------------------------------------------------------------------------------------------------------
# JSON
ORDER = ('{"id": 7, "name": "Dana", "tags": ["a", "b"], "address": {"city": "Oslo", "zip": null}, '
         '"items": [{"sku": "x1", "qty": 2, "price": 1.5}, {"sku": "y2", "qty": 1, "price": 10}], '
         '"active": true, "ratio": 0.25}')
for expression in ["$.id", "$.name", "$.tags", "$.tags[0]", "$.tags[-1:]", "$.address", "$.address.city",
                   "$.address.zip", "$.items", "$.items[0]", "$.items[*].sku", "$.items[?(@.qty > 1)].sku",
                   "$..sku", "$..zip", "$..city", "$.active", "$.ratio", "$.items.length()", "$.missing",
                   "$.items[1].price", "$",
                   # The rest of the syntax stub files use: bracket names, index lists, slices, wildcards on an
                   # object, several names, filters (regex, the root, and/or/not, existence) and size().
                   "$['address']['city']", "$.['name']", "$.items[-1].sku", "$.items[0,1].qty", "$.items[:1].sku",
                   "$.address.*", "$['address']['city','zip']", "$.items[?(@.sku =~ /X.*/i)].qty",
                   "$.items[?(@.sku =~ /X.*/)].qty", "$.items[?(@.price > $.ratio)].sku",
                   "$.items[?(@.qty >= 1 && @.price < 5)].sku", "$.items[?(@.qty == 2 || @.price == 10)].sku",
                   "$.items[?(!@.missing)].sku", "$.items[?(@.sku == 'y2')].price", "$.items[?(@.sku != 'y2')].qty",
                   "$.tags.size()", "$.name.length()", "$.address.length()", "$..items[0].sku", "$.items[9]",
                   "$.tags[5:]"]:
    case(f"jsonPath {expression}", "[{{jsonPath request.body '%s'}}]" % expression, method="POST", body=ORDER,
         headers=JSON_HEADERS)
case("jsonPath default", "{{jsonPath request.body '$.missing' default='fallback'}}", method="POST", body=ORDER)
case("jsonPath on not JSON", "{{jsonPath request.body '$.a'}}", method="POST", body="not json")
case("jsonPath bad expression", "{{jsonPath request.body '$.['}}", method="POST", body=ORDER)
case("jsonPath each over an array", "{{#each (jsonPath request.body '$.items')}}{{sku}}x{{qty}};{{/each}}",
     method="POST", body=ORDER)
case("jsonPath each over an object", "{{#each (jsonPath request.body '$.address')}}{{@key}}={{this}};{{/each}}",
     method="POST", body=ORDER)
case("jsonPath triple braces object", "{{{jsonPath request.body '$.address'}}}", method="POST", body=ORDER)
case("jsonPath with member", "{{#with (jsonPath request.body '$.address')}}{{city}}{{/with}}", method="POST",
     body=ORDER)
case("jsonPath into math", "{{math (jsonPath request.body '$.items[0].qty') '*' 3}}", method="POST", body=ORDER)
case("jsonPath unicode", "{{jsonPath request.body '$.n'}}", method="POST", body='{"n": "caf\u00e9 \u2603"}')
case("jsonPath big number", "{{jsonPath request.body '$.n'}}", method="POST", body='{"n": 12345678901234567890}')
case("jsonPath float", "{{jsonPath request.body '$.n'}}", method="POST", body='{"n": 1.10}')
case("jsonPath exponent", "{{jsonPath request.body '$.n'}}", method="POST", body='{"n": 1e3}')
case("parseJson member", "{{#with (parseJson request.body)}}{{name}}{{/with}}", method="POST", body=ORDER)
case("parseJson into a variable", "{{parseJson request.body 'o'}}{{o.address.city}}", method="POST", body=ORDER)
case("parseJson block", "{{#parseJson 'v'}}{\"k\": [1, 2]}{{/parseJson}}{{v.k.[1]}}")
case("parseJson printed", "{{parseJson '{\"a\":1,\"b\":[1,2],\"c\":{\"d\":\"e\"}}'}}")
case("parseJson list printed", "{{parseJson '[1, \"two\", null, true]'}}")
case("parseJson invalid", "{{parseJson 'nope'}}")
case("toJson of parsed", "{{{toJson (parseJson '{\"a\": [1, 2], \"b\": \"x\"}')}}}")
case("toJson of a list", "{{{toJson (array 1 'two' true)}}}")
case("toJson of text", "{{{toJson 'text'}}}")
case("formatJson", "{{{formatJson '{\"a\":1,\"b\":[1,2],\"c\":{}}'}}}")
case("formatJson compact", "{{{formatJson '{\"a\": 1, \"b\": {\"c\": 2}}' format='compact'}}}")
case("formatJson of the body", "{{{formatJson request.body}}}", method="POST", body='{"x":{"y":[true,null]}}')
case("jsonMerge", "{{{jsonMerge '{\"a\":1,\"b\":{\"c\":2}}' '{\"b\":{\"d\":3},\"e\":4}'}}}")
case("jsonMerge replaces", "{{{jsonMerge '{\"a\":[1]}' '{\"a\":[2]}'}}}")
case("jsonArrayAdd", "{{{jsonArrayAdd '[1,2]' '3'}}}")
case("jsonArrayAdd an object", "{{{jsonArrayAdd '[{\"a\":1}]' '{\"b\":2}'}}}")
case("jsonArrayAdd maxItems", "{{{jsonArrayAdd '[1,2,3]' '4' maxItems=3}}}")
case("jsonArrayAdd flatten", "{{{jsonArrayAdd '[1]' '[2,3]' flatten=true}}}")
case("jsonRemove", "{{{jsonRemove '{\"a\":1,\"b\":2}' '$.a'}}}")
case("jsonRemove from an array", "{{{jsonRemove '[{\"id\":1},{\"id\":2}]' '$[?(@.id == 1)]'}}}")
case("arrayAdd", "{{arrayAdd (array 1 2) 3}}")
case("arrayAdd at a position", "{{arrayAdd (array 1 2) 9 position=0}}")
case("arrayAdd at the end", "{{arrayAdd (array 1 2) 9 position='end'}}")
case("arrayRemove", "{{arrayRemove (array 1 2 3) position=1}}")
case("arrayRemove the last", "{{arrayRemove (array 1 2 3) position='end'}}")
case("arrayJoin", "{{arrayJoin ',' (array 'a' 'b' 'c')}}")
case("arrayJoin prefix suffix", "{{arrayJoin ', ' (array 'a' 'b') prefix='<' suffix='>'}}")
case("arrayJoin block", "{{#arrayJoin ';' (parseJson '[{\"n\":1},{\"n\":2}]') as |item|}}n{{item.n}}{{/arrayJoin}}")
case("val present", "{{val request.query.a default='d'}}", "?a=x")
case("val missing default", "{{val request.query.a default='d'}}")
case("val or", "{{val request.query.a or='o'}}")
case("val into a variable", "{{val 'kept' assign='k'}}{{k}}")
case("array printed", "{{array 1 'b' 3.5}}")
case("array empty", "[{{array}}]")

# ---------------------------------------------------------------------------------------------------------------
# Numbers
for left, operator, right in [(1, "+", 2), (7, "-", 10), (6, "*", 7), (7, "/", 2), (8, "/", 2), (7, "%", 3),
                              ("0.1", "+", "0.2"), ("1.5", "*", 2), ("10", "/", "4"), ("-7", "/", 2),
                              ("2.5", "-", "0.5"), (1, "/", 3), ("1.0", "+", 1), (2147483647, "+", 1),
                              (9007199254740993, "+", 0), ("3", "%", "-2")]:
    literal = lambda v: f"'{v}'" if isinstance(v, str) else str(v)
    case(f"math {left} {operator} {right}", "{{math %s '%s' %s}}" % (literal(left), operator, literal(right)))
case("math with a query value", "{{math request.query.n '*' 2}}", "?n=21")
case("math divide by zero", "{{math 1 '/' 0}}")
case("math unknown operator", "{{math 1 '^' 2}}")
case("math with text", "{{math 'a' '+' 1}}")
NUMBERS = ["1234567.891", "0.5", "-42", "1000", "0"]
for index, number in enumerate(NUMBERS):
    for format_ in ["integer", "currency", "percent", "#,##0.00", "0.###", "000000", "#.#E0", "'#'#"]:
        case(f"numberFormat {number} {format_}", "{{numberFormat %s '%s' 'en_US'}}" % (number, format_))
case("numberFormat default", "{{numberFormat 1234.5678}}")
case("numberFormat German", "{{numberFormat 1234567.891 '#,##0.00' 'de_DE'}}")
case("numberFormat French currency", "{{numberFormat 1234.5 'currency' 'fr_FR'}}")
case("numberFormat British currency", "{{numberFormat 1234.5 'currency' 'en_GB'}}")
case("numberFormat fraction digits", "{{numberFormat 3.14159 maximumFractionDigits=2}}")
case("numberFormat minimum fraction digits", "{{numberFormat 3 minimumFractionDigits=2}}")
case("numberFormat integer digits", "{{numberFormat 3.5 minimumIntegerDigits=3}}")
case("numberFormat no grouping", "{{numberFormat 1234567 groupingUsed=false}}")
case("numberFormat rounding half even", "{{numberFormat 2.5 'integer' roundingMode='HALF_EVEN'}}")
case("numberFormat rounding up", "{{numberFormat 2.1 'integer' roundingMode='UP'}}")
case("numberFormat rounding down", "{{numberFormat 2.9 'integer' roundingMode='DOWN'}}")
case("numberFormat of a query", "{{numberFormat request.query.n '#,##0'}}", "?n=9876543")
case("numberFormat of text", "{{numberFormat 'abc'}}")
case("randomInt in bounds", "{{randomInt lower=5 upper=9}}", pattern=r"[5-8]")
case("randomInt negative bounds", "{{randomInt lower=-3 upper=-1}}", pattern=r"-[23]")
case("randomInt default", "{{randomInt}}", pattern=r"-?\d+")
case("randomDecimal in bounds", "{{randomDecimal lower=1 upper=2}}", pattern=r"1\.\d+(E-?\d+)?|2\.0")
for start, end in [(1, 5), (0, 0), (3, 1), (-2, 2)]:
    case(f"range {start} {end}", "{{range %d %d}}" % (start, end))
case("range in each", "{{#each (range 1 3)}}{{this}};{{/each}}")

# ---------------------------------------------------------------------------------------------------------------
# Random values
for kind, alphabet in [("ALPHANUMERIC", "a-z0-9"), ("ALPHABETIC", "a-z"), ("NUMERIC", "0-9"),
                       ("HEXADECIMAL", "0-9a-f"), ("ALPHANUMERIC_AND_SYMBOLS", r"\x21-\x7e")]:
    case(f"randomValue {kind}", "{{{randomValue length=12 type='%s'}}}" % kind, pattern=f"[{alphabet}]{{12}}")
    upper_alphabet = alphabet.replace("a-z", "A-Z").replace("a-f", "A-F")
    case(f"randomValue {kind} uppercase", "{{{randomValue length=12 type='%s' uppercase=true}}}" % kind,
         pattern=f"[{upper_alphabet}]{{12}}")
case("randomValue UUID", "{{randomValue type='UUID'}}",
     pattern=r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")
case("randomValue default length", "{{randomValue}}", pattern=r"[a-z0-9]{36}")
case("randomValue zero length", "[{{randomValue length=0}}]")
case("randomValue unknown type", "{{{randomValue type='NOPE'}}}", pattern=r"[\x20-\x7e]{36}")
case("pickRandom", "{{pickRandom 'a' 'b' 'c'}}", pattern=r"[abc]")
case("pickRandom from a list", "{{pickRandom (array 'x' 'y')}}", pattern=r"[xy]")
case("pickRandom one", "{{pickRandom 'only'}}")
case("hostname", "{{hostname}}", pattern=r"[A-Za-z0-9._-]+")

# ---------------------------------------------------------------------------------------------------------------
# Dates: a fixed date in, or `now` matched by shape
FIXED = "2024-02-29T13:45:30Z"
for pattern_text in ["yyyy-MM-dd", "dd/MM/yyyy HH:mm:ss", "EEE, d MMM yyyy", "EEEE", "MMMM", "hh:mm a",
                     "yyyy-MM-dd'T'HH:mm:ss.SSSXXX", "D", "w", "u", "Z", "XXX", "zzz", "yy", "E MMM dd HH:mm:ss z yyyy"]:
    case(f"dateFormat {pattern_text}", "{{dateFormat (parseDate '%s') '%s'}}" % (FIXED, pattern_text))
for style in ["full", "long", "medium", "short"]:
    case(f"dateFormat style {style}", "{{dateFormat (parseDate '%s') '%s'}}" % (FIXED, style))
case("dateFormat style with a locale", "{{dateFormat (parseDate '%s') 'full' 'fr'}}" % FIXED)
case("dateFormat pattern with a locale", "{{dateFormat (parseDate '%s') 'EEEE d MMMM' 'de'}}" % FIXED)
case("date as it prints", "{{date (parseDate '%s')}}" % FIXED)
case("date with a format", "{{date (parseDate '%s') format='yyyy/MM/dd'}}" % FIXED)
case("date with an offset", "{{date (parseDate '%s') offset='1 days' format='yyyy-MM-dd'}}" % FIXED)
case("date with an offset of a year", "{{date (parseDate '%s') offset='1 years' format='yyyy-MM-dd'}}" % FIXED)
case("date with a negative offset", "{{date (parseDate '%s') offset='-2 hours'}}" % FIXED)
case("date with a timezone", "{{date (parseDate '%s') timezone='Asia/Tokyo' format='HH:mm'}}" % FIXED)
case("date epoch", "{{date (parseDate '%s') format='epoch'}}" % FIXED)
case("date unix", "{{date (parseDate '%s') format='unix'}}" % FIXED)
case("parseDate prints", "{{parseDate '%s'}}" % FIXED)
case("parseDate with an offset prints", "{{parseDate '2024-02-29T13:45:30+02:00'}}")
case("parseDate with millis", "{{parseDate '2024-02-29T13:45:30.123Z'}}")
case("parseDate date only", "{{parseDate '2024-02-29'}}")
case("parseDate with a format", "{{parseDate '29/02/2024' format='dd/MM/yyyy'}}")
case("parseDate epoch", "{{parseDate '1709214330000' format='epoch'}}")
case("parseDate unix", "{{parseDate '1709214330' format='unix'}}")
case("parseDate RFC 1123", "{{parseDate 'Thu, 29 Feb 2024 13:45:30 GMT'}}")
case("parseDate bad", "{{parseDate 'not a date'}}")
case("parseDate of a query", "{{dateFormat (parseDate request.query.d) 'yyyy'}}", "?d=2031-05-06T00:00:00Z")
for unit in ["first minute of hour", "first hour of day", "first day of month", "first day of next month",
             "last day of month", "first day of year", "first day of next year", "last day of year"]:
    case(f"truncateDate {unit}", "{{truncateDate (parseDate '%s') '%s'}}" % (FIXED, unit))
case("truncateDate unknown", "{{truncateDate (parseDate '%s') 'first second of lunch'}}" % FIXED)
ISO_SECONDS = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"
case("now", "{{now}}", pattern=ISO_SECONDS)
case("now with a format", "{{now format='yyyy-MM-dd'}}", pattern=r"\d{4}-\d\d-\d\d")
case("now epoch", "{{now format='epoch'}}", pattern=r"\d{13}")
case("now unix", "{{now format='unix'}}", pattern=r"\d{10}")
case("now with an offset", "{{now offset='3 days' format='yyyy'}}", pattern=r"\d{4}")
case("now with years", "{{now offset='+5 years' format='yyyy'}}", pattern=r"20[3-9]\d")
case("now with a timezone", "{{now timezone='America/New_York' format='z'}}", pattern=r"E[SD]T")
case("now zone text", "{{now format='zzz'}}", pattern="UTC")
case("now zone offset", "{{now format='XXX'}}", pattern="Z")
case("now with a timezone and no format", "{{now timezone='Asia/Tokyo'}}",
     pattern=r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+09:00")
case("now bad offset", "{{now offset='soon'}}")

# ---------------------------------------------------------------------------------------------------------------
# Inline partials, and helpers as values in other helpers
case("inline partial", "{{#*inline \"greet\"}}Hello {{request.query.n}}{{/inline}}{{> greet}}!", "?n=Al")
case("inline partial used twice", "{{#*inline \"p\"}}<{{this}}>{{/inline}}{{#each request.query.t}}{{> p}}{{/each}}",
     "?t=1&t=2")
case("sub-expression chain", "{{upper (substring (lower 'HELLO WORLD') 0 5)}}")
case("helper result in if", "{{#if (contains request.query.q 'x')}}has x{{/if}}", "?q=axb")
case("stripes", "{{#each (array 'a' 'b' 'c')}}{{stripes @index 'even' 'odd'}} {{/each}}")

# ---------------------------------------------------------------------------------------------------------------
# Errors a template meets while rendering, and templates that do not parse
case("unknown helper as a tag", "{{nosuchhelper 'x'}}")
case("unclosed block", "{{#if true}}never closed")
case("mismatched close", "{{#if true}}x{{/each}}")
case("substring out of range", "{{substring 'abc' 2 9}}")
case("unclosed tag", "a {{request.method")
case("base64 decode of not base64", "{{base64 '***' decode=true}}")

# ---------------------------------------------------------------------------------------------------------------
# The response: headers, cookies, body files, parameters
case("templated header", "body", "?h=v1", response={"headers": {"X-T": "h-{{request.query.h}}"}},
     headers_compared=["X-T"])
case("templated header from a header", "body", headers={"X-In": "in"},
     response={"headers": {"X-Out": "{{request.headers.X-In}}-out"}}, headers_compared=["X-Out"])
case("several set-cookie values, one templated", "body", "?s=abc",
     response={"headers": {"Set-Cookie": ["fixed=1", "session={{request.query.s}}"]}},
     headers_compared=["Set-Cookie"])
case("templated content type", "x", "?t=text/csv", response={"headers": {"Content-Type": "{{request.query.t}}"}},
     headers_compared=["Content-Type"])
case("body file templated", None, "?who=file", response={"bodyFileName": "corpus-greeting.txt"},
     files={"corpus-greeting.txt": "Hello {{request.query.who}} from a file"})
case("body file name templated", None, "/alpha",
     response={"bodyFileName": "corpus-{{request.pathSegments.[1]}}.txt"},
     files={"corpus-alpha.txt": "the alpha file {{request.method}}"})
case("body file templating disabled", None, response={"bodyFileName": "corpus-raw.txt",
                                                      "transformerParameters": {"disableBodyFileTemplating": True}},
     files={"corpus-raw.txt": "raw {{request.method}}"})
case("transformer parameters", "{{parameters.greeting}}, {{parameters.count}}",
     response={"transformerParameters": {"greeting": "Hej", "count": 3}})
case("transformer parameters nested", "{{parameters.inner.x}}",
     response={"transformerParameters": {"inner": {"x": "deep"}}})
case("json body templated", None, "?n=Ada", response={"jsonBody": {"name": "{{request.query.n}}", "n": 1}})
case("json body with a number value", None, "?n=5", response={"jsonBody": {"n": "{{request.query.n}}"}})
case("base64 body is not templated", None, response={"base64Body": "e3tyZXF1ZXN0Lm1ldGhvZH19"})

# ---------------------------------------------------------------------------------------------------------------
# XML
SOAP = ('<soap:Envelope xmlns:soap="http://www.w3.org/2003/05/soap-envelope" xmlns:m="http://example.org/stock">'
        '<soap:Body><m:GetStockPrice><m:StockName>ACME</m:StockName></m:GetStockPrice></soap:Body></soap:Envelope>')
BOOKS = ('<library><book id="1" lang="en"><title>Dune</title><year>1965</year></book>'
         '<book id="2" lang="fr"><title>Vendredi</title><year>1967</year></book><note>two &amp; more</note></library>')
for expression in ["/library/book[1]/title/text()", "/library/book[2]/@lang", "//title", "count(//book)",
                   "/library/note/text()", "/library/book[@id='2']/year/text()", "/library/missing/text()",
                   "/library/book/title/text()", "//book[year > 1966]/title/text()", "/library/book[1]",
                   "name(/library/*[1])", "string(/library/book[2]/title)"]:
    case(f"xPath {expression}", "[{{xPath request.body '%s'}}]" % expression, method="POST", body=BOOKS)
case("xPath each over nodes", "{{#each (xPath request.body '/library/book/title')}}<{{this}}>{{/each}}",
     method="POST", body=BOOKS)
case("xPath each over node texts", "{{#each (xPath request.body '//book')}}{{this.title}};{{/each}}",
     method="POST", body=BOOKS)
case("xPath on not XML", "{{xPath request.body '/a'}}", method="POST", body="not xml")
case("xPath bad expression", "{{xPath request.body '///'}}", method="POST", body=BOOKS)
case("soapXPath", "{{soapXPath request.body '/m:GetStockPrice/m:StockName/text()'}}", method="POST", body=SOAP)
case("soapXPath without a prefix", "{{soapXPath request.body '/GetStockPrice/StockName'}}", method="POST", body=SOAP)
case("xPath with namespaces", "{{xPath request.body '/Envelope/Body/GetStockPrice/StockName/text()'}}",
     method="POST", body=SOAP)
case("formatXml", "{{{formatXml '<a><b>1</b><c x=\"y\"/></a>'}}}")
case("formatXml compact", "{{{formatXml '<a>\n  <b>1</b>\n</a>' format='compact'}}}")

# ---------------------------------------------------------------------------------------------------------------
# Proxying: templated headers for the upstream, and a templated base URL (the upstream echoes what it got)
case("proxied with a templated extra header", None, "/p?v=7", proxy=True,
     response={"proxyBaseUrl": "{upstream}", "additionalProxyRequestHeaders": {"X-Extra": "v-{{request.query.v}}"}})
case("proxied to a templated base URL", None, "/q", headers={"X-Upstream": "{upstream}"}, proxy=True,
     response={"proxyBaseUrl": "{{request.headers.X-Upstream}}"})
case("proxied with a plain and a templated header", None, "/r", method="POST", body="b", proxy=True,
     response={"proxyBaseUrl": "{upstream}",
               "additionalProxyRequestHeaders": {"X-Extra": "{{request.method}}", "X-Plain": "fixed"}})

# ---------------------------------------------------------------------------------------------------------------
# More of what WireMock prints: json-smart's slashes, system values, a date of nothing
case("jsonPath list with slashes", "{{{jsonPath request.body '$.u'}}}", method="POST",
     body='{"u": ["a/b", "c\\u00e9"]}')
case("jsonPath object with slashes", "{{{jsonPath request.body '$.o'}}}", method="POST", body='{"o": {"p": "a/b"}}')
case("systemValue not permitted", "{{systemValue type='ENVIRONMENT' key='HOME'}}")
case("systemValue permitted and missing", "[{{systemValue type='ENVIRONMENT' key='wiremock.none'}}]")
case("systemValue property", "[{{systemValue type='PROPERTY' key='wiremock.none'}}]")
case("systemValue without a key", "{{systemValue}}")
case("date of a date that did not parse", "{{date (parseDate 'nope') format='yyyy'}}", pattern=r"\d{4}")

# ---------------------------------------------------------------------------------------------------------------
# Handlebars.java's number helpers and log
for number in [2, 3, 0]:
    case(f"isEven {number}", "[{{isEven %d}}]" % number)
    case(f"isOdd {number}", "[{{isOdd %d}}]" % number)
    case(f"isEven {number} with a value", "[{{isEven %d 'leftBox'}}]" % number)
    case(f"isOdd {number} with a value", "[{{isOdd %d 'rightBox'}}]" % number)
case("stripes without values", "[{{stripes 3}}][{{stripes 2}}]")
case("isEven in each", "{{#each (array 'a' 'b' 'c')}}{{isEven @index 'e'}}{{/each}}")
case("log writes nothing", "[{{log 'a message'}}]")
case("pickRandom with a count", "{{pickRandom (array 'a' 'b' 'c') count=2}}", pattern=r"\[[abc], [abc]\]")

# ---------------------------------------------------------------------------------------------------------------
# More XPath: nodes' members, predicates, functions, unions, a whole subtree
for name, template in [
    ("xPath each node's text", "{{#each (xPath request.body '//book')}}{{this.text}};{{/each}}"),
    ("xPath each node's name", "{{#each (xPath request.body '/library/*')}}{{name}},{{/each}}"),
    ("xPath each node's attribute", "{{#each (xPath request.body '//book')}}{{attributes.lang}};{{/each}}"),
    ("xPath attribute predicate", "{{xPath request.body \"/library/book[@lang='fr']/title/text()\"}}"),
    ("xPath last()", "{{xPath request.body '/library/book[last()]/title/text()'}}"),
    ("xPath contains()", "{{xPath request.body \"//book[contains(title, 'un')]/@id\"}}"),
    ("xPath union", "{{xPath request.body '//year/text() | //title/text()'}}"),
    ("xPath sum()", "[{{xPath request.body 'sum(//year)'}}]"),
    ("xPath a whole subtree", "{{{xPath request.body '/library'}}}"),
    ("xPath descendant of an attribute", "[{{xPath request.body '//book/@id/text()'}}]"),
    ("xPath size of nodes", "{{size (xPath request.body '//book')}}"),
]:
    case(name, template, method="POST", body=BOOKS)
case("xPath of whitespace-indented XML", "{{{xPath request.body '/a/b'}}}", method="POST",
     body="<a>\n  <b>\n    <c>1</c>\n  </b>\n</a>")
case("xPath of CDATA", "{{xPath request.body '/a/text()'}}", method="POST", body="<a><![CDATA[x < y]]></a>")
case("xPath of entities", "{{xPath request.body '/a/@v'}}", method="POST", body="<a v=\"&lt;&#65;&#x42;&gt;\"/>")
case("xPath of an empty body", "[{{xPath request.body '/a'}}]", method="POST", body="")

# ---------------------------------------------------------------------------------------------------------------
# Handlebars.java's quirks: falsy inputs, types, escapes
for name, template in [
    ("substring of an empty text", "[{{substring '' 2}}]"),
    ("rjust of zero", "[{{rjust 0 size=3 pad='0'}}]"),
    ("capitalize of false", "[{{capitalize false}}]"),
    ("upper of an empty text with an argument", "[{{upper '' 'x'}}]"),
    ("abbreviate under four", "[{{abbreviate 'ab' 3}}]"),
    ("slugify with digits", "[{{slugify 'Route 66 and A1'}}]"),
    ("capitalize across a new line", "[{{capitalize 'one\ntwo\tthree four'}}]"),
    ("stringFormat half up", "[{{stringFormat '%.2f' 1.005}} {{stringFormat '%.1f' 0.25}}]"),
    ("stringFormat a text as a number", "[{{stringFormat '%d' '42'}}]"),
    ("join without a separator", "[{{join (array 1 2)}}]"),
    ("numberFormat with a hyphenated locale", "[{{numberFormat 1234.5 '#,##0.0' 'en-GB'}}]"),
    ("numberFormat with a locale option", "[{{numberFormat 1234.5 '#,##0.0' locale='de_DE'}}]"),
    ("escaped triple mustache", "a {{request.method}} \\{{{request.method}}} b"),
    ("double backslash before a mustache", "a {{request.method}} \\\\{{request.method}} b"),
    ("text between closing and opening braces", "}} {{request.method}}"),
    ("size of an empty text", "[{{size ''}}]"),
    ("lower of a number", "[{{lower 42}}]"),
    ("trim of a number", "[{{trim 42}}]"),
    ("replace a number", "[{{replace 1234 '2' 'x'}}]"),
    ("defaultIfEmpty of zero", "[{{defaultIfEmpty 0 'none'}}]"),
    ("defaultIfEmpty of an empty list", "[{{defaultIfEmpty (array) 'none'}}]"),
    ("yesno of a text", "[{{yesno 'x'}}]"),
    ("wordWrap of a number width", "[{{wordWrap 'a b c d' '3'}}]"),
    ("center with size as text", "[{{center 'a' size='5'}}]"),
]:
    case(name, template)

# ---------------------------------------------------------------------------------------------------------------
# Forms a drop-in must answer as WireMock does: each helper's other ways of being called
for name, template, path, method in [
    ("numberFormat pattern without a locale", "[{{numberFormat 1234567.891 '#,##0.00'}}]", "", "GET"),
    ("numberFormat pattern of a query number", "[{{numberFormat request.query.n '#,##0.00'}}]", "?n=1234.5", "GET"),
    ("numberFormat pattern with a negative part", "[{{numberFormat -42.5 '#,##0.0;(#,##0.0)'}}]", "", "GET"),
    ("numberFormat pattern of a whole number", "[{{numberFormat 7 '0.00'}}]", "", "GET"),
    ("numberFormat percent pattern", "[{{numberFormat 0.256 '#.#%'}}]", "", "GET"),
    ("dateFormat into a time zone", "[{{dateFormat (parseDate '2020-01-01T23:30:00Z') 'yyyy-MM-dd HH:mm' tz='Asia/Tokyo'}}]",
     "", "GET"),
    ("dateFormat into a time zone by offset", "[{{dateFormat (parseDate '2020-01-01T23:30:00Z') 'HH:mm' tz='GMT-05:00'}}]",
     "", "GET"),
    ("date offset in years", "[{{date (parseDate '2020-02-29T00:00:00Z') offset='5 years' format='yyyy-MM-dd'}}]", "", "GET"),
    ("date offset in months", "[{{date (parseDate '2020-01-31T00:00:00Z') offset='1 months' format='yyyy-MM-dd'}}]", "", "GET"),
    ("date offset in weeks", "[{{date (parseDate '2020-01-01T00:00:00Z') offset='-2 weeks' format='yyyy-MM-dd'}}]", "", "GET"),
    ("math of texts", "[{{math '6' '*' '7'}}]", "", "GET"),
    ("math remainder of decimals", "[{{math 7.5 '%' 2}}]", "", "GET"),
    ("math times a decimal text", "[{{math 3 '*' '0.5'}}]", "", "GET"),
    ("math minus to a decimal", "[{{math 1 '-' 0.25}}]", "", "GET"),
    ("math of a query and a literal", "[{{math request.query.a '+' request.query.b}}]", "?a=2&b=3.5", "GET"),
    ("join items with prefix and suffix", "[{{join 'a' 'b' 'c' ', ' prefix='(' suffix=')'}}]", "", "GET"),
    ("join an array with prefix and suffix", "[{{join (array 1 2 3) '-' prefix='<' suffix='>'}}]", "", "GET"),
    ("join as a block", "[{{#join (array 'x' 'y') ';'}}<{{this}}>{{/join}}]", "", "GET"),
    ("contains literal else", "[{{#contains 'abc' 'z'}}yes{{else}}no{{/contains}}]", "", "GET"),
    ("contains literal", "[{{#contains 'abc' 'b'}}yes{{else}}no{{/contains}}]", "", "GET"),
    ("contains a query else", "[{{#contains request.query.q 'z'}}yes{{else}}no{{/contains}}]", "?q=abc", "GET"),
    ("lookup of a missing query", "[{{lookup request.query 'missing'}}]", "?k=v", "GET"),
    ("lookup past an array's end", "[{{lookup (array 1 2) 5}}]", "", "GET"),
    ("query written whole", "[{{request.query}}]", "?b=2&a=1&b=3&c", "GET"),
    ("lookup past a list's end", "[{{lookup request.pathSegments 9}}]", "/a/b", "GET"),
    ("eq on the method", "[{{#eq request.method 'GET'}}get{{else}}other{{/eq}}]", "", "GET"),
    ("eq on the method as a value", "[{{#if (eq request.method 'POST')}}post{{else}}other{{/if}}]", "", "POST"),
    ("eq on the method's text", "[{{#eq (lower request.method) 'get'}}get{{else}}other{{/eq}}]", "", "GET"),
    ("requestLine url", "[{{request.requestLine.url}}]", "/x/y?z=1&w=a%20b", "GET"),
    ("requestLine url with a plus", "[{{request.requestLine.url}}]", "/p?q=a+b", "GET"),
]:
    case(name, template, path, method=method, body="x" if method == "POST" else None)
