"""Drift tests: aau-core's document models against their schemas (``_files._converter``).

For every model: its document keys equal the schema's ``properties`` and the keys it always
writes equal the schema's ``required`` (``$ref`` resolved through aau_schemas' registry);
every valid example of its kind round-trips (check -> structure -> unstructure -> equal, and
byte-identical after the canonical writer); every document the code writes validates.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any
from urllib.parse import urldefrag, urljoin

import aau_schemas
import attrs
import pytest
from aau_core import EvalReport, EvalResult, HarnessEvaluator, ScenarioResult, run_eval
from aau_core._agents import _cost
from aau_core._agents._cost import PricingDocument, PricingEntry
from aau_core._errors import InvalidDocumentError
from aau_core._files._converter import (
    document_converter,
    document_keys,
    optional_field,
    optional_keys,
    structure_document,
    unstructure_document,
)
from aau_core._files._writing import render_json
from aau_core._run._aggregate_document import (
    AggregateCI,
    AggregateCoverage,
    AggregateDocument,
    AggregateDocumentV1,
    AnsweredOnlyDocument,
)
from aau_core._run._checkpoint import CheckpointBinding, CheckpointHeader, CheckpointUnit
from aau_core._store._compare import BootstrapSettings, MetricDelta, RunComparison
from aau_core._store._run_store import RunSummary, StoredScenario
from aau_core._store._run_views import RunShow
from aau_core._traces._harness_eval import HarnessResult

SCHEMAS = Path(__file__).resolve().parents[3] / "schemas"


def _resolve(kind: str, pointer: str) -> dict[str, Any]:
    """The schema node at ``pointer`` (``/$defs/x`` or ``/properties/y``) of ``kind``, with every
    ``$ref`` on the way followed through the registry."""
    base = aau_schemas.kind_info(kind).schema_id
    node: Any = aau_schemas.schema(kind)
    for part in [p for p in pointer.split("/") if p]:
        node = node[part]
    while "$ref" in node:
        url, fragment = urldefrag(urljoin(base, node["$ref"]))
        base, node = url, aau_schemas.schema_by_id(url)
        for part in [p for p in fragment.split("/") if p]:
            node = node[part]
    return node


MODELS = [
    (EvalReport, "eval-report", ""),
    (EvalResult, "eval-report", "/$defs/eval_result"),
    (HarnessResult, "trace-result", ""),
    (AggregateDocumentV1, "eval-aggregate-v1", ""),
    (ScenarioResult, "eval-aggregate-v1", "/$defs/result"),
    (AggregateDocument, "eval-aggregate-v2", ""),
    (AggregateCI, "eval-aggregate-v2", "/properties/ci"),
    (AggregateCoverage, "eval-aggregate-v2", "/properties/coverage"),
    (AnsweredOnlyDocument, "eval-aggregate-v2", "/properties/answered_only"),
    (CheckpointHeader, "checkpoint", "/$defs/header"),
    (CheckpointBinding, "checkpoint", "/$defs/binding"),
    (CheckpointUnit, "checkpoint", "/$defs/unit"),
    (RunSummary, "run-list", "/$defs/run"),
    (RunShow, "run-show", ""),
    (StoredScenario, "run-show", "/$defs/scenario"),
    (RunComparison, "run-compare", ""),
    (MetricDelta, "run-compare", "/$defs/delta"),
    (BootstrapSettings, "run-compare", "/properties/bootstrap"),
    (PricingDocument, "pricing", ""),
    (PricingEntry, "pricing", "/$defs/model_price"),
]


@pytest.mark.parametrize(("cls", "kind", "pointer"), MODELS,
                         ids=[m[0].__name__ for m in MODELS])
def test_fields_and_required_match_the_schema(cls: type, kind: str, pointer: str) -> None:
    node = _resolve(kind, pointer)
    keys = document_keys(cls)
    assert len(keys) == len(set(keys))
    assert set(keys) == set(node["properties"])
    assert set(keys) - optional_keys(cls) == set(node.get("required", []))


def _examples(folder: str, prefix: str = "") -> list[Path]:
    return sorted(p for p in SCHEMAS.glob(f"{folder}/examples/valid/*.json")
                  if p.name.startswith(prefix))


def _checkpoint_cls(doc: dict[str, Any]) -> type:
    return CheckpointHeader if doc["record"] == "header" else CheckpointUnit


EXAMPLES = (
    [(p, "eval-aggregate-v1", AggregateDocumentV1) for p in _examples("eval-aggregate/v1")]
    + [(p, "eval-aggregate-v2", AggregateDocument) for p in _examples("eval-aggregate/v2")]
    + [(p, "eval-aggregate-v2", AggregateDocument) for p in _examples("eval-aggregate/v2.1")]
    # each minor's examples: a 1.0 report and a v1 trace result are written back as they were
    + [(p, "eval-report", EvalReport) for p in _examples("eval-report/v1")]
    + [(p, "eval-report", EvalReport) for p in _examples("eval-report/v1.1")]
    + [(p, "trace-result", HarnessResult) for p in _examples("trace/v1", "trace-result")]
    + [(p, "trace-result", HarnessResult) for p in _examples("trace/v1.1", "trace-result")]
    + [(p, "checkpoint", None) for p in _examples("checkpoint/v1")]
    + [(p, "checkpoint", None) for p in _examples("checkpoint/v1.1")]
    + [(p, "run-list", list[RunSummary]) for p in _examples("run-store/v1", "run-list")]
    + [(p, "run-show", RunShow) for p in _examples("run-store/v1", "run-show")]
    + [(p, "run-compare", RunComparison) for p in _examples("run-store/v1", "run-compare")]
    + [(p, "pricing", PricingDocument) for p in _examples("pricing/v1")]
)


def test_every_family_has_examples() -> None:
    kinds = {kind for _, kind, _ in EXAMPLES}
    assert kinds == {"eval-aggregate-v1", "eval-aggregate-v2", "eval-report", "trace-result",
                     "checkpoint", "run-list", "run-show", "run-compare", "pricing"}


@pytest.mark.parametrize(("path", "kind", "cls"), EXAMPLES,
                         ids=[p.name for p, _, _ in EXAMPLES])
def test_valid_examples_round_trip(path: Path, kind: str, cls: Any) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    model = structure_document(kind, doc, cls or _checkpoint_cls(doc), source=str(path))
    again = unstructure_document(model)
    assert again == doc
    assert render_json(again) == render_json(doc)
    aau_schemas.validate(kind, again)


def test_structuring_checks_the_schema_first() -> None:
    path = _examples("eval-report/v1")[0]
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["total_cases"] = "3"  # cattrs alone would turn this into 3
    with pytest.raises(InvalidDocumentError, match=r"x\.json: \$\.total_cases: "):
        structure_document("eval-report", doc, EvalReport, source="x.json")


def test_integers_in_float_fields_are_not_coerced() -> None:
    row = {"scenario_id": "s", "repeat": 0, "metrics": {"m": 1}, "cost_usd": 0,
           "latency_s": 2, "n_api_calls": 0, "detail": {}}
    result = document_converter().structure(row, ScenarioResult)
    assert result.metrics["m"].__class__ is int and result.cost_usd.__class__ is int
    assert json.dumps(unstructure_document(result)) == json.dumps(row)


@attrs.frozen
class _Stamped:
    at: dt.datetime
    note: str | None = optional_field()


def test_datetimes_and_absent_optional_keys() -> None:
    when = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc)
    assert unstructure_document(_Stamped(when)) == {"at": "2026-01-02T03:04:05Z"}
    assert unstructure_document(_Stamped(when, "n")) == {"at": "2026-01-02T03:04:05Z",
                                                         "note": "n"}
    assert document_converter().structure({"at": "2026-01-02T03:04:05Z"}, _Stamped) == \
        _Stamped(when)


def test_what_the_code_writes_validates(tmp_path: Path) -> None:
    scenarios = ["a", "b", "c"]

    def run_one(sc: str, rep: int) -> ScenarioResult:
        return ScenarioResult(sc, rep, {"ok": float(sc != "b"), "score": 0.5 + rep / 10},
                              cost_usd=0.001, latency_s=0.25, n_api_calls=1,
                              detail={"answer": sc})

    ckpt = tmp_path / "run.jsonl"
    agg = run_eval(scenarios, run_one, repeats=2, checkpoint=ckpt)
    v2, v1 = agg.as_dict(), agg.as_dict_v1()
    aau_schemas.validate("eval-aggregate-v2", v2)
    aau_schemas.validate("eval-aggregate-v1", v1)
    assert list(v2)[:9] == list(v1) and list(v2)[9:] == [
        "aggregate_version", "ci", "metric_counts", "metric_stderr", "n_errors", "pass_hat_k",
        "metric_ci_method", "metric_runs", "lower_is_better", "coverage", "answered_only"]
    assert structure_document("eval-aggregate-v2", v2, AggregateDocument).ci.resamples == 2000
    lines = [json.loads(line) for line in ckpt.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == 7
    for line in lines:
        aau_schemas.validate("checkpoint", line)

    result = HarnessEvaluator({"tool_calls": [{"name": "t"}]}, required_artifacts=["x"],
                              min_tool_calls=1, name="n").run()
    aau_schemas.validate("trace-result", result.to_dict())
    judged = HarnessEvaluator({"judge_score": "n/a"}, name="j").run()
    aau_schemas.validate("trace-result", judged.to_dict())
    assert structure_document("trace-result", judged.to_dict(), HarnessResult) == judged
    report = EvalReport.from_results("pkg", [result.to_eval_result(include_record=True),
                                             judged.to_eval_result(include_record=True)])
    aau_schemas.validate("eval-report", report.to_dict())
    assert report.to_dict()["judge_errors"] == 1
    assert EvalReport.from_dict(report.to_dict()) == report

    comparison = RunComparison(1, 2, 1, (), (), True,
                               (MetricDelta("m", 1, 0.5, 0.75, 0.25, 0.25, 0.25),), (), ())
    aau_schemas.validate("run-compare", comparison.as_dict())


def test_the_pricing_table_in_force_is_its_model_written_back() -> None:
    _cost._reset_pricing()
    try:
        assert _cost.pricing_table() == _cost.shipped_pricing()
        _cost.register_pricing("my-model", 1, 2.5, cache_read_multiplier=0.5, note="mine")
        doc = _cost.pricing_table()
        aau_schemas.validate("pricing", doc)
        assert doc["models"]["my-model"] == {"input_per_mtok": 1.0, "output_per_mtok": 2.5,
                                             "cache_read_multiplier": 0.5, "note": "mine"}
        assert structure_document("pricing", doc, PricingDocument).models["my-model"] == \
            PricingEntry(input_per_mtok=1.0, output_per_mtok=2.5, cache_read_multiplier=0.5,
                         note="mine")
    finally:
        _cost._reset_pricing()
