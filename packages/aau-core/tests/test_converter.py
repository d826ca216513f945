"""The document converter mechanism itself (``aau_core._files._converter``), one test per strategy
of its module docstring, each with a tiny model and a real schema kind: optional keys omitted,
``ABSENT`` versus ``null``, open objects keeping unknown keys, renamed keys, declared key order
with derived keys, no coercion, refusal before structuring, closed objects, shared free-form
objects.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

import attrs
import pytest
from aau_core._errors import InvalidDocumentError
from aau_core._files._converter import (
    ABSENT,
    JSON_KEY,
    OMIT,
    document_converter,
    document_keys,
    extra_field,
    is_optional,
    json_fields,
    make_document_converter,
    open_extra,
    optional_field,
    optional_keys,
    structure_document,
    unstructure_document,
)
from aau_core._files._writing import render_json
from cattrs.errors import ClassValidationError, ForbiddenExtraKeysError

SCHEMAS = Path(__file__).resolve().parents[3] / "schemas"


def _example(relative: str) -> dict[str, Any]:
    return json.loads((SCHEMAS / relative).read_text(encoding="utf-8"))  # type: ignore[no-any-return]


# A suite 1.0 (schema ``suite``): open at every level, ``description`` may be any JSON value.
@attrs.frozen(kw_only=True)
class _Case:
    scenario_id: str
    input: dict[str, Any]
    expected: dict[str, Any]
    forbidden_actions: tuple[str, ...] | None = optional_field()
    extra: dict[str, Any] = open_extra()


@attrs.frozen(kw_only=True)
class _Suite:
    suite_version: str
    suite_id: str
    sharing: dict[str, Any]
    cases: tuple[_Case, ...]
    description: Any = optional_field(nullable=True)
    human_authority: Any = optional_field(nullable=True)
    extra: dict[str, Any] = open_extra()


# A doctor report (schema ``doctor-report``): closed, a key named ``pass``, ``ready`` derived.
SEEN: list[str] = []


@attrs.frozen(kw_only=True)
class _Counts:
    pass_: int = attrs.field(metadata={JSON_KEY: "pass"})
    warn: int
    fail: int


@attrs.frozen(kw_only=True)
class _Check:
    id: str = attrs.field(validator=lambda _obj, _attr, value: SEEN.append(value))
    status: str
    message: str


@attrs.frozen(kw_only=True)
class _DoctorReport:
    __aau_document_keys__: ClassVar[tuple[str, ...]] = (
        "doctor_version", "path", "ready", "counts", "checks", "boundary")

    doctor_version: str
    path: str
    counts: _Counts
    checks: tuple[_Check, ...]
    boundary: str
    on_read: Any = attrs.field(default=None, eq=False, metadata={OMIT: True})

    @property
    def ready(self) -> bool:
        """No check failed (the schema's rule)."""
        return self.counts.fail == 0


DOCTOR = "navigator/v1/examples/valid/doctor-report-ready-with-drift.json"
SUITE = "suite/v1/examples/valid/suite-byo-agent-smoke.json"


def test_optional_keys_are_omitted_while_none() -> None:
    doc = _example(SUITE)
    assert "forbidden_actions" in doc["cases"][0]
    del doc["cases"][0]["forbidden_actions"]
    suite = structure_document("suite", doc, _Suite)
    assert suite.cases[0].forbidden_actions is None
    assert suite.cases[1].forbidden_actions == tuple(doc["cases"][1]["forbidden_actions"])
    again = unstructure_document(suite)
    assert "forbidden_actions" not in again["cases"][0] and again == doc
    assert optional_keys(_Case) == {"forbidden_actions"}
    assert {f.name for f in json_fields(_Case) if not is_optional(f)} == {
        "scenario_id", "input", "expected"}


def test_absent_and_null_are_two_values() -> None:
    doc = _example(SUITE)
    assert isinstance(doc["description"], str)
    assert structure_document("suite", doc, _Suite).description == doc["description"]
    doc["description"] = None
    suite = structure_document("suite", doc, _Suite)
    assert suite.description is None
    assert unstructure_document(suite)["description"] is None
    del doc["description"]
    suite = structure_document("suite", doc, _Suite)
    assert suite.description is ABSENT and repr(ABSENT) == "ABSENT"
    assert "description" not in unstructure_document(suite)
    assert unstructure_document(attrs.evolve(suite, description=None))["description"] is None


def test_open_objects_keep_unknown_keys_after_the_named_ones() -> None:
    doc = _example(SUITE)
    doc["x-owner"] = {"team": "a"}
    doc["cases"][0]["note"] = [1, 2]
    suite = structure_document("suite", doc, _Suite)
    assert suite.extra == {"x-owner": {"team": "a"}} and suite.cases[1].extra == {}
    assert suite.cases[0].extra == {"note": [1, 2]}
    again = unstructure_document(suite)
    assert again == doc and list(again)[-1] == "x-owner" and list(again["cases"][0])[-1] == "note"
    assert extra_field(_Suite).name == "extra" and extra_field(_Counts) is None
    assert "extra" not in document_keys(_Suite)


def test_renamed_keys_and_declared_key_order() -> None:
    doc = _example(DOCTOR)
    report = structure_document("doctor-report", doc, _DoctorReport, source="d.json")
    assert report.counts.pass_ == doc["counts"]["pass"] and report.ready is doc["ready"]
    again = unstructure_document(report)
    assert again == doc and render_json(again) == render_json(doc)
    assert list(again) == list(_DoctorReport.__aau_document_keys__)
    assert list(again["counts"]) == ["pass", "warn", "fail"]
    assert document_keys(_Counts) == ("pass", "warn", "fail")
    assert "on_read" not in again  # OMIT: no part of the document


def test_derived_keys_are_not_read() -> None:
    doc = _example(DOCTOR)
    doc["ready"] = not doc["ready"]  # the schema allows either; the model derives it
    report = document_converter().structure(doc, _DoctorReport)
    assert unstructure_document(report)["ready"] is not doc["ready"]


def test_no_coercion_after_the_schema_check() -> None:
    doc = _example(DOCTOR)
    doc["counts"]["warn"] = 1.0  # a JSON integer the schema accepts; cattrs would make it 1
    report = structure_document("doctor-report", doc, _DoctorReport)
    assert report.counts.warn.__class__ is float
    assert json.dumps(unstructure_document(report)["counts"]["warn"]) == "1.0"
    doc["counts"]["pass"] = "3"  # cattrs alone would turn this into 3
    with pytest.raises(InvalidDocumentError, match=r"^d\.json: \$\.counts\.pass: "):
        structure_document("doctor-report", doc, _DoctorReport, source="d.json")


def test_a_document_is_refused_before_anything_is_structured() -> None:
    doc = _example(DOCTOR)
    status = doc["checks"][-1]["status"]
    doc["checks"][-1]["status"] = "maybe"
    SEEN.clear()
    with pytest.raises(InvalidDocumentError, match=r"^d\.json: \$\.checks\[\d+\]\.status: "):
        structure_document("doctor-report", doc, _DoctorReport, source="d.json")
    assert SEEN == []
    doc["checks"][-1]["status"] = status
    structure_document("doctor-report", doc, _DoctorReport, source="d.json")
    assert SEEN == [c["id"] for c in doc["checks"]]


def test_closed_models_refuse_unknown_keys_only_when_asked() -> None:
    counts = {"pass": 1, "warn": 0, "fail": 0, "skip": 2}
    assert document_converter().structure(counts, _Counts) == _Counts(pass_=1, warn=0, fail=0)
    closed = make_document_converter(forbid_extra_keys=True)
    with pytest.raises(ClassValidationError) as err:
        closed.structure(counts, _Counts)
    (refusal,) = err.value.exceptions
    assert isinstance(refusal, ForbiddenExtraKeysError) and refusal.extra_fields == {"skip"}
    doc = _example(DOCTOR)  # its derived ``ready`` key stays allowed
    assert closed.structure(doc, _DoctorReport) == document_converter().structure(
        doc, _DoctorReport)
    suite = _example(SUITE)
    suite["x-owner"] = 1  # open models still keep theirs
    assert closed.structure(suite, _Suite).extra == {"x-owner": 1}


def test_free_form_objects_are_shared_only_when_asked() -> None:
    suite = structure_document("suite", _example(SUITE), _Suite)
    shared = make_document_converter(share_free_form=True).unstructure(suite)
    copied = unstructure_document(suite)
    assert shared == copied
    assert shared["cases"][0]["input"] is suite.cases[0].input
    assert copied["cases"][0]["input"] is not suite.cases[0].input
    assert copied["cases"][0]["input"] == suite.cases[0].input
    assert copied["cases"].__class__ is list and copied["cases"][0]["forbidden_actions"].__class__ is list
