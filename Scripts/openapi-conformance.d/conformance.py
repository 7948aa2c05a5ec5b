"""Checks `stuntdouble serve --openapi` against OpenAPI documents with schemathesis, and compares its answers
with connexion's mock mode. Run through Scripts/openapi-conformance, which makes the virtual environment.

For each document in documents/ (the files at its top; components/ holds the files their $refs name; a document
that deviates from the specification, as real ones do, has its meaning written validly in meaning/, which
schemathesis and connexion read while StuntDouble serves the deviating one):

1. `stuntdouble serve --openapi DOC --port 0` starts; the port is read from its "on http://127.0.0.1:PORT" line.
2. schemathesis (`st run`) runs every phase (examples, coverage, fuzzing, stateful) with a fixed seed and a
   bounded number of examples, with the credentials of the document's security schemes as headers, and these
   checks: not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance,
   response_headers_conformance (what a mock's answers must keep to), positive_data_acceptance,
   negative_data_rejection and unsupported_method (what a validating mock must accept and refuse).
3. Each failure is sorted: what StuntDouble got wrong, what is the document's error response not being used
   (StuntDouble answers a broken request with the operation's declared error response when it has one, as
   Prism does, else with its own problem+json), and the known false positives of schemathesis. Unique failures are printed with a curl command that reproduces them.
4. connexion's mock (`connexion run DOC --mock=all`; connexion reads OpenAPI 3.0 only, so a 3.1 document is
   given to it lowered to 3.0: type arrays to nullable, const to enum, numeric exclusive bounds to boolean ones)
   and StuntDouble get the same valid request per operation (from the document's examples where it has them,
   else the simplest valid request schemathesis draws); the status of each and whether each answer keeps to
   the document (status, content type, body schema, headers) are printed side by side.

Exit status 1 when schemathesis reports a failure against StuntDouble that is not a known false positive of
schemathesis's, or when StuntDouble's answer to a comparison request breaks the document.
"""
import argparse
import base64
import json
import os
import queue
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
DOCUMENTS = os.path.join(HERE, "documents")
CHECKS = [
    "not_a_server_error", "status_code_conformance", "content_type_conformance", "response_schema_conformance",
    "response_headers_conformance", "positive_data_acceptance", "negative_data_rejection", "unsupported_method",
]
# StuntDouble's refusals that schemathesis calls valid requests rejected, where the document says StuntDouble is
# right: (document, violation rule, violation location pattern, why). A failure is left out only when every
# violation StuntDouble names in its answer is one of these.
# None now: StuntDouble admits null for {allOf: [...], nullable: true} as most 3.0 documents mean it (and as
# schemathesis reads it), though 3.0.3's clarification gives nullable effect only beside a type.
KNOWN_FALSE_POSITIVES = []
TOKEN = "conformance-token"
KEY = "conformance-key"
INDEX = re.compile(r"\[\d+\]")
METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")


# --- documents ---------------------------------------------------------------------------------------------

def load(path):
    with open(path) as file:
        return json.load(file) if path.endswith(".json") else yaml.safe_load(file)


def documents(names):
    found = sorted(name for name in os.listdir(DOCUMENTS)
                   if name.endswith((".yaml", ".yml", ".json")) and os.path.isfile(os.path.join(DOCUMENTS, name)))
    if names:
        missing = [name for name in names if name not in found]
        if missing:
            sys.exit(f"no such document in {DOCUMENTS}: {', '.join(missing)} (there are: {', '.join(found)})")
        found = [name for name in found if name in names]
    return [os.path.join(DOCUMENTS, name) for name in found]


def credentials(document):
    """Headers and query parameters that satisfy every security scheme of a document."""
    headers, query, cookies = {}, {}, {}
    for scheme in ((document.get("components") or {}).get("securitySchemes") or {}).values():
        kind = scheme.get("type")
        if kind == "http" and scheme.get("scheme", "").lower() == "bearer":
            headers["Authorization"] = f"Bearer {TOKEN}"
        elif kind == "http" and scheme.get("scheme", "").lower() == "basic":
            headers.setdefault("Authorization", "Basic " + base64.b64encode(b"conformance:conformance").decode())
        elif kind in ("oauth2", "openIdConnect"):
            headers.setdefault("Authorization", f"Bearer {TOKEN}")
        elif kind == "apiKey":
            {"header": headers, "query": query, "cookie": cookies}[scheme.get("in")][scheme["name"]] = KEY
    if cookies:
        headers["Cookie"] = "; ".join(f"{name}={value}" for name, value in cookies.items())
    return headers, query


def operations_of(document):
    return [f"{method.upper()} {path}" for path, item in document.get("paths", {}).items()
            for method in item if method in METHODS]


def lowered_to_30(node, in_schema=False):
    """An OpenAPI 3.1 document (or a file of its $refs) as connexion's 3.0 reader takes it."""
    if isinstance(node, list):
        return [lowered_to_30(item, in_schema) for item in node]
    if not isinstance(node, dict):
        return node
    result = {}
    for key, value in node.items():
        child_in_schema = in_schema or key in ("schema", "schemas", "items", "properties", "allOf", "oneOf", "anyOf",
                                               "not", "additionalProperties")
        result[key] = lowered_to_30(value, child_in_schema)
    if isinstance(result.get("openapi"), str) and result["openapi"].startswith("3.1"):
        result["openapi"] = "3.0.3"
    if isinstance(result.get("type"), list):
        types = [kind for kind in result["type"] if kind != "null"]
        if len(types) < len(result["type"]):
            result["nullable"] = True
        if len(types) == 1:
            result["type"] = types[0]
        else:
            del result["type"]
            if types:
                result["anyOf"] = [{"type": kind} for kind in types]
    if "const" in result:
        result["enum"] = [result.pop("const")]
    if in_schema and isinstance(result.get("examples"), list):
        examples = result.pop("examples")
        if examples:
            result["example"] = examples[0]
    for bound, plain in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
        value = result.get(bound)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            result[plain] = value
            result[bound] = True
    result.pop("unevaluatedProperties", None)
    result.pop("$schema", None)
    return result


def with_credential_checks(document):
    """connexion answers 401 to every request of a security scheme that names no function to check its
    credentials; these name connexion_mock.py's, which take any."""
    for scheme in ((document.get("components") or {}).get("securitySchemes") or {}).values():
        kind, name = scheme.get("type"), (scheme.get("scheme") or "").lower()
        if kind == "http" and name == "bearer":
            scheme["x-bearerInfoFunc"] = "connexion_mock.any_token"
        elif kind == "http" and name == "basic":
            scheme["x-basicInfoFunc"] = "connexion_mock.any_user"
        elif kind == "apiKey":
            scheme["x-apikeyInfoFunc"] = "connexion_mock.any_key"
        elif kind in ("oauth2", "openIdConnect"):
            scheme["x-tokenInfoFunc"] = "connexion_mock.any_token"
    return document


# --- processes ---------------------------------------------------------------------------------------------

def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """A child process whose output is drained into a list (kept to print when it fails)."""

    def __init__(self, name, command, cwd=None):
        self.name = name
        self.lines = []
        self.queue = queue.Queue()
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                        cwd=cwd, errors="replace")
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self):
        for line in self.process.stdout:
            self.lines.append(line.rstrip("\n"))
            self.queue.put(line)

    def fail(self, why):
        self.stop()
        sys.exit(f"{self.name} {why}:\n" + "\n".join(self.lines[-40:]))

    def wait_for_line(self, pattern, seconds=30):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                line = self.queue.get(timeout=0.2)
            except queue.Empty:
                if self.process.poll() is not None:
                    self.fail("exited at start")
                continue
            match = re.search(pattern, line)
            if match:
                return match
        self.fail(f"printed no line matching {pattern!r} in {seconds} s")

    def wait_until_up(self, url, seconds=60):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                self.fail("exited at start")
            try:
                urllib.request.urlopen(url, timeout=1)
                return
            except urllib.error.HTTPError:
                return
            except OSError:
                time.sleep(0.25)
        self.fail(f"did not answer {url} in {seconds} s")

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start_stuntdouble(binary, path, seed):
    server = Server("stuntdouble", [binary, "serve", "--openapi", path, "--port", "0", "--seed", str(seed),
                                    "--quiet", "--no-admin"])
    match = server.wait_for_line(r"on (http://127\.0\.0\.1:\d+)")
    return server, match.group(1)


# --- schemathesis ------------------------------------------------------------------------------------------

def run_schemathesis(venv, path, base, headers, args, work):
    name = os.path.splitext(os.path.basename(path))[0]
    report = os.path.join(work, f"{name}.ndjson")
    output = os.path.join(work, f"{name}.schemathesis.txt")
    command = [os.path.join(venv, "bin", "st"), "run", path, "--url", base, "--checks", ",".join(args.checks),
               "--phases", "examples,coverage,fuzzing,stateful", "--workers", "1", "--seed", str(args.seed),
               "--max-examples", str(args.max_examples), "--no-shrink", "--request-timeout", "10",
               "--generation-database", "none", "--output-sanitize", "false", "--no-color",
               "--report", "ndjson", "--report-ndjson-path", report]
    for header, value in headers.items():
        command += ["-H", f"{header}: {value}"]
    started = time.monotonic()
    with open(output, "w") as out:
        subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, cwd=work, timeout=900)
    return report, output, time.monotonic() - started


def decoded(body):
    if not body:
        return ""
    if "$base64" in body:
        return base64.b64decode(body["$base64"]).decode("utf-8", "backslashreplace")
    return body.get("string", "") if isinstance(body, dict) else str(body)


def curl(request):
    parts = ["curl", "-si", "-X", request["method"]]
    for name, values in (request.get("headers") or {}).items():
        if name.lower() in ("content-length", "user-agent", "accept-encoding", "accept", "connection"):
            continue
        for value in values:
            parts += ["-H", f"{name}: {value}"]
    body = decoded(request.get("body"))
    if body:
        parts += ["--data-binary", body]
    parts.append(request["uri"])
    return " ".join(shlex.quote(part) for part in parts)


def problem_violations(text):
    """StuntDouble's `violations` (rule and location) from a problem+json body, or None."""
    try:
        body = json.loads(text)
    except ValueError:
        return None
    if not isinstance(body, dict) or not isinstance(body.get("violations"), list):
        return None
    return [(item.get("rule"), item.get("location"), item.get("message")) for item in body["violations"]
            if isinstance(item, dict)]


def classify(document, check, mode, status, message, violations):
    """(kind, why): kind is "ours", "error-response" or "false-positive"."""
    if violations and status is not None and 400 <= status < 500:
        reasons = []
        for rule, location, _ in violations:
            reason = next((why for name, known_rule, pattern, why in KNOWN_FALSE_POSITIVES
                           if name == document and known_rule == rule and re.search(pattern, location or "")), None)
            reasons.append(reason)
        if all(reasons):
            return "false-positive", reasons[0]
    if check == "not_a_server_error":
        return "ours", "a server error"
    if check == "negative_data_rejection":
        if "in header - object with unexpected properties" in message.lower():
            return "false-positive", ("schemathesis adds an unknown header and expects a 4xx: HTTP servers must "
                                      "ignore headers they do not know, and a document cannot forbid them")
        return "ours", "an invalid request was accepted"
    if check == "positive_data_acceptance":
        return "ours", "a valid request was rejected"
    if status is not None and 400 <= status < 500:
        if mode == "positive" and violations:
            return "ours", "a valid request was rejected"
        return "error-response", ("StuntDouble answers a broken request with its own problem+json and 400/401/415/"
                                  "422, not with the error response the document declares for it")
    return "ours", "the answer breaks the document"


def pointer(document, path):
    """The value at a JSON pointer's parts, following each `$ref` to this document on the way; (value, parts)."""
    value, walked = document, []
    for part in path:
        while isinstance(value, dict) and isinstance(value.get("$ref"), str) and value["$ref"].startswith("#/"):
            walked = [item.replace("~1", "/").replace("~0", "~") for item in value["$ref"][2:].split("/")]
            value = document
            for item in walked:
                value = value.get(item) if isinstance(value, dict) else None
        if not isinstance(value, dict) or part not in value:
            return None, None
        value, walked = value[part], walked + [part]
    return value, walked


def answer_keeps_to(document, method, path, status, content_type, body):
    """Whether StuntDouble's answer keeps to the schema its document gives it, by jsonschema (Draft 2020-12, a
    validator that is not StuntDouble's; 3.1 documents only, whose schemas are JSON Schema's).

    An event stream's events are checked each by its data. schemathesis reads a `schema` under text/event-stream
    as each event's envelope (`data`, `event`, `id`, `retry`), OpenAPI 3.2's reading of `itemSchema`. OpenAPI 3.1
    says nothing of event streams, and the generators that write `schema` there (hono-openapi, FastAPI) mean each
    event's data: what StuntDouble serves."""
    import jsonschema
    import referencing
    import referencing.jsonschema

    if not str(document.get("openapi", "")).startswith("3.1"):
        return False
    operation = ((document.get("paths") or {}).get(path) or {}).get(method.lower()) or {}
    responses = {str(code): code for code in (operation.get("responses") or {})}
    key = next((responses[code] for code in (str(status), f"{str(status)[0]}XX", "default") if code in responses),
               None)
    essence = content_type.split(";")[0].strip().lower()
    if key is None:
        return False
    schema, walked = pointer(document, ["paths", path, method.lower(), "responses", key, "content", essence,
                                        "schema"])
    if schema is None:
        return False
    escaped = "/".join(str(part).replace("~", "~0").replace("/", "~1") for part in walked)
    resource = referencing.Resource.from_contents(document, referencing.jsonschema.DRAFT202012)
    registry = referencing.Registry().with_resource("urn:document", resource)
    validator = jsonschema.Draft202012Validator({"$ref": f"urn:document#/{escaped}"}, registry=registry)
    if essence != "text/event-stream":
        try:
            return validator.is_valid(json.loads(body))
        except ValueError:
            return False
    events = [block for block in re.split(r"\r?\n\r?\n", body) if block.strip()]
    for block in events:
        data = "\n".join(line[5:].removeprefix(" ") for line in re.split(r"\r?\n", block) if line.startswith("data:"))
        try:
            value = json.loads(data)
        except ValueError:
            value = data  # text data, for a string schema
        if not validator.is_valid(value):
            return False
    return bool(events)


def upgrades(document, method, path):
    """Whether an operation's only success is a 101: a protocol upgrade (Dropshot's WebSocket endpoints)."""
    operation = ((document.get("paths") or {}).get(path) or {}).get(method.lower()) or {}
    codes = [str(code) for code in (operation.get("responses") or {})]
    return "101" in codes and not any(code[0] in "23" or code == "default" for code in codes)


def once_each(value):
    """The document with each `oneOf` listing a `$ref` once: what it means where it lists one twice (which no value
    can match exactly once), as StuntDouble reads it."""
    if isinstance(value, list):
        return [once_each(item) for item in value]
    if not isinstance(value, dict):
        return value
    result = {key: once_each(item) for key, item in value.items()}
    if isinstance(result.get("oneOf"), list):
        seen, kept = set(), []
        for branch in result["oneOf"]:
            reference = branch.get("$ref") if isinstance(branch, dict) and len(branch) == 1 else None
            if reference is None or reference not in seen:
                kept.append(branch)
            seen.add(reference)
        result["oneOf"] = kept
    return result


# schemathesis's findings that are about the document, not the answer: (test of its message or check status, why,
# the document as StuntDouble reads it). Each is left out only when jsonschema finds that the answer keeps to that.
DOCUMENT_FINDINGS = [
    (lambda check, message: "is valid under more than one of the schemas listed in the 'oneOf'" in message,
     "the document's oneOf lists the same schema more than once, so no value can match exactly one branch; "
     "StuntDouble reads each once (a deviation at start-up), and the answer keeps to that", once_each),
    (lambda check, message: check == "response_schema_conformance" and message.startswith("Event #"),
     "schemathesis checks each event's envelope (data, event, id, retry) against a 3.1 `schema` for "
     "text/event-stream, as OpenAPI 3.2 reads `itemSchema`; the document means each event's data, and every event's "
     "data keeps to it", None),
    (lambda check, message: "Response contains discriminator property" in message,
     "the document's discriminator has no mapping, so its values would be the schemas' names, while each branch "
     "fixes a value of its own (`enum: [custom]`); no answer can be both, and the schemas decide (OpenAPI 3.2: a "
     "discriminator must not change validation); the answer keeps to them", None),
    (lambda check, message: message.startswith("schemathesis could not check: InvalidSchema"),
     "schemathesis refuses the document's own schema (JSON Schema's rules for schemas, such as `required` naming a "
     "member twice) and checks nothing; StuntDouble reads it as a deviation, and the answer keeps to it", None),
]


def failures(report, document, served=None):
    """Every failed check, with the request, StuntDouble's answer and how it is sorted."""
    found = []
    # Errors schemathesis met checking an operation (its own reading of the document failed), by operation.
    errors = {}
    with open(report) as events:
        for line in events:
            error = json.loads(line).get("NonFatalError") or {}
            if error.get("label"):
                value = error.get("value") or {}
                errors.setdefault(error["label"], f"{value.get('type')}: {(value.get('message') or '').strip()}")
    with open(report) as events:
        for line in events:
            event = json.loads(line)
            scenario = event.get("ScenarioFinished")
            if not scenario:
                continue
            recorder = scenario.get("recorder") or {}
            for case_id, checks in (recorder.get("checks") or {}).items():
                for check in checks:
                    if (check.get("status") or "").lower() not in ("failure", "error"):
                        continue
                    case = ((recorder.get("cases") or {}).get(case_id) or {}).get("value") or {}
                    meta = case.get("meta") or {}
                    interaction = (recorder.get("interactions") or {}).get(case_id) or {}
                    request, response = interaction.get("request") or {}, interaction.get("response") or {}
                    info = (check.get("failure_info") or {}).get("failure") or {}
                    status = response.get("status_code")
                    body = decoded(response.get("content"))
                    violations = problem_violations(body) if status and status >= 400 else None
                    mode = (meta.get("generation") or {}).get("mode")
                    phase = (meta.get("phase") or {})
                    described = ((phase.get("data") or {}).get("description")) or ""
                    kind, why = classify(document, check["name"], mode, status, info.get("message") or "",
                                         violations)
                    content_type = ((response.get("headers") or {}).get("content-type") or [""])[0]
                    message = info.get("message") or ""
                    if (check.get("status") or "").lower() == "error":
                        label = f"{case.get('method', '')} {case.get('path', '')}"
                        message = message or f"schemathesis could not check: {errors.get(label, 'no reason given')}"
                    finding = next(((why, reading) for test, why, reading in DOCUMENT_FINDINGS
                                    if test(check["name"], message)), None)
                    if (kind == "ours" and finding and served is not None
                            and answer_keeps_to((finding[1] or (lambda document: document))(served),
                                                case.get("method", ""), case.get("path", ""), status, content_type,
                                                body)):
                        kind, why = "false-positive", finding[0] + " (checked with jsonschema)"
                    if (kind == "ours" and check["name"] == "positive_data_acceptance" and status
                            and 400 <= status < 500 and served is not None
                            and upgrades(served, case.get("method", ""), case.get("path", ""))):
                        kind, why = "false-positive", (
                            "the operation documents only a 101 (a WebSocket's upgrade) and its errors: a request "
                            "without `Upgrade`, which schemathesis cannot send, gets the documented error, as the "
                            "API itself answers it")
                    if (kind == "ours" and status in (204, 205, 304) and not body
                            and check["name"] in ("content_type_conformance", "response_schema_conformance")):
                        kind, why = "false-positive", (
                            f"the document gives its {status} response content, which HTTP does not let a {status} "
                            "carry (RFC 9110); StuntDouble answers with none, and says so at start-up")
                    found.append({
                        "operation": f"{case.get('method', '?')} {case.get('path', '?')}", "check": check["name"],
                        "title": info.get("title") or check["name"], "message": message,
                        "mode": mode, "phase": phase.get("name") or scenario.get("phase"), "scenario": described,
                        "status": status, "content_type": ((response.get("headers") or {}).get("content-type")
                                                           or [""])[0],
                        "body": body, "violations": violations, "kind": kind, "why": why,
                        "curl": curl(request) if request else "",
                    })
    return found


def unique(found):
    """One failure for each operation, check and cause (StuntDouble's violations, or schemathesis's message)."""
    seen = {}
    for failure in found:
        if failure["violations"]:
            cause = "; ".join(sorted({f"{rule} at {INDEX.sub('[]', location or '')}"
                                      for rule, location, _ in failure["violations"]}))
        else:
            cause = failure["message"].split("\n")[0]
            cause = re.sub(r"Received: .*", "", cause) if failure["check"] == "status_code_conformance" else cause
        key = (failure["operation"], failure["kind"], cause)
        if key not in seen:
            seen[key] = dict(failure, cause=cause, count=0, checks=[])
        seen[key]["count"] += 1
        if failure["check"] not in seen[key]["checks"]:
            seen[key]["checks"].append(failure["check"])
    return sorted(seen.values(), key=lambda item: (item["kind"] != "ours", item["operation"], item["cause"]))


def tested_operations(report, documented):
    """Test cases per documented operation (the coverage phase also sends other methods to each path)."""
    cases = {}
    with open(report) as events:
        for line in events:
            scenario = json.loads(line).get("ScenarioFinished")
            for case in ((scenario or {}).get("recorder") or {}).get("cases", {}).values():
                value = case.get("value") or {}
                operation = f"{value.get('method')} {value.get('path')}"
                if operation not in documented:
                    operation = "other methods"
                cases[operation] = cases.get(operation, 0) + 1
    return cases


# --- connexion ---------------------------------------------------------------------------------------------

def connexion_copy(path, work):
    """The document and its folder as connexion reads them (3.1 lowered to 3.0), in a temporary folder."""
    target = os.path.join(work, "connexion-documents")
    if not os.path.exists(target):
        shutil.copytree(DOCUMENTS, target)
        for folder, _, names in os.walk(target):
            for name in names:
                if name.endswith((".yaml", ".yml", ".json")):
                    file = os.path.join(folder, name)
                    lowered = with_credential_checks(lowered_to_30(load(file)))
                    with open(file, "w") as out:
                        json.dump(lowered, out, indent=1)
    return os.path.join(target, os.path.relpath(path, DOCUMENTS))


def comparison_cases(path, work):
    """One valid request per operation: from the document's examples where it has them, else the simplest
    valid request schemathesis draws."""
    import hypothesis
    import hypothesis.configuration
    import schemathesis
    from schemathesis import GenerationMode

    hypothesis.configuration.set_hypothesis_home_dir(os.path.join(work, ".hypothesis"))  # not the package's folder

    schema = schemathesis.openapi.from_path(path)
    settings = hypothesis.settings(database=None, derandomize=True, max_examples=50, deadline=None,
                                   suppress_health_check=list(hypothesis.HealthCheck))
    cases = []
    for result in schema.get_all_operations():
        operation = result.ok()
        label = f"{operation.method.upper()} {operation.path}"
        source = "examples"
        strategies = operation.get_strategies_from_examples(fill_missing=True)
        strategy = strategies[0] if strategies else None
        if strategy is None:
            source = "schemas"
            strategy = operation.as_strategy(generation_mode=GenerationMode.POSITIVE)
        try:
            case = hypothesis.find(strategy, lambda _: True, settings=settings)
        except Exception as error:  # noqa: BLE001 - reported, not raised
            cases.append((label, None, f"no request: {type(error).__name__}: {error}"))
            continue
        cases.append((label, case, source))
    return cases


def answer(case, base, headers, query):
    from schemathesis.specs.openapi.checks import (content_type_conformance, response_headers_conformance,
                                             response_schema_conformance, status_code_conformance)
    try:
        response = case.call(base_url=base, headers=headers, params=query or None)
    except Exception as error:  # noqa: BLE001
        return None, [f"no answer: {type(error).__name__}"]
    problems = []
    try:
        case.validate_response(response, checks=[status_code_conformance, content_type_conformance,
                                                 response_schema_conformance, response_headers_conformance],
                               headers=headers)
    except BaseException as error:  # noqa: BLE001 - schemathesis's FailureGroup is a BaseExceptionGroup
        if isinstance(error, (KeyboardInterrupt, SystemExit)):
            raise
        for failure in getattr(error, "exceptions", [error]):
            title = getattr(failure, "title", type(failure).__name__)
            message = (getattr(failure, "message", "") or str(failure)).split("\n")[0]
            problems.append(f"{title}: {message}"[:160])
    return response, problems


def compare(path, ours_base, venv, headers, query, work):
    document = load(path)
    target = connexion_copy(path, work)
    port = free_port()
    theirs = Server("connexion", [os.path.join(venv, "bin", "python"), os.path.join(HERE, "connexion_mock.py"),
                                  os.path.abspath(target), str(port)], cwd=work)
    theirs_base = f"http://127.0.0.1:{port}"
    try:
        theirs.wait_until_up(theirs_base + "/openapi.json")
        rows = []
        for label, case, source in comparison_cases(path, work):
            if case is None:
                rows.append((label, source, None, [], None, []))
                continue
            our_response, our_problems = answer(case, ours_base, headers, query)
            their_response, their_problems = answer(case, theirs_base, headers, query)
            rows.append((label, source, our_response, our_problems, their_response, their_problems))
        return document, rows
    finally:
        theirs.stop()


def cell(response, problems):
    if response is None:
        return problems[0] if problems else "-"
    return f"{response.status_code} " + ("keeps to the document" if not problems else "BREAKS the document")


# --- main --------------------------------------------------------------------------------------------------

def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", required=True, help="the stuntdouble executable")
    parser.add_argument("--venv", required=True, help="the virtual environment with schemathesis and connexion")
    parser.add_argument("--seed", type=int, default=1, help="schemathesis's seed and stuntdouble's (default 1)")
    parser.add_argument("--max-examples", type=int, default=30, help="schemathesis's examples per operation")
    parser.add_argument("--checks", type=lambda text: text.split(","), default=CHECKS,
                        help="schemathesis checks, comma-separated (default: %(default)s)")
    parser.add_argument("--no-connexion", action="store_true", help="skip the comparison with connexion")
    parser.add_argument("--keep", action="store_true", help="keep the reports folder")
    parser.add_argument("--all-failures", action="store_true",
                        help="print the failures that are not StuntDouble's too, each with its curl")
    parser.add_argument("--folder", help="the documents of this folder instead of documents/ (a survey of documents "
                        "not ours): one StuntDouble refuses is listed as refused, and the run goes on")
    parser.add_argument("documents", nargs="*", help="file names in documents/ (default: all)")
    args = parser.parse_args()
    if args.folder:
        global DOCUMENTS
        DOCUMENTS = os.path.abspath(args.folder)
    args.venv, args.binary = os.path.abspath(args.venv), os.path.abspath(args.binary)

    work = tempfile.mkdtemp(prefix="openapi-conformance-")
    totals = {"ours": 0, "error-response": 0, "false-positive": 0}
    comparison_breaks = 0
    summary = []
    try:
        for served in documents(args.documents):
            name = os.path.basename(served)
            # A document that deviates from the specification is served as it is; schemathesis and connexion, which
            # refuse it, read what it means instead: documents/meaning/NAME, written as the specification wants.
            meaning = os.path.join(DOCUMENTS, "meaning", name)
            path = meaning if os.path.exists(meaning) else served
            document = load(path)
            headers, query = credentials(document)
            print(f"\n=== {name}: {document.get('info', {}).get('title')} (OpenAPI {document.get('openapi')}, "
                  f"{len(operations_of(document))} operations)")
            if path != served:
                print(f"(StuntDouble serves {name}, which deviates from the specification; schemathesis and connexion "
                      f"read meaning/{name}, what it means written as the specification wants)")
            try:
                server, base = start_stuntdouble(args.binary, served, args.seed)
            except SystemExit as refusal:
                if not args.folder:
                    raise
                reason = next((line for line in str(refusal).splitlines() if "rror" in line), str(refusal))
                print(f"refused: {reason[:400]}")
                summary.append((name, None, 0, None))
                continue
            try:
                report, output, seconds = run_schemathesis(args.venv, path, base, headers, args, work)
                if not os.path.exists(report):
                    sys.exit(f"schemathesis wrote no report; its output:\n{open(output).read()[-4000:]}")
                found = unique(failures(report, name, document))
                cases = tested_operations(report, set(operations_of(document)))
                other = cases.pop("other methods", 0)
                counts = {kind: sum(1 for item in found if item["kind"] == kind) for kind in totals}
                for kind in totals:
                    totals[kind] += counts[kind]
                print(f"schemathesis: {sum(cases.values())} test cases on {len(cases)} operations (and {other} with "
                      f"undocumented methods) in {seconds:.0f} s; "
                      f"unique failures: {counts['ours']} StuntDouble's, {counts['error-response']} where the "
                      f"document's error response is not used, {counts['false-positive']} schemathesis false "
                      f"positives")
                for item in found:
                    if item["kind"] != "ours" and not args.all_failures:
                        continue
                    marker = {"ours": "BUG?", "error-response": "error response", "false-positive": "false positive"}
                    print(f"\n  [{marker[item['kind']]}] {item['operation']}: {', '.join(item['checks'])} "
                          f"({item['count']} failed checks); first seen on a {item['mode']} case, {item['phase']} phase"
                          + (f": {item['scenario']}" if item['scenario'] else ""))
                    print(f"    why: {item['why']}")
                    print(f"    answered {item['status']} {item['content_type']}: {item['body'][:300]}")
                    if item["message"]:
                        print("    schemathesis: " + item["message"].replace("\n", " | ")[:300])
                    print(f"    {item['curl']}" if len(item["curl"]) < 3000 else
                          f"    {item['curl'][:3000]} ... ({len(item['curl'])} characters; --keep keeps "
                          f"schemathesis's report)")
                if not args.all_failures:
                    for kind in ("error-response", "false-positive"):
                        grouped = {}
                        for item in found:
                            if item["kind"] == kind:
                                for check in item["checks"]:
                                    grouped.setdefault(check, set()).add(item["operation"])
                        for check, operations in sorted(grouped.items()):
                            label = "not StuntDouble's: error response" if kind == "error-response" else \
                                "schemathesis false positive"
                            print(f"\n  [{label}] {check} on {len(operations)} operations "
                                  f"({', '.join(sorted(operations))})")
                        for why in sorted({item["why"] for item in found if item["kind"] == kind}):
                            print(f"    why: {why}")
                summary.append((name, len(cases), sum(cases.values()), counts))
                if not args.no_connexion:
                    _, rows = compare(path, base, args.venv, headers, query, work)
                    print(f"\n  one valid request per operation, StuntDouble and connexion {connexion_version()} "
                          f"--mock=all (both answers checked against {name}):")
                    print(f"  {'operation':38} {'request from':13} {'StuntDouble':28} connexion")
                    for label, source, ours, our_problems, theirs, their_problems in rows:
                        print(f"  {label:38} {source[:13]:13} {cell(ours, our_problems):28} "
                              f"{cell(theirs, their_problems)}")
                        for who, response, problems in (("StuntDouble", ours, our_problems),
                                                        ("connexion", theirs, their_problems)):
                            for problem in problems:
                                print(f"  {'':38} {'':13} {who}: {problem}")
                            if response is not None and response.status_code >= 400:
                                text = " ".join((getattr(response, "text", "") or "").split())
                                print(f"  {'':38} {'':13} {who} answered: {text[:200]}")
                        comparison_breaks += 1 if ours is not None and our_problems else 0
            finally:
                server.stop()

        print("\n=== summary")
        for name, operations, cases, counts in summary:
            if counts is None:
                print(f"{name:24} refused (the reason is above)")
                continue
            print(f"{name:24} {operations:3} operations, {cases:5} test cases: {counts['ours']} StuntDouble failures, "
                  f"{counts['error-response']} error-response mismatches, {counts['false-positive']} "
                  f"schemathesis false positives")
        if not args.no_connexion:
            print(f"comparison requests whose StuntDouble answer breaks the document: {comparison_breaks}")
        failed = totals["ours"] + totals["error-response"] + comparison_breaks
        print(f"unique schemathesis failures against StuntDouble: {totals['ours']} StuntDouble's, "
              f"{totals['error-response']} error-response mismatches ({totals['false-positive']} false positives "
              f"left out)")
        if args.keep:
            print(f"reports kept in {work}")
        return 1 if failed else 0
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


def connexion_version():
    try:
        from importlib.metadata import version
        return version("connexion")
    except Exception:  # noqa: BLE001
        return "?"


if __name__ == "__main__":
    sys.exit(main())
