"""Every value the OpenAPI mock makes keeps to its schema: a property over generated schemas.

Makes COUNT random JSON Schemas (seeded: the same seed, the same schemas) of the kinds real documents have (every
type, bounds up to 2^63 and past it, multipleOf, formats, patterns, lengths, uniqueItems, tuples, required and
additional properties, enum and const, allOf, oneOf, anyOf, nullable types), serves them as one OpenAPI 3.1
document (an operation per schema) with `stuntdouble serve --openapi`, asks each operation several times in
dynamic mode and once in static mode, and checks every answer with Python's jsonschema (Draft 2020-12, formats
checked), a validator that is not StuntDouble's. Prints each failure (the schema, the value, what jsonschema
says) and exits 1 when there is any.

    python generated_values.py --binary .build/debug/stuntdouble [--count 1000] [--seed 7] [--draws 3]
"""

import argparse
import importlib.metadata
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

import jsonschema

FORMATS = ["date", "date-time", "time", "email", "uuid", "uri", "ipv4", "ipv6", "hostname", "byte", "int64"]
PATTERNS = ["^[a-z]{3,8}$", "^[A-Z]{2}-[0-9]{4}$", "^\\d{5}(-\\d{4})?$", "^(red|green|blue)$", "^[0-9a-f]{8}$"]


class Schemas:
    """Random schemas that can be satisfied (bounds in order, lengths that fit their patterns)."""

    def __init__(self, seed):
        self.random = random.Random(seed)

    def pick(self, *choices):
        return self.random.choice(choices)

    def schema(self, depth=0):
        kinds = ["integer", "number", "string", "boolean", "enum", "const", "nullable"]
        if depth < 3:
            kinds += ["array", "object", "object", "allOf", "oneOf", "anyOf", "tuple"]
        return getattr(self, "make_" + self.random.choice(kinds))(depth)

    def make_integer(self, depth):
        schema = {"type": "integer"}
        magnitude = self.pick(10, 1000, 2**31, 2**53 - 1, 2**63 - 1, 10**20)
        if self.random.random() < 0.6:
            schema["minimum"] = self.random.randint(-magnitude, magnitude // 2)
        if self.random.random() < 0.6:
            low = schema.get("minimum", -magnitude)
            schema["maximum"] = self.random.randint(low, magnitude) if low < magnitude else low
        if self.random.random() < 0.2 and "minimum" in schema:
            schema["exclusiveMinimum"] = schema.pop("minimum")
            if "maximum" in schema and schema["maximum"] <= schema["exclusiveMinimum"] + 1:
                schema["maximum"] = schema["exclusiveMinimum"] + 2
        if self.random.random() < 0.25 and magnitude <= 2**31:
            schema["multipleOf"] = self.pick(2, 3, 5, 10, 7)
            low = schema.get("minimum", schema.get("exclusiveMinimum"))
            if low is not None and "maximum" in schema:
                schema["maximum"] = max(schema["maximum"], low + 2 * schema["multipleOf"])
        if self.random.random() < 0.3:
            schema["format"] = self.pick("int32", "int64")
            if schema["format"] == "int32":
                for bound in ("minimum", "maximum", "exclusiveMinimum"):
                    if bound in schema:
                        schema[bound] = max(min(schema[bound], 2**31 - 100), -(2**31) + 100)
                if schema.get("minimum", -(2**31)) > schema.get("maximum", 2**31):
                    schema["maximum"] = schema["minimum"]
                if "exclusiveMinimum" in schema and schema.get("maximum", 2**31) <= schema["exclusiveMinimum"] + 1:
                    schema["maximum"] = schema["exclusiveMinimum"] + 2
        return schema

    def make_number(self, depth):
        schema = {"type": "number"}
        if self.random.random() < 0.5:
            schema["minimum"] = round(self.random.uniform(-1e6, 1e6), 3)
        if self.random.random() < 0.5:
            low = schema.get("minimum", -1e6)
            schema["maximum"] = round(low + self.random.uniform(0.01, 1e6), 3)
        if self.random.random() < 0.2:
            schema["exclusiveMaximum"] = schema.pop("maximum", 1e9)
            if schema.get("minimum", -1e9) >= schema["exclusiveMaximum"]:
                schema["exclusiveMaximum"] = schema["minimum"] + 1
        if self.random.random() < 0.2:
            schema["multipleOf"] = self.pick(0.5, 0.25, 0.01, 0.1, 2.5)
            if "minimum" in schema and "maximum" in schema:
                schema["maximum"] = schema["minimum"] + 100
        if self.random.random() < 0.2:
            schema["format"] = self.pick("float", "double")
        return schema

    def make_string(self, depth):
        schema = {"type": "string"}
        roll = self.random.random()
        if roll < 0.3:
            schema["format"] = self.random.choice(FORMATS[:-1])
        elif roll < 0.5:
            schema["pattern"] = self.random.choice(PATTERNS)
        else:
            if self.random.random() < 0.5:
                schema["minLength"] = self.random.randint(0, 40)
            if self.random.random() < 0.5:
                schema["maxLength"] = self.random.randint(schema.get("minLength", 0), 60)
        return schema

    def make_boolean(self, depth):
        return {"type": "boolean"}

    def make_enum(self, depth):
        values = self.pick(["a", "b", "c"], [1, 2, 3], ["x", 1, True, None], [0.5, 1.5])
        schema = {"enum": values}
        if all(isinstance(v, str) for v in values):
            schema["type"] = "string"
        return schema

    def make_const(self, depth):
        return {"const": self.pick("fixed", 42, {"a": 1}, [1, 2], None, False)}

    def make_nullable(self, depth):
        inner = self.schema(depth + 1)
        if isinstance(inner.get("type"), str):
            inner["type"] = [inner["type"], "null"]
            if "enum" in inner:
                inner["enum"] = inner["enum"] + [None]
            return inner
        return {"anyOf": [inner, {"type": "null"}]}

    def make_array(self, depth):
        schema = {"type": "array", "items": self.schema(depth + 1)}
        if self.random.random() < 0.4:
            schema["minItems"] = self.random.randint(0, 4)
        if self.random.random() < 0.4:
            schema["maxItems"] = self.random.randint(max(schema.get("minItems", 0), 1), 6)
        if self.random.random() < 0.3:
            schema["uniqueItems"] = True
            schema["items"] = self.pick(
                {"type": "integer"}, {"type": "string"}, {"type": "number"}, {"type": "string", "format": "uuid"})
        return schema

    def make_tuple(self, depth):
        return {
            "type": "array",
            "prefixItems": [self.schema(depth + 1) for _ in range(self.random.randint(1, 3))],
            "items": self.pick(False, self.schema(depth + 1)),
        }

    def make_object(self, depth):
        properties = {f"p{index}": self.schema(depth + 1) for index in range(self.random.randint(0, 5))}
        schema = {"type": "object", "properties": properties}
        names = list(properties)
        if names and self.random.random() < 0.7:
            schema["required"] = self.random.sample(names, self.random.randint(1, len(names)))
        roll = self.random.random()
        if roll < 0.25:
            schema["additionalProperties"] = False
        elif roll < 0.4:
            schema["additionalProperties"] = {"type": "integer"}
            schema["minProperties"] = len(names) + self.random.randint(0, 3)
        return schema

    def make_allOf(self, depth):
        first = self.make_object(depth + 1)
        second = self.make_object(depth + 1)
        first.pop("additionalProperties", None)
        second.pop("additionalProperties", None)
        first.pop("minProperties", None)
        second.pop("minProperties", None)
        # The same property in both must admit one value: keep the second's names apart.
        second["properties"] = {"q" + name[1:]: value for name, value in second["properties"].items()}
        if "required" in second:
            second["required"] = ["q" + name[1:] for name in second["required"]]
        if self.random.random() < 0.3:
            # A closed part (openapi-python-client's fixtures): the other part's members must be left out, so it
            # may require none.
            first["additionalProperties"] = False
            second.pop("required", None)
        return {"allOf": [first, second]}

    def make_oneOf(self, depth):
        roll = self.random.random()
        if roll < 0.4:
            # Branches of different types: exactly one admits a value of its own type.
            return {"oneOf": [self.make_string(depth), self.make_integer(depth), self.make_object(depth + 1)]}
        if roll < 0.7:
            # Objects told apart by a required discriminator (as generators write them).
            branches = []
            for kind in ("cat", "dog", "bird")[: self.random.randint(2, 3)]:
                branch = self.make_object(depth + 1)
                branch["properties"]["kind"] = {"type": "string", "enum": [kind]}
                branch["required"] = sorted(set(branch.get("required", [])) | {"kind"})
                branches.append(branch)
            return {"oneOf": branches, "discriminator": {"propertyName": "kind"}}
        if roll < 0.8:
            # Any object, and a closed one with only optional members: `{}` is both (openapi-python-client's).
            closed = self.make_object(depth + 1)
            closed.pop("required", None)
            closed.pop("minProperties", None)
            closed["additionalProperties"] = False
            return {"oneOf": self.pick([{"type": "object"}, closed], [closed, {"type": "object"}])}
        # Overlapping branches, as hand-written documents have: integer and number, or objects that share names.
        return {"oneOf": self.pick(
            [{"type": "integer"}, {"type": "number"}],
            [{"type": "object", "required": ["a"], "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}},
             {"type": "object", "required": ["b"], "properties": {"b": {"type": "integer"}}}],
            [{"type": "string", "maxLength": 10}, {"type": "string", "minLength": 5}],
        )}

    def make_anyOf(self, depth):
        return {"anyOf": [self.schema(depth + 1) for _ in range(self.random.randint(1, 3))]}


def start(binary, document):
    process = subprocess.Popen(
        [binary, "serve", "--openapi", document, "--port", "0", "--quiet"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while time.time() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        found = re.search(r"http://127\.0\.0\.1:\d+", line)
        if found:
            return process, found.group(0)
    process.kill()
    raise SystemExit("stuntdouble did not start:\n" + process.stderr.read())


def fetch(url, dynamic):
    request = urllib.request.Request(url, headers={"Prefer": f"dynamic={'true' if dynamic else 'false'}"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=int(os.environ.get("SEED", "7")))
    parser.add_argument("--draws", type=int, default=3, help="dynamic answers per schema, besides the static one")
    arguments = parser.parse_args()

    schemas = Schemas(arguments.seed)
    made = [schemas.schema() for _ in range(arguments.count)]
    paths = {
        f"/s/{index}": {"get": {"operationId": f"s{index}", "responses": {"200": {
            "description": "ok", "content": {"application/json": {"schema": schema}}}}}}
        for index, schema in enumerate(made)
    }
    document = {"openapi": "3.1.0", "info": {"title": "Generated schemas", "version": "1"}, "paths": paths}
    folder = tempfile.mkdtemp(prefix="generated-values-")
    path = os.path.join(folder, "generated.json")
    with open(path, "w") as file:
        json.dump(document, file)

    process, base = start(arguments.binary, path)
    failures = []
    answers = 0
    try:
        for index, schema in enumerate(made):
            # Draft 2020-12's own format checker (a FormatChecker() of every draft's checks "time" as draft 3 did).
            validator = jsonschema.Draft202012Validator(
                schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
            for draw in range(arguments.draws + 1):
                status, body = fetch(f"{base}/s/{index}", dynamic=draw > 0)
                answers += 1
                if status != 200:
                    failures.append((index, schema, body.decode(errors="replace"), f"status {status}"))
                    break
                try:
                    value = json.loads(body)
                except ValueError as error:
                    failures.append((index, schema, body.decode(errors="replace"), f"not JSON: {error}"))
                    break
                errors = sorted(validator.iter_errors(value), key=lambda error: list(error.path))
                if errors:
                    failures.append((index, schema, body.decode(), errors[0].message))
                    break
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)

    print(f"{arguments.count} schemas (seed {arguments.seed}), {answers} answers checked with jsonschema "
          f"{importlib.metadata.version('jsonschema')} (Draft 2020-12): {len(failures)} schemas answered against themselves")
    for index, schema, body, message in failures[:40]:
        print(f"\n/s/{index}: {message}\n  schema: {json.dumps(schema)}\n  answer: {body[:400]}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
