"""Checks a findings file that `flipaudit follow` wrote (docs/follow.md),
line by line, and names each bad line by its number.

* Every line: ends in a newline; is one JSON object in UTF-8, with no key
  twice and the keys sorted (code point order) at every level; no `id`
  twice in the file (`--findings FILE` writes each finding once, across
  restarts). With `--allow-repeats` (a capture of standard output, where a
  SIGKILL may repeat the findings decided after the last commit) an id may
  come again, but only with the same finding.
* flipaudit's own lines (the default): docs/schema/flipaudit-finding.schema.json,
  and `time` is a real instant.
* `--ocsf` (`--findings-format ocsf`): an OCSF Detection Finding (class_uid
  2004) of the OCSF version the line names in `metadata.version`, against the
  JSON Schema that the ocsf-json-schema package makes from schema.ocsf.io's
  export of that version (the class with every object it uses, no profile:
  required attributes, types, enums, no attribute the class lacks); then what
  OCSF's dictionary asks and a JSON Schema cannot say: a label beside an id
  (`severity`, `status`, `activity_name`, `class_name`, `category_name`,
  `type_name`, in every object) is the caption of the id (but for 99,
  Other), and `type_uid` is class_uid * 100 + activity_id. Last, docs/follow.md's
  table: its fixed values (product, activity, status, `analytic`, `message`
  as `kind: detail`), and the finding read back from the line must pass the
  first check.

usage: check_follow.py FILE.ndjson [--ocsf] [--allow-repeats]
exit status: 0 every line good, 1 a bad line (FILE:LINE: problem on
standard error, the first 20), 2 usage or a file that cannot be read.
Needs jsonschema, and for --ocsf ocsf-json-schema (Tests/schema/python.sh
makes a Python that has both).
"""

import datetime
import json
import os
import sys

import jsonschema

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FINDING_SCHEMA = os.path.join(ROOT, "docs", "schema", "flipaudit-finding.schema.json")
OCSF_CLASS = "detection_finding"
SHOWN = 20

# docs/follow.md's mapping: flipaudit's severity by OCSF severity_id.
SEVERITY_OF_ID = {1: "info", 2: "low", 3: "medium", 4: "high", 5: "critical"}
# Keys of `unmapped`: the finding's keys that OCSF has no attribute for.
UNMAPPED = {"client_id", "outcome", "redirect_uri", "source", "state"}


class Bad(Exception):
    """A line's problem, as said to the user."""


def usage(message):
    print(f"check_follow.py: {message}", file=sys.stderr)
    print("usage: check_follow.py FILE.ndjson [--ocsf] [--allow-repeats]", file=sys.stderr)
    sys.exit(2)


def pairs(items):
    """json's object hook: no key twice; keys sorted."""
    keys = [k for k, _ in items]
    seen = set()
    for k in keys:
        if k in seen:
            raise Bad(f"key {k!r} twice in one object")
        seen.add(k)
    if keys != sorted(keys):
        raise Bad(f"keys not sorted: {', '.join(keys)}")
    return dict(items)


def no_constant(name):
    raise Bad(f"{name} is not JSON")


def parse(raw):
    if raw.startswith(b"\xef\xbb\xbf"):
        raise Bad("a byte order mark")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise Bad(f"not UTF-8 (byte {e.start + 1})")
    if not text.strip():
        raise Bad("an empty line")
    try:
        value = json.loads(text, object_pairs_hook=pairs, parse_constant=no_constant)
    except json.JSONDecodeError as e:
        raise Bad(f"not JSON: {e.msg} at column {e.colno}")
    if not isinstance(value, dict):
        raise Bad(f"not a JSON object but {type(value).__name__}")
    return value


def where(error):
    path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
    return path[1:] if path.startswith(".") else (path or "(the line)")


def schema_problems(validator, value, prefix=""):
    errors = sorted(validator.iter_errors(value), key=lambda e: (list(map(str, e.absolute_path)), e.message))
    return [f"{prefix}{where(e)}: {message(e)}" for e in errors]


def message(error):
    if error.validator == "enum" and len(error.validator_value) > 12:
        return f"{error.instance!r} is none of its {len(error.validator_value)} values"
    return error.message


def finding_problems(validator, finding):
    problems = schema_problems(validator, finding)
    time = finding.get("time")
    if isinstance(time, str) and not problems:
        try:
            datetime.datetime.strptime(time, "%Y-%m-%dT%H:%M:%S.%fZ")
        except ValueError:
            problems.append(f"time: {time!r} is no real instant")
    return problems


class Ocsf:
    """The OCSF schema of each version the lines name, made once."""

    def __init__(self):
        try:
            import ocsf_json_schema
        except ImportError:
            usage("--ocsf needs the ocsf-json-schema package (bash Tests/schema/python.sh makes a Python with it)")
        self.lib = ocsf_json_schema
        self.versions = self.lib.get_packaged_versions()
        self.made = {}
        self.exports = {}

    def export(self, version):
        if version not in self.exports:
            self.exports[version] = self.lib.get_ocsf_schema(version)
        return self.exports[version]

    def of(self, version):
        if version not in self.made:
            export = self.export(version)
            schema = self.lib.OcsfJsonSchemaEmbedded(export).get_class_schema(OCSF_CLASS)
            jsonschema.Draft202012Validator.check_schema(schema)
            self.made[version] = (export, jsonschema.Draft202012Validator(schema))
        return self.made[version]

    def problems(self, event, finding_validator):
        metadata = event.get("metadata")
        version = metadata.get("version") if isinstance(metadata, dict) else None
        if not isinstance(version, str):
            return ["metadata.version: missing, so no OCSF version to check against"]
        if version not in self.versions:
            known = ", ".join(sorted(self.versions))
            return [f"metadata.version: OCSF {version!r} is not one the ocsf-json-schema package carries ({known})"]
        if OCSF_CLASS not in self.export(version).get("classes", {}):
            return [f"metadata.version: OCSF {version} has no Detection Finding class (it came in 1.1.0)"]
        export, validator = self.of(version)
        problems = schema_problems(validator, event, f"OCSF {version}: ")
        if problems:
            return problems
        problems += siblings(export, export["classes"][OCSF_CLASS], event, "")
        if event["type_uid"] != event["class_uid"] * 100 + event["activity_id"]:
            problems.append(f"type_uid: {event['type_uid']} is not class_uid * 100 + activity_id")
        if problems:
            return [f"OCSF {version}: {p}" for p in problems]
        finding, mapping = read_back(event)
        return mapping + [f"read back as flipaudit's finding: {p}" for p in finding_problems(finding_validator, finding)]


def siblings(export, definition, value, path):
    """OCSF's dictionary: `X` beside `X_id` is the caption of the id's value."""
    problems = []
    for name, attribute in definition.get("attributes", {}).items():
        if name not in value:
            continue
        here = f"{path}{name}"
        label = attribute.get("sibling")
        enum = attribute.get("enum")
        if label and enum and label in value and value[name] != 99:
            caption = enum.get(str(value[name]), {}).get("caption")
            if value[label] != caption:
                problems.append(f"{path}{label}: {value[label]!r} is not {caption!r}, the caption of {here} {value[name]}")
        if attribute.get("type") == "object_t":
            inner = export["objects"].get(attribute.get("object_type"), {})
            items = value[name] if attribute.get("is_array") else [value[name]]
            for i, item in enumerate(items):
                if isinstance(item, dict):
                    at = f"{here}[{i}]." if attribute.get("is_array") else f"{here}."
                    problems += siblings(export, inner, item, at)
    return problems


def read_back(event):
    """flipaudit's finding out of a Detection Finding, by docs/follow.md's table;
    and the table's own rules the line breaks."""
    info = event["finding_info"]
    kind = info["title"]
    unmapped = event.get("unmapped", {})
    problems = []
    product = event["metadata"]["product"]
    if product.get("name") != "flipaudit" or product.get("vendor_name") != "flipaudit":
        problems.append("metadata.product: name and vendor_name are not flipaudit")
    if event["activity_id"] != 1 or event.get("status_id") != 1:
        problems.append("activity_id and status_id: flipaudit writes 1 (Create) and 1 (New)")
    analytic = info.get("analytic")
    if not (isinstance(analytic, dict) and analytic.get("name") == kind and analytic.get("uid") == kind and analytic.get("type_id") == 1):
        problems.append("finding_info.analytic: not the rule of the kind (name and uid the kind, type_id 1, Rule)")
    if info.get("types") != [kind]:
        problems.append(f"finding_info.types: {info.get('types')!r} is not [finding_info.title]")
    if "desc" not in info:
        problems.append("finding_info.desc: missing (the finding's detail)")
    elif event.get("message") != f"{kind}: {info['desc']}":
        problems.append("message: not finding_info.title, a colon and finding_info.desc")
    if info.get("first_seen_time") != event["time"]:
        problems.append("finding_info.first_seen_time differs from time")
    if not isinstance(unmapped, dict):
        unmapped = {}
    for key in sorted(set(unmapped) - UNMAPPED):
        problems.append(f"unmapped.{key}: not a key of the mapping")
    finding = {k: v for k, v in unmapped.items() if k in UNMAPPED}
    finding["id"] = info["uid"]
    finding["kind"] = kind
    if "desc" in info:
        finding["detail"] = info["desc"]
    if event["severity_id"] in SEVERITY_OF_ID:
        finding["severity"] = SEVERITY_OF_ID[event["severity_id"]]
    else:
        problems.append(f"severity_id: {event['severity_id']} is none of flipaudit's severities (1 to 5)")
    try:
        instant = datetime.datetime.fromtimestamp(event["time"] / 1000, tz=datetime.timezone.utc)
        finding["time"] = instant.strftime("%Y-%m-%dT%H:%M:%S.") + f"{event['time'] % 1000:03d}Z"
    except (OverflowError, OSError, ValueError):
        problems.append(f"time: {event['time']} ms is no instant flipaudit writes")
    return finding, [f"mapping: {p}" for p in problems]


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    flags = [a for a in argv if a.startswith("--")]
    if len(args) != 1 or any(f not in ("--ocsf", "--allow-repeats") for f in flags):
        usage("give one file, and --ocsf or --allow-repeats at most")
    path = args[0]
    try:
        data = open(path, "rb").read()
    except OSError as e:
        usage(f"{path}: {e.strerror}")
    finding_schema = json.load(open(FINDING_SCHEMA))
    jsonschema.Draft202012Validator.check_schema(finding_schema)
    validator = jsonschema.Draft202012Validator(finding_schema)
    ocsf = Ocsf() if "--ocsf" in flags else None
    repeats = "--allow-repeats" in flags

    lines = data.split(b"\n")
    last_cut = lines[-1] != b""
    if not last_cut:
        lines.pop()
    seen = {}
    bad = []
    for number, raw in enumerate(lines, start=1):
        problems = []
        if number == len(lines) and last_cut:
            problems.append("no newline at its end (a cut line)")
        try:
            value = parse(raw)
        except Bad as e:
            problems.append(str(e))
            value = None
        if value is not None and any(k in value for k in ("class_uid", "finding_info", "metadata")) != bool(ocsf):
            problems.append("an OCSF event: check it with --ocsf" if ocsf is None else "flipaudit's own line, not OCSF: check it without --ocsf")
        elif value is not None:
            problems += ocsf.problems(value, validator) if ocsf else finding_problems(validator, value)
            info = value.get("finding_info") if ocsf else value
            uid = info.get("uid" if ocsf else "id") if isinstance(info, dict) else None
            if isinstance(uid, str):
                if uid in seen:
                    first, before = seen[uid]
                    if not repeats:
                        problems.append(f"id {uid} again (line {first} has it): a finding written twice")
                    elif before != value:
                        problems.append(f"id {uid} again (line {first} has it) with another finding")
                else:
                    seen[uid] = (number, value)
        bad += [(number, p) for p in problems]

    for number, problem in bad[:SHOWN]:
        print(f"{path}:{number}: {problem}", file=sys.stderr)
    if len(bad) > SHOWN:
        print(f"{path}: … {len(bad) - SHOWN} more problems", file=sys.stderr)
    what = "OCSF Detection Findings" if ocsf else "flipaudit findings"
    if bad:
        lines_bad = len({n for n, _ in bad})
        print(f"{path}: {lines_bad} of {len(lines)} line{'s' if len(lines) != 1 else ''} not good {what}", file=sys.stderr)
        return 1
    print(f"{path}: {len(lines)} line{'s' if len(lines) != 1 else ''}, all good {what} ({len(seen)} distinct ids)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
