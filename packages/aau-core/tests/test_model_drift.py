"""The one model-vs-schema drift walker (``aau_core._files._model_drift``), on tiny models against
real schema kinds: each kind of difference is reported with the class and the schema path, and a
model that agrees reports nothing."""

from __future__ import annotations

from typing import Any, ClassVar

import attrs
import pytest
from aau_core import EvalReport, EvalResult
from aau_core._files._converter import JSON_KEY, OMIT, open_extra, optional_field
from aau_core._files._model_drift import model_schema_drift
from aau_core._run._checkpoint import CheckpointUnit


@attrs.frozen
class Renamed:  # a study case with a misspelt field
    scenario: str
    input: dict


@attrs.frozen
class LooseProtections:  # the right keys, one fixed value loosened
    institutional_determination_required: bool = True
    review_status: str = "determined"
    direct_identifiers_prohibited: bool = True
    production_data_prohibited: bool = True
    voluntary_participation_required: bool = True
    withdrawal_path_required: bool = True


@attrs.frozen(kw_only=True)
class WrongStudy:
    study_id: str
    cases: list[Renamed]
    extra: int = optional_field()
    human_protections: LooseProtections = attrs.Factory(LooseProtections)


def test_drift_is_reported_for_a_wrong_model():
    problems = model_schema_drift(WrongStudy, "human-baseline-study")
    assert any(p.startswith("WrongStudy at #: fields") and "'extra'" in p for p in problems)
    assert any(p.startswith("Renamed at #/properties/cases/items: fields") for p in problems)
    assert any(p.startswith("LooseProtections at #/properties/human_protections: defaults")
               for p in problems)
    assert model_schema_drift(Renamed, "human-baseline-answer-key")[0].startswith(
        "Renamed at #: fields ['input', 'scenario'] != properties")


@attrs.frozen(kw_only=True)
class AnswerKey:  # agrees with the schema: renamed and left-out fields are no document keys
    study_id: str
    study_sha: str = attrs.field(metadata={JSON_KEY: "study_sha256"})
    answers: dict[str, str]
    answer_key_version: str = "aau-human-baseline-answer-key/1.0"
    note: str | None = attrs.field(default=None, metadata={OMIT: True})


@attrs.frozen(kw_only=True)
class OpenAnswerKey:
    study_id: str
    study_sha256: str
    answers: dict[str, str]
    answer_key_version: str
    extra: dict[str, Any] = open_extra()


@attrs.frozen(kw_only=True)
class LooseAnswerKey:  # a required key declared optional
    study_id: str
    study_sha256: str
    answers: dict[str, str] | None = optional_field()
    answer_key_version: str


def test_a_model_that_agrees_reports_nothing():
    assert model_schema_drift(AnswerKey, "human-baseline-answer-key") == []
    assert model_schema_drift(EvalReport, "eval-report") == []  # declared and derived keys
    assert model_schema_drift(EvalResult, "eval-report", "/$defs/eval_result") == []
    assert model_schema_drift(CheckpointUnit, "checkpoint", "/$defs/unit") == []


def test_required_sets_and_open_objects_are_compared():
    assert model_schema_drift(LooseAnswerKey, "human-baseline-answer-key") == [
        "LooseAnswerKey at #: required ['answer_key_version', 'study_id', 'study_sha256'] != "
        "schema required ['answer_key_version', 'answers', 'study_id', 'study_sha256']"]
    assert model_schema_drift(OpenAnswerKey, "human-baseline-answer-key") == [
        "OpenAnswerKey at #: the model keeps unknown keys, the schema refuses them"]
    problems = model_schema_drift(Renamed, "suite")  # a suite admits unknown keys
    assert "Renamed at #: the schema admits unknown keys, the model drops them" in problems


@attrs.frozen
class Row:  # a manifest row without its sha256
    path: str
    bytes: int


@attrs.frozen
class Claims:  # the manifest's const claims, without the defaults that write them
    byte_integrity_only: bool
    institutional_determination_proved: bool
    human_subjects_approval_proved: bool
    production_validation_proved: bool
    workforce_decision_supported: bool


@attrs.frozen(kw_only=True)
class Manifest:
    study_id: str
    files: tuple[Row, ...]
    manifest_version: str
    hash_algorithm: str
    claims: Claims


def test_the_walk_goes_into_tuples_and_const_blocks():
    assert model_schema_drift(Manifest, "human-baseline-manifest") == [
        "Row at #/properties/files/items: fields ['bytes', 'path'] != properties "
        "['bytes', 'path', 'sha256']",
        "Row at #/properties/files/items: required ['bytes', 'path'] != schema required "
        "['bytes', 'path', 'sha256']",
        "Claims at #/properties/claims: a const block needs a default for every field"]


@attrs.frozen
class Twice:
    study_id: str
    __aau_document_keys__: ClassVar[tuple[str, ...]] = ("study_id", "study_id")


def test_a_pointer_names_the_object_and_keys_are_counted():
    problems = model_schema_drift(Renamed, "eval-report", "/$defs/eval_result")
    assert problems and all(p.startswith("Renamed at #/$defs/eval_result: ") for p in problems)
    assert "Twice at #: keys ['study_id'] declared twice" in model_schema_drift(
        Twice, "human-baseline-answer-key")
    with pytest.raises(KeyError):
        model_schema_drift(Renamed, "eval-report", "/$defs/no_such_object")
