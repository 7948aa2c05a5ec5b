#!/usr/bin/env python3
"""Writes each fuzzer's seed corpus from the inputs of StuntDouble's own tests.

Usage: seeds.py OUTPUT_DIR   (makes OUTPUT_DIR/<Fuzzer>/seed-NNNN files)

Every Swift string literal of Tests/ (plain and raw) is collected, sorted into templates, URLs, regular
expressions, JSON texts, content types and header fields, and combined in each fuzzer's input format (see the
header of each Sources/<Fuzzer>/<Fuzzer>.swift). Deterministic: the same tests give the same seeds.
"""
import json
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
PLAIN = re.compile(r'(?<![#\\])"((?:[^"\\\n]|\\.)*)"')
RAW = re.compile(r'(#+)"(.*?)"\1', re.S)
MULTILINE = re.compile(r'(#*)"""\n(.*?)\n[ \t]*"""\1', re.S)
GRAPHQL = re.compile(r"\s*(#[^\n]*\n\s*)*(query|mutation|subscription|fragment|\{\s*[A-Za-z_.])")
PAIR = re.compile(r'"([A-Za-z][A-Za-z0-9-]*)"\s*:\s*"((?:[^"\\\n]|\\.)*)"')


def unescape(text):
    def sub(match):
        escaped = match.group(1)
        if escaped.startswith("u{"):
            return chr(int(escaped[2:-1], 16))
        return {"n": "\n", "t": "\t", "r": "\r", "0": "\0"}.get(escaped, escaped)
    return re.sub(r"\\(u\{[0-9a-fA-F]+\}|.)", sub, text)


def literals():
    found, pairs = [], []
    for directory, _, files in sorted(os.walk(os.path.join(ROOT, "Tests"))):
        for name in sorted(files):
            if not name.endswith(".swift"):
                continue
            source = open(os.path.join(directory, name), encoding="utf-8").read()
            # Multi-line literals first (their text, not their quotes), raw ones as written.
            found += [m.group(2) if m.group(1) else unescape(m.group(2)) for m in MULTILINE.finditer(source)]
            source = MULTILINE.sub("", source)
            found += [match.group(2) for match in RAW.finditer(source)]
            without_raw = RAW.sub("", source)
            found += [unescape(match.group(1)) for match in PLAIN.finditer(without_raw)]
            pairs += [(name, unescape(value)) for name, value in PAIR.findall(without_raw)]
    unique = list(dict.fromkeys(text for text in found if text and "\\(" not in text))
    return unique, list(dict.fromkeys(pairs))


def is_json(text):
    try:
        json.loads(text)
        return text.strip()[:1] in "{[\"0123456789-tfn"
    except ValueError:
        return False


def example_mappings():
    """The bundled examples of the stuntdouble command."""
    folder = os.path.join(ROOT, "Sources", "StuntDoubleCommand", "Examples", "mappings")
    return [open(os.path.join(folder, name), encoding="utf-8").read() for name in sorted(os.listdir(folder))]


def openapi_documents():
    """Our OpenAPI documents: the tests' and the conformance script's."""
    found = []
    for folder in [os.path.join(ROOT, "Tests", "StuntDoubleOpenAPITests", "Documents"),
                   os.path.join(ROOT, "Scripts", "openapi-conformance.d", "documents")]:
        for directory, _, names in os.walk(folder):
            for name in sorted(names):
                if name.endswith((".yaml", ".json")):
                    found.append(open(os.path.join(directory, name), encoding="utf-8").read())
    return found


def corpus_templates():
    """The templating corpus's templates (Scripts/templating-corpus), each with its request body: every helper."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Scripts", "templating-corpus"))
    import cases
    return [case["template"] + "\0" + (case["body"] if isinstance(case["body"], str) else "")
            for case in cases.CASES if case["template"]]


def request(number, target, fields):
    """One to three pipelined requests for a target and fields: with no body, a length, or chunks."""
    method = ["GET", "POST", "PUT", "DELETE", "OPTIONS", "HEAD"][number % 6]
    head = f"{method} {target} HTTP/1.{1 - number % 7 // 6}\r\nHost: localhost:8080\r\n" + "".join(
        f"{name}: {value}\r\n" for name, value in fields if "\n" not in value and "\r" not in value
    )
    framing = number % 3
    if framing == 0:
        one = head + "\r\n"
    elif framing == 1:
        one = head + "Content-Length: 5\r\n\r\nhello"
    else:
        one = head + "Transfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n0\r\nX-Trailer: t\r\n\r\n"
    return one * (1 + number % 3)


def main(output):
    texts, pairs = literals()
    urls = [t for t in texts if t.startswith(("http://", "https://", "/"))]
    templates = [t for t in texts if "{" in t and "}" in t and not is_json(t)] + urls[:40]
    regexes = [t for t in texts if t.startswith("^") or "\\." in t or ".*" in t or t == "*"]
    jsons = [t for t in texts if is_json(t)]
    types = [t for t in texts if re.fullmatch(r"[a-z]+/[A-Za-z0-9.+-]+(;.*)?", t)]
    percent = [t for t in texts if "%" in t] + urls
    paths = [t for t in texts if t.startswith("$") and len(t) > 1]
    xmls = [t for t in texts if t.lstrip().startswith("<") and t.rstrip().endswith(">") and "</" in t or "/>" in t]
    xpaths = [t for t in texts if t.startswith(("/", "//", "count(", "string(", "name(", "sum(")) and "://" not in t]

    def pick(items, count, offset):
        return [items[(offset + k) % len(items)] for k in range(count)] if items else [""]

    seeds = {
        "FuzzURITemplate": [f"{t}\n{u}" for i, t in enumerate(templates) for u in pick(urls, 3, i * 7)],
        "FuzzURLMatcher": [
            chr(i % 32) + f"{a}\n{b}" for i, a in enumerate(urls) for b in [a] + pick(urls, 2, i * 5)
        ],
        "FuzzRegexPrefix": [f"{r}\n{u}" for i, r in enumerate(regexes) for u in pick(urls, 3, i * 3)],
        "FuzzJSON": [f"{a}\0{b}" for i, a in enumerate(jsons) for b in [a] + pick(jsons, 1, i + 1)],
        "FuzzPercentEncoding": percent,
        "FuzzStubFiles": [t for t in texts if '"request"' in t or '"mappings"' in t] + example_mappings(),
        "FuzzTemplate": [t + "\0" + b for t in texts if "{{" in t for b in ['{"name": "Ada", "items": [1, 2]}']]
        + corpus_templates(),
        "FuzzOpenAPI": openapi_documents() + [t for t in texts if "openapi:" in t or '"openapi"' in t],
        "FuzzJSONPath": [f"{p}\0{j}" for i, p in enumerate(paths) for j in pick(jsons, 3, i * 3)],
        "FuzzXML": [f"{x}\0{d}" for i, x in enumerate(xpaths or ["/"]) for d in pick(xmls, 3, i * 3)],
        "FuzzMessageMappings": [t for t in texts if '"trigger"' in t or '"messageMappings"' in t],
        "FuzzHeaders": [
            t + "\n" + "\n".join(f"{n}: {v}" for n, v in pick(pairs, 4, i * 4)) for i, t in enumerate(types or ["text/plain"])
        ],
        "FuzzGraphQL": [t + "\0" + n for t in texts if GRAPHQL.match(t) for n in ["", "Hero"]],
        "FuzzRequestHead": [chr(i % 17) + t for i, t in enumerate(t for t in texts if " HTTP/1." in t)]
        + [chr(i % 17) + request(i, u, pick(pairs, 3, i * 3)) for i, u in enumerate(u for u in urls if " " not in u)],
    }
    for fuzzer, inputs in seeds.items():
        directory = os.path.join(output, fuzzer)
        os.makedirs(directory, exist_ok=True)
        for number, text in enumerate(dict.fromkeys(inputs)):
            with open(os.path.join(directory, f"seed-{number:04}"), "wb") as file:
                file.write(text.encode("utf-8"))
        print(f"{fuzzer}: {len(dict.fromkeys(inputs))} seeds")


if __name__ == "__main__":
    main(sys.argv[1])
