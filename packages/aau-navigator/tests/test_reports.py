"""The JSON that `aau gallery` and `aau challenge` print is valid against its kind, and the
schema examples are exactly what the code prints for the `_nav_root` root (a drift check)."""

from __future__ import annotations

import json
from pathlib import Path

import aau_schemas
import jsonschema
from _nav_root import NAV
from aau_core import run
from aau_navigator._challenge import build_challenge
from aau_navigator._gallery import build_gallery
from referencing import Registry, Resource

BASE = "https://aau.dev/schemas/navigator/v1/"


def _check(ref: str, doc) -> None:
    """Validate ``doc`` against ``{"$ref": ref}`` with every packaged schema registered."""
    registry = Registry().with_resources(
        (uri, Resource.from_contents(schema)) for uri, schema in
        aau_schemas.all_schema_resources())
    validator = jsonschema.Draft202012Validator({"$ref": ref}, registry=registry)
    errors = [f"{e.json_path}: {e.message}" for e in validator.iter_errors(doc)]
    assert not errors, errors[:3]


def _json(capsys, *argv: str):
    code = run(list(argv))
    out = capsys.readouterr().out
    return code, json.loads(out)


def test_gallery_output_is_valid(nav_root: Path, capsys) -> None:
    code, listing = _json(capsys, "gallery", "list", "--root", str(nav_root), "--json")
    aau_schemas.validate("gallery-report", listing)
    code, item = _json(capsys, "gallery", "validate", "county-benefit-appeal-eval", "--root",
                       str(nav_root), "--json")
    _check(BASE + "gallery-report.schema.json#/$defs/item", item)
    code, items = _json(capsys, "gallery", "validate", "--root", str(nav_root), "--json")
    assert code == 1 and len(items) == 4
    for one in items:
        _check(BASE + "gallery-report.schema.json#/$defs/item", one)
        passed = [c["passed"] for c in one["trust"]["checks"]]
        assert one["trust"]["score"]["passed"] == sum(passed)
        assert one["evidence"]["model_count"] == len(one["evidence"]["models"])


def test_challenge_output_is_valid(nav_root: Path, capsys) -> None:
    code, report = _json(capsys, "challenge", "list", "--root", str(nav_root), "--json")
    aau_schemas.validate("challenge-report", report)
    code, rows = _json(capsys, "challenge", "validate", "--root", str(nav_root), "--json")
    assert code == 0 and len(rows) == 2
    for row in rows:
        _check(BASE + "challenge-report.schema.json#/$defs/row", row)


def test_examples_are_what_the_code_prints(nav_root: Path) -> None:
    for name, doc in (("gallery-report-fixture-root.json", build_gallery(nav_root)),
                      ("challenge-report-fixture-root.json", build_challenge(nav_root))):
        assert json.loads((NAV / name).read_text("utf-8")) == doc, name
