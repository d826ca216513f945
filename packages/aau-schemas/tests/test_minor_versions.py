"""index.json rows may list ``versions`` (schemas/README.md "Versioning"): a minor version
``vN.M/`` accepts every version string of its major, and ``detect_kind`` / ``validate`` map a
document carrying any of them to the one kind. Checked against a temporary schema root."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import aau_schemas
import pytest
from aau_schemas import _registry, _validate

BASE = "https://aau.dev/schemas/"


def _schema(path: str, version: dict[str, object], extra: dict[str, object]) -> dict[str, object]:
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": BASE + path,
        "title": "widget",
        "description": "a test kind",
        "type": "object",
        "required": ["widget_version", "name"],
        "additionalProperties": False,
        "properties": {"widget_version": version, "name": {"type": "string"}, **extra},
    }


def _clear() -> None:
    for fn in (_registry._index, _registry._kinds, _registry._load_by_id, _validate._rs_registry,
               _validate._rs_validator, _validate.python_validator):
        fn.cache_clear()


@pytest.fixture
def widget_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    files = {
        "widget/v1/widget.schema.json": _schema(
            "widget/v1/widget.schema.json", {"const": "aau-widget/1.0"}, {}),
        "widget/v1.1/widget.schema.json": _schema(
            "widget/v1.1/widget.schema.json", {"enum": ["aau-widget/1.0", "aau-widget/1.1"]},
            {"colour": {"type": "string"}}),
        "gadget/v1/gadget.schema.json": {
            **_schema("gadget/v1/gadget.schema.json", {"const": "aau-gadget/1.0"}, {}),
            "required": ["gadget_version"],
            "properties": {"gadget_version": {"const": "aau-gadget/1.0"}},
        },
    }
    for rel, doc in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(json.dumps(doc), encoding="utf-8")
    index = {"base_uri": BASE, "kinds": [
        {"kind": "widget", "path": "widget/v1.1/widget.schema.json", "title": "widget",
         "version_field": "widget_version", "version": "aau-widget/1.1",
         "versions": ["aau-widget/1.0", "aau-widget/1.1"]},
        {"kind": "gadget", "path": "gadget/v1/gadget.schema.json", "title": "gadget",
         "version_field": "gadget_version", "version": "aau-gadget/1.0"},
    ]}
    (tmp_path / "index.json").write_text(json.dumps(index), encoding="utf-8")
    monkeypatch.setattr(_registry, "schema_root", lambda: tmp_path)
    _clear()
    yield tmp_path
    monkeypatch.undo()
    _clear()


def test_kind_info_lists_every_accepted_version(widget_root: Path) -> None:
    assert aau_schemas.kind_info("widget").versions == ("aau-widget/1.0", "aau-widget/1.1")
    assert aau_schemas.kind_info("widget").version == "aau-widget/1.1"
    assert aau_schemas.kind_info("gadget").versions == ("aau-gadget/1.0",)


def test_a_document_carrying_any_listed_version_is_that_kind(widget_root: Path) -> None:
    old = {"widget_version": "aau-widget/1.0", "name": "w"}
    new = {"widget_version": "aau-widget/1.1", "name": "w", "colour": "red"}
    assert aau_schemas.detect_kind(old) == "widget"
    assert aau_schemas.detect_kind(new) == "widget"
    assert aau_schemas.detect_kind({"widget_version": "aau-widget/1.2"}) is None
    assert aau_schemas.detect_kind({"widget_version": ["aau-widget/1.0"]}) is None
    aau_schemas.validate("widget", old)  # validated against the newest minor
    aau_schemas.validate("widget", new)
    assert aau_schemas.kind_mismatch(old, "widget") is None


def test_mismatch_names_the_documents_own_version_and_every_accepted_one(widget_root: Path) -> None:
    old = {"widget_version": "aau-widget/1.0", "name": "w"}
    path, message = aau_schemas.kind_mismatch(old, "gadget")
    assert path == "$.widget_version"
    assert message == ('this is a widget document ("widget_version": "aau-widget/1.0"), '
                       "not a gadget document")
    with pytest.raises(aau_schemas.SchemaError, match="this is a widget document"):
        aau_schemas.validate("gadget", old)
    path, message = aau_schemas.kind_mismatch({"widget_version": "aau-widget/9.0"}, "widget")
    assert message == ('"aau-widget/9.0" is not a supported version; widget documents carry '
                       '"aau-widget/1.0", "aau-widget/1.1"')


def test_the_real_registry_is_back_after_the_fixture() -> None:
    assert "receipt-v2" in [k.kind for k in aau_schemas.kinds()]
    for info in aau_schemas.kinds():
        assert (info.version in info.versions) if info.version else info.versions == ()
