"""Generate docs/schema-reference.md from the schema files (the schemas are the source of truth).

    python tools/gen_schema_docs.py          # rewrite docs/schema-reference.md
    python tools/gen_schema_docs.py --check  # exit 1 when the committed page is stale
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
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
