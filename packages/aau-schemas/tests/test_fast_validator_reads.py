"""The fast validator (jsonschema-rs) reads only the schema files a kind refers to, when it
refers to them, and still never fetches a URI from outside the packaged schemas. Checked
against a temporary schema root holding a kind, the file it refers to, and an unrelated one."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import aau_schemas
import pytest
from aau_schemas import _registry, _validate

BASE = "https://aau.dev/schemas/"
DIALECT = "https://json-schema.org/draft/2020-12/schema"
FILES = {
    "name/v1/name.schema.json": {
        "$schema": DIALECT, "$id": BASE + "name/v1/name.schema.json",
        "$defs": {"name": {"type": "string", "minLength": 2}},
    },
    "thing/v1/thing.schema.json": {
        "$schema": DIALECT, "$id": BASE + "thing/v1/thing.schema.json", "type": "object",
        "required": ["thing_version", "name"],
        "properties": {"thing_version": {"const": "aau-thing/1.0"},
                       "name": {"$ref": "../../name/v1/name.schema.json#/$defs/name"}},
    },
    "unused/v1/unused.schema.json": {
        "$schema": DIALECT, "$id": BASE + "unused/v1/unused.schema.json", "type": "object",
    },
    "remote/v1/remote.schema.json": {
        "$schema": DIALECT, "$id": BASE + "remote/v1/remote.schema.json",
        "$ref": "https://example.com/schemas/x.json",
    },
}


def _clear() -> None:
    for fn in (_registry._index, _registry._kinds, _registry._load_by_id, _validate._rs_registry,
               _validate._rs_validator, _validate.python_validator):
        fn.cache_clear()


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    for rel, doc in FILES.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(json.dumps(doc), encoding="utf-8")
    kinds = [{"kind": kind, "path": f"{kind}/v1/{kind}.schema.json", "title": kind,
              "version_field": f"{kind}_version", "version": f"aau-{kind}/1.0"}
             for kind in ("thing", "remote")]
    (tmp_path / "index.json").write_text(json.dumps({"base_uri": BASE, "kinds": kinds}),
                                         encoding="utf-8")
    monkeypatch.setattr(_registry, "schema_root", lambda: tmp_path)
    _clear()
    yield tmp_path
    monkeypatch.undo()
    _clear()


def test_a_kind_reads_itself_and_what_it_refers_to_only(
        root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def every_file() -> None:
        raise AssertionError("the fast validator listed every schema file")

    monkeypatch.setattr(_registry, "iter_schema_files", every_file)
    assert aau_schemas.is_valid("thing", {"thing_version": "aau-thing/1.0", "name": "ab"})
    assert not aau_schemas.is_valid("thing", {"thing_version": "aau-thing/1.0", "name": "a"})
    assert _registry._load_by_id.cache_info().currsize == 2  # thing and name, nothing else


def test_a_foreign_ref_is_refused_not_fetched(root: Path) -> None:
    with pytest.raises(Exception) as info:  # noqa: B017 - the error type is jsonschema-rs's
        aau_schemas.is_valid("remote", {})
    assert "refusing to resolve 'https://example.com/schemas/x.json'" in str(info.value)
    assert "not an aau schema $id" in str(info.value)


def test_prepare_compiles_the_validator_that_validate_then_uses(
        root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    aau_schemas.prepare("thing")
    assert _validate._rs_validator.cache_info().currsize == 1
    assert _registry._load_by_id.cache_info().currsize == 2  # read now, not at validate time

    def compile_again(*args: object, **kwargs: object) -> None:
        raise AssertionError("validate compiled the schema again")

    import jsonschema_rs

    monkeypatch.setattr(jsonschema_rs, "validator_for", compile_again)
    aau_schemas.validate("thing", {"thing_version": "aau-thing/1.0", "name": "ab"})
    with pytest.raises(aau_schemas.UnknownKindError):
        aau_schemas.prepare("no-such-kind")
