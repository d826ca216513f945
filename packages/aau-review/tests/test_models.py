"""The review models against their schemas: same fields and required sets, every valid example
round-trips, and the examples are exactly what the code writes for the committed real run."""

from __future__ import annotations

import json
from pathlib import Path

import aau_schemas
import pytest
from aau_core import render_json, run
from aau_core._files._model_drift import model_schema_drift
from aau_review._converter import converter
from aau_review._models import MODELS

EXAMPLES = Path(__file__).resolve().parents[3] / "schemas" / "review" / "v1" / "examples" / "valid"
EXAMPLE_FILES = sorted(EXAMPLES.glob("*.json"))


@pytest.mark.parametrize("kind", sorted(MODELS))
def test_model_fields_and_required_sets_equal_the_schema(kind):
    assert model_schema_drift(MODELS[kind], kind, converter=converter) == []


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=[p.name for p in EXAMPLE_FILES])
def test_every_valid_example_round_trips(path):
    doc = json.loads(path.read_text(encoding="utf-8"))
    kind = aau_schemas.detect_kind(doc)
    assert kind in MODELS, path
    aau_schemas.validate(kind, doc)
    model = converter.structure(doc, MODELS[kind])
    back = converter.unstructure(model)
    assert back == doc
    assert render_json(back) == path.read_text(encoding="utf-8")
    assert converter.structure(back, MODELS[kind]) == model


def test_the_pack_examples_are_what_prepare_writes(example_pack: Path, tmp_path: Path, prepare):
    for name, example in (("manifest.json", "manifest-live-simple.json"),
                          ("tasks.json", "tasks-live-simple.json"),
                          ("scores.json", "scores-live-simple.json")):
        assert (example_pack / name).read_bytes() == (EXAMPLES / example).read_bytes(), name
    unblinded = tmp_path / "unblinded"
    assert prepare(unblinded, "--raters", "alice,bob", "--seed", "7", "--show-scores",
                   "--sample", "2") == 0
    for name, example in (("manifest.json", "manifest-live-simple-unblinded.json"),
                          ("tasks.json", "tasks-live-simple-unblinded.json")):
        assert (unblinded / name).read_bytes() == (EXAMPLES / example).read_bytes(), name


def test_the_report_example_is_what_summarize_writes(example_pack: Path, tmp_path: Path):
    out = tmp_path / "report.json"
    labels = [str(EXAMPLES / f"labels-{r}.json") for r in ("alice", "bob", "judge")]
    args = ["review", "summarize", str(example_pack), "--out", str(out)]
    for path in labels:
        args += ["--labels", path]
    assert run(args) == 0
    doc = json.loads(out.read_text(encoding="utf-8"))
    aau_schemas.validate("review-report", doc)
    assert out.read_bytes() == (EXAMPLES / "report-live-simple.json").read_bytes()
