"""The human-baseline models against their schemas: same fields and required sets, every valid
example round-trips byte for byte, and every document the code writes validates."""

from __future__ import annotations

import json
from pathlib import Path

import aau_schemas
import attrs
import pytest
from aau_baseline import (
    Study,
    build_report,
    build_study,
    pack_files,
    read_pack,
)
from aau_baseline._converter import converter
from aau_baseline._models import MODELS, HumanProtections, StudyCase
from aau_core import render_json
from aau_core._files._converter import ABSENT, JSON_KEY, OMIT, optional_field
from aau_core._files._model_drift import model_schema_drift

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
EXAMPLES = REPO / "schemas" / "human-baseline" / "v1" / "examples" / "valid"
SUITE = REPO / "schemas/suite/v1/examples/valid/suite-human-baseline-reference.json"
FIXTURE = HERE / "fixtures" / "reference-pack"


def _kind(path: Path) -> str:
    if path.name.startswith("session-template"):
        return "human-baseline-session-template"  # same version string as a session
    kind = aau_schemas.detect_kind(json.loads(path.read_text(encoding="utf-8")))
    assert kind in MODELS, path
    return kind


@pytest.mark.parametrize("kind", sorted(MODELS))
def test_model_fields_and_required_sets_equal_the_schema(kind):
    assert model_schema_drift(MODELS[kind], kind, converter=converter) == []


@attrs.frozen
class Doc:
    rate: float
    interval: tuple[float, float]
    given: str | None = optional_field()
    legacy: str | None = optional_field(nullable=True)
    from_: str = attrs.field(default="a", metadata={JSON_KEY: "from"})
    note: str | None = attrs.field(default=None, metadata={OMIT: True})


EXAMPLE_FILES = sorted(EXAMPLES.glob("*.json"))


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=[p.name for p in EXAMPLE_FILES])
def test_every_valid_example_round_trips(path):
    doc = json.loads(path.read_text(encoding="utf-8"))
    kind = _kind(path)
    aau_schemas.validate(kind, doc)
    model = converter.structure(doc, MODELS[kind])
    assert isinstance(model, MODELS[kind])
    back = converter.unstructure(model)
    assert back == doc
    assert aau_schemas.legacy_render_json(back) == aau_schemas.legacy_render_json(doc)
    assert render_json(back, ensure_ascii=True) == render_json(doc, ensure_ascii=True)
    assert converter.structure(back, MODELS[kind]) == model


def test_the_reference_pack_files_are_their_models_rendered():
    """1.6's exact bytes come back from the models (the pack fixture is aau-harness 1.6's)."""
    for name, kind in (("study.json", "human-baseline-study"),
                       ("answer-key.json", "human-baseline-answer-key"),
                       ("session-template.json", "human-baseline-session-template")):
        data = (FIXTURE / name).read_bytes()
        model = converter.structure(json.loads(data), MODELS[kind])
        assert aau_schemas.legacy_render_json(converter.unstructure(model)).encode("ascii") == data


def test_every_document_the_code_writes_validates():
    from aau_adapters import load_suite

    study, key = build_study(load_suite(SUITE), study_id="s-1", title="T", purpose="P")
    files = pack_files(study, key)
    for name, kind in (("study.json", "human-baseline-study"),
                       ("answer-key.json", "human-baseline-answer-key"),
                       ("session-template.json", "human-baseline-session-template"),
                       ("manifest.json", "human-baseline-manifest")):
        aau_schemas.validate(kind, json.loads(files[name]))
    pack = read_pack(FIXTURE)
    sessions = [converter.structure(json.loads(p.read_text(encoding="utf-8")), MODELS[
        "human-baseline-session"]) for p in sorted(EXAMPLES.glob("session-synthetic-*.json"))]
    report, _ = build_report(pack.study, pack.answer_key, sessions)
    aau_schemas.validate("human-baseline-report", converter.unstructure(report))
    reference = json.loads((EXAMPLES / "report-reference.json").read_text(encoding="utf-8"))
    assert converter.unstructure(report)["metrics"] == reference["metrics"]


def test_fixed_blocks_are_defaults():
    study = Study(study_id="a", suite_id="s", suite_sha256="0" * 64, title="t", purpose="p",
                  classification="synthetic", outcomes=["x", "y"],
                  cases=[StudyCase(scenario_id="c", input={"q": 1})])
    doc = converter.unstructure(study)
    assert doc["human_protections"] == converter.unstructure(HumanProtections())
    aau_schemas.validate("human-baseline-study", doc)


def test_converter_passes_numbers_through_and_honours_field_rules():
    conv = converter
    model = conv.structure({"rate": 1, "interval": [0, 1], "from": "b"}, Doc)
    assert model == Doc(rate=1, interval=(0, 1), given=None, from_="b")
    assert type(model.rate) is int  # a schema number holding 1 stays 1, never 1.0
    assert conv.unstructure(model) == {"rate": 1, "interval": [0, 1], "from": "b"}
    assert model.legacy is ABSENT  # missing, not null
    nulls = conv.structure({"rate": 1, "interval": [0, 1], "legacy": None}, Doc)
    assert nulls.legacy is None
    assert conv.unstructure(nulls) == {"rate": 1, "interval": [0, 1], "from": "a", "legacy": None}
    assert conv.unstructure(Doc(rate=0.5, interval=(0.1, 0.9), given="g", legacy="l",
                                note="n")) == {
        "rate": 0.5, "interval": [0.1, 0.9], "given": "g", "legacy": "l", "from": "a"}
