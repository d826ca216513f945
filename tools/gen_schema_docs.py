"""Generate the schema documentation from the schema files (the schemas are the source of truth).

    python tools/gen_schema_docs.py          # rewrite docs/schema-reference.md
    python tools/gen_schema_docs.py --check  # exit 1 when the committed page is stale

``render()`` is the one-page reference committed as docs/schema-reference.md; ``kind_pages()``
is the docs site's page per kind (fields, types, constraints, examples, version history), which
tools/docs_site.py adds to the mkdocs build in memory (never committed).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SCHEMAS = ROOT / "schemas"
OUT = ROOT / "docs" / "schema-reference.md"


def _load(rel: str) -> dict[str, Any]:
    return json.loads((SCHEMAS / rel).read_text(encoding="utf-8"))


def _type_of(node: Any) -> str:
    if node is True:
        return "any"
    if node is False:
        return "never"
    if "$ref" in node:
        target = node["$ref"].split("#/$defs/")[-1] if "#/$defs/" in node["$ref"] else node["$ref"]
        return f"`{target}`"
    if "const" in node:
        return f"const `{json.dumps(node['const'], ensure_ascii=False)}`"
    if "enum" in node:
        return "one of " + ", ".join(f"`{json.dumps(v)}`" for v in node["enum"])
    kind = node.get("type", "any")
    if isinstance(kind, list):
        kind = " or ".join(kind)
    if kind == "array" and isinstance(node.get("items"), dict):
        return f"array of {_type_of(node['items'])}"
    if "oneOf" in node or "anyOf" in node:
        alts = node.get("oneOf") or node.get("anyOf")
        return " or ".join(_type_of(a) for a in alts)
    return f"{kind}"


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _properties(node: dict[str, Any], lines: list[str]) -> None:
    props = node.get("properties", {})
    if not props:
        return
    required = set(node.get("required", []))
    lines.append("| field | required | type | description |")
    lines.append("|---|---|---|---|")
    for name, sub in props.items():
        description = sub.get("description", "") if isinstance(sub, dict) else ""
        lines.append(f"| `{name}` | {'yes' if name in required else 'no'} | "
                     f"{_cell(_type_of(sub))} | {_cell(description)} |")
    closed = node.get("additionalProperties") is False or node.get("unevaluatedProperties") is False
    lines.append("")
    lines.append("Other keys: " + ("refused." if closed else "allowed."))
    lines.append("")


def render() -> str:
    """Return the Markdown reference for every kind in schemas/index.json."""
    index = _load("index.json")
    lines = [
        "# Schema reference",
        "",
        "Generated from `schemas/` by `python tools/gen_schema_docs.py`; do not edit by hand.",
        f"Every `$id` starts with `{index['base_uri']}`.",
        "",
        "| kind | version | file |",
        "|---|---|---|",
    ]
    for k in index["kinds"]:
        lines.append(f"| [`{k['kind']}`](#{k['kind']}) | {k.get('version') or '-'} | "
                     f"`schemas/{k['path']}` |")
    lines.append("")
    for k in index["kinds"]:
        schema = _load(k["path"])
        lines += [f"## {k['kind']}", "", f"**{_cell(schema.get('title', k['title']))}**", "",
                  _cell(schema.get("description", "")), "", f"`$id`: `{schema['$id']}`", ""]
        _properties(schema, lines)
        for name, sub in schema.get("$defs", {}).items():
            lines += [f"### `{name}`", "", _cell(sub.get("description", "")), ""]
            if "properties" in sub:
                _properties(sub, lines)
            else:
                lines += [f"Type: {_cell(_type_of(sub))}.", ""]
    return "\n".join(lines).rstrip() + "\n"


# --------------------------------------------------------------------------- site pages

CONSTRAINT_KEYS = ("const", "enum", "pattern", "format", "minLength", "maxLength", "minimum",
                   "exclusiveMinimum", "maximum", "exclusiveMaximum", "multipleOf", "minItems",
                   "maxItems", "uniqueItems", "minProperties", "maxProperties", "default")
EXAMPLE_LINES = 80  # a valid example longer than this is linked, not shown


def _tools_module(name: str) -> Any:
    """A sibling module of tools/ (check_schemas), importable whether or not tools/ is on sys.path."""
    here = str(Path(__file__).resolve().parent)
    if here not in sys.path:
        sys.path.insert(0, here)
    return __import__(name)


def _constraints(node: Any) -> str:
    if not isinstance(node, dict):
        return ""
    parts = []
    for key in CONSTRAINT_KEYS:
        if key in node and key not in ("const", "enum"):
            parts.append(f"{key} `{json.dumps(node[key], ensure_ascii=False)}`")
    target = node.get("items") if isinstance(node.get("items"), dict) else None
    if target:
        inner = _constraints(target)
        if inner:
            parts.append(f"items: {inner}")
    for combinator in ("if", "not", "dependentRequired", "propertyNames", "patternProperties"):
        if combinator in node:
            parts.append(f"`{combinator}` rule (see the schema)")
    return "; ".join(parts)


def _site_type(node: Any, here: str, kind_by_file: dict[str, str]) -> str:
    if isinstance(node, dict) and isinstance(node.get("$ref"), str):
        ref = node["$ref"]
        file, _, pointer = ref.partition("#")
        # link to the definition (`/$defs/<name>`); label with the last pointer segment
        name = pointer.split("/")[2] if pointer.startswith("/$defs/") else ""
        shown = pointer.rsplit("/", 1)[-1] if name else ""
        if not file:
            return f"[`{shown}`](#def-{name.lower()})" if name else "this schema"
        target = (Path(here).parent / file).as_posix()
        while "/../" in f"/{target}":
            head, _, tail = target.partition("/../")
            target = "/".join(head.split("/")[:-1] + [tail]) if "/" in head else tail
        other = kind_by_file.get(target)
        label = f"`{shown or Path(file).name}`"
        if other is None:
            return label
        return f"[{label}]({other}.md" + (f"#def-{name.lower()}" if name else "") + ")"
    if isinstance(node, dict) and node.get("type") == "array" and isinstance(node.get("items"), dict):
        return "array of " + _site_type(node["items"], here, kind_by_file)
    if isinstance(node, dict) and ("oneOf" in node or "anyOf" in node):
        return " or ".join(_site_type(a, here, kind_by_file)
                           for a in node.get("oneOf") or node.get("anyOf"))
    return _type_of(node)


def _site_fields(node: dict[str, Any], here: str, kind_by_file: dict[str, str]) -> list[str]:
    props = node.get("properties", {})
    lines: list[str] = []
    if props:
        required = set(node.get("required", []))
        lines += ["| field | required | type | constraints | description |",
                  "|---|---|---|---|---|"]
        for name, sub in props.items():
            description = sub.get("description", "") if isinstance(sub, dict) else ""
            lines.append(f"| `{name}` | {'yes' if name in required else 'no'} | "
                         f"{_cell(_site_type(sub, here, kind_by_file))} | "
                         f"{_cell(_constraints(sub))} | {_cell(description)} |")
        lines.append("")
    closed = node.get("additionalProperties") is False or node.get("unevaluatedProperties") is False
    if props or closed:
        lines += ["Other keys: " + ("refused." if closed else "allowed."), ""]
    elif "type" in node or "$ref" in node or "oneOf" in node or "anyOf" in node:
        constraints = _constraints(node)
        lines += [f"Type: {_cell(_site_type(node, here, kind_by_file))}"
                  + (f"; {_cell(constraints)}" if constraints else "") + ".", ""]
    return lines


def _released() -> dict[str, str]:
    sums = SCHEMAS / "SHA256SUMS"
    if not sums.exists():
        return {}
    rows = (line.split("  ", 1) for line in sums.read_text(encoding="utf-8").splitlines())
    return {path: digest for digest, path in rows}


def _changelog_lines(kind: str) -> list[str]:
    """CHANGELOG.md bullets that name the kind in backticks, under their schema-set heading."""
    changelog = SCHEMAS / "CHANGELOG.md"
    if not changelog.exists():
        return []
    bullets: list[tuple[str, str]] = []  # (set heading, bullet text with continuation lines)
    heading = ""
    for line in changelog.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            heading = line[3:].strip()
        elif line.startswith("- "):
            bullets.append((heading, line[2:].strip()))
        elif line.startswith("  ") and bullets and line.strip():
            bullets[-1] = (bullets[-1][0], f"{bullets[-1][1]} {line.strip()}")
    return [f"- **{h}**: {text}" for h, text in bullets if h and f"`{kind}`" in text]


def kind_page(kind: str, *, repo_url: str = "") -> str:
    """The site page of one kind: header, fields per object, `$defs`, examples, version history.

    Args:
        kind: a kind of schemas/index.json.
        repo_url: base of the repository's browsable files (``https://github.com/o/r/blob/main``);
            example and schema files link there when given, else they are named only.

    Returns:
        Markdown text for ``schemas/<kind>.md`` of the docs site.
    """
    index = _load("index.json")
    info = next(k for k in index["kinds"] if k["kind"] == kind)
    path = info["path"]
    schema = _load(path)
    kind_by_file = {k["path"]: k["kind"] for k in index["kinds"]}

    def file_link(rel: str) -> str:
        return f"[`schemas/{rel}`]({repo_url}/schemas/{rel})" if repo_url else f"`schemas/{rel}`"

    versions = info.get("versions") or [info["version"]]
    version = (f"`{info['version_field']}` = " + " or ".join(f"`{v}`" for v in versions)
               if info["version_field"]
               else "none (name the kind when validating: `aau schema validate --kind "
               f"{kind} FILE`)")
    lines = [f"# {kind}", "", f"**{_cell(schema.get('title', info['title']))}**", "",
             _cell(schema.get("description", "")), "",
             "| | |", "|---|---|", f"| schema file | {file_link(path)} |",
             f"| `$id` | `{schema['$id']}` |", f"| document version | {version} |", "",
             "## Fields", ""]
    root = _site_fields(schema, path, kind_by_file)
    lines += root or ["This schema only holds shared definitions (below).", ""]
    for name, sub in schema.get("$defs", {}).items():
        lines += [f"### `{name}` {{#def-{name.lower()}}}", ""]
        if isinstance(sub, dict) and sub.get("description"):
            lines += [_cell(sub["description"]), ""]
        if isinstance(sub, dict):
            lines += _site_fields(sub, path, kind_by_file)
    cs = _tools_module("check_schemas")
    examples = [e for e in cs.example_files() if cs.example_schema_path(e) == path]
    valid = [e for e in examples if e.parent.name == "valid"]
    invalid = [e for e in examples if e.parent.name == "invalid"]
    lines += ["## Examples", ""]
    if valid:
        lines += ["Valid documents (each validates under python-jsonschema, jsonschema-rs and ajv):",
                  ""] + [f"- {file_link(e.relative_to(SCHEMAS).as_posix())}" for e in valid] + [""]
        shown = next((e for e in valid
                      if len(e.read_text(encoding="utf-8").splitlines()) <= EXAMPLE_LINES), None)
        if shown is not None:
            lines += [f"`{shown.name}`:", "", "```json",
                      shown.read_text(encoding="utf-8").rstrip("\n"), "```", ""]
    if invalid:
        lines += ["Invalid documents, each named for the one rule it breaks:", ""]
        lines += [f"- {file_link(e.relative_to(SCHEMAS).as_posix())}" for e in invalid] + [""]
    vectors = SCHEMAS / "tests" / f"{kind}.json"
    if vectors.exists():
        count = sum(len(g["tests"]) for g in json.loads(vectors.read_text(encoding="utf-8")))
        lines += [f"Test vectors: {count} in {file_link(f'tests/{kind}.json')} "
                  "(JSON-Schema-Test-Suite format; see [Conformance](../conformance.md)).", ""]
    lines += ["## Version history", ""]
    family, major, name = path.split("/")
    siblings = [k for k in index["kinds"] if k["path"].split("/")[0] == family
                and k["path"].split("/")[2] == name and k["kind"] != kind]
    for k in sorted(siblings, key=lambda k: k["path"]):
        lines.append(f"- [`{k['kind']}`]({k['kind']}.md): `{k['path']}`"
                     + (f", `{k['version']}`" if k["version"] else ""))
    released = _released()

    def status(rel: str) -> str:
        digest = released.get(rel)
        return (f"released, immutable (SHA-256 `{digest}` in `schemas/SHA256SUMS`)" if digest
                else "draft, not released yet (not in `schemas/SHA256SUMS`)")

    for older in cs.superseded_paths(path):  # earlier minors of this major: same kind
        lines.append(f"- {file_link(older)} (`{cs.BASE_URI}{older}`), an earlier minor of this "
                     f"kind, unchanged and still resolved: {status(older)}")
    lines.append(f"- This file ({major}): {status(path)}")
    lines += _changelog_lines(kind)
    lines += ["", "The policy: [Versioning](index.md#versioning)."]
    return "\n".join(lines).rstrip() + "\n"


def kind_pages(*, repo_url: str = "") -> dict[str, str]:
    """Site pages: ``schemas/index.md`` (every kind, the versioning policy) and one per kind.

    Returns:
        page path below the docs folder -> Markdown text.
    """
    index = _load("index.json")
    readme = (SCHEMAS / "README.md").read_text(encoding="utf-8")
    policy = readme.split("## Versioning policy", 1)[-1].split("\n## ", 1)[0].strip()
    lines = ["# Schemas", "",
             "One page per kind of document aau reads or writes, generated from the schema files "
             "(`schemas/`) by `tools/gen_schema_docs.py`. The same files ship in the Python "
             "package `aau-schemas` and the npm package `@aau/schemas`; "
             "[Conformance](../conformance.md) says how to run their test vectors in any language.",
             "", "| kind | version | title |", "|---|---|---|"]
    for k in index["kinds"]:
        lines.append(f"| [`{k['kind']}`]({k['kind']}.md) | {k.get('version') or '-'} | "
                     f"{_cell(k['title'])} |")
    lines += ["", "## Versioning", "", policy, ""]
    pages = {"schemas/index.md": "\n".join(lines)}
    for k in index["kinds"]:
        pages[f"schemas/{k['kind']}.md"] = kind_page(k["kind"], repo_url=repo_url)
    return pages


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail when the page is stale")
    args = parser.parse_args()
    text = render()
    if args.check:
        current = OUT.read_text(encoding="utf-8") if OUT.exists() else ""
        if current != text:
            print(f"{OUT.relative_to(ROOT)} is stale: run python tools/gen_schema_docs.py",
                  file=sys.stderr)
            return 1
        return 0
    from aau_core import atomic_write_text

    atomic_write_text(OUT, text, force=True)
    print(f"wrote {OUT.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
