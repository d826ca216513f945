"""Drift tests for the document models (``_suite_models``, ``_protocol_models``,
``_receipt_models``) against their JSON Schemas, and round trips through the one converter.

- Field names equal the schema object's ``properties`` and the required fields (those without a
  ``None``/``ABSENT`` default) equal its ``required``, walking ``$ref`` through aau-schemas'
  registry; a model is open (has an ``open_extra`` field) exactly when its schema object admits
  unknown keys.
- Every valid example of those kinds round-trips: validate -> structure -> unstructure -> equal,
  and byte-identical under both writers (sorted ``indent=2`` JSON and RFC 8785).
- Invalid examples are refused before anything is structured.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urldefrag, urljoin

import aau_adapters
import aau_schemas
import attrs
import pytest
from aau_adapters import (
    _protocol_models,
    _receipt_models,
    _suite_models,
    structure_document,
    unstructure_document,
)
from aau_adapters._converter import extra_field, is_optional, json_fields
from aau_adapters._documents import MODELS
from aau_core import InvalidDocumentError, render_json

M = aau_adapters
SCHEMA_ROOT = Path(aau_schemas.schema_root())

# model -> (aau-schemas kind, JSON pointer of its object in that kind's schema)
SCHEMA_OF: dict[type, tuple[str, str]] = {
    M.SuiteDocumentV1: ("suite", ""),
    M.Sharing: ("suite", "/$defs/sharing"),
    M.CaseDocumentV1: ("suite", "/$defs/case"),
    M.ExpectedV1: ("suite", "/$defs/case/properties/expected"),
    M.SuiteDocumentV2: ("suite-v2", ""),
    M.CaseDocumentV2: ("suite-v2", "/$defs/case"),
    M.ExpectedV2: ("suite-v2", "/$defs/expected"),
    M.ExpectedCall: ("suite-v2", "/$defs/expected_call"),
    M.ToolCallMatchRules: ("suite-v2", "/$defs/tool_call_match"),
    M.SuiteDocumentV3: ("suite-v3", ""),
    M.SharingV3: ("suite-v3", "/$defs/sharing"),
    M.CaseDocumentV3: ("suite-v3", "/$defs/case"),
    M.ExpectedV3: ("suite-v3", "/$defs/expected"),
    M.CaseEnvironmentV3: ("suite-v3", "/$defs/environment"),
    M.CaseUserV3: ("suite-v3", "/$defs/user"),
    M.CaseAttackV3: ("suite-v3", "/$defs/attack"),
    M.AttackGoalV3: ("suite-v3", "/$defs/attack/properties/goal"),
    M.AdapterRequest: ("adapter-request", ""),
    M.McpAccess: ("adapter-request", "/$defs/mcp"),
    M.ConversationTurn: ("adapter-request", "/$defs/conversation"),
    M.AdapterResponse: ("adapter-response", ""),
    M.ResponseToolCall: ("adapter-response", "/properties/tool_calls/items"),
    M.PublicReceiptV1: ("receipt-v1", ""),
    M.ResultRowV1: ("receipt-v1", "/$defs/result"),
    M.MetricsV1: ("receipt-v1", "/properties/metrics"),
    M.Privacy: ("receipt-v1", "/properties/privacy"),
    M.ReleaseGate: ("receipt-v1", "/$defs/release_gate"),
    M.PublicReceiptV2: ("receipt-v2", ""),
    M.ResultRowV2: ("receipt-v2", "/$defs/result"),
    M.MetricsV2: ("receipt-v2", "/$defs/metrics"),
    M.Interval: ("receipt-v2", "/$defs/interval"),
    M.MetricIntervals: ("receipt-v2", "/$defs/metric_ci95"),
    M.FailUnderCheck: ("receipt-v2", "/$defs/fail_under_check"),
    M.AdapterProvenance: ("receipt-v2", "/$defs/adapter_provenance"),
    M.Provenance: ("receipt-v2", "/$defs/provenance"),
    M.Coverage: ("receipt-v2", "/$defs/coverage"),
    M.ObservedCounts: ("receipt-v2", "/$defs/observed"),
    M.ReportFidelityCounts: ("receipt-v2", "/$defs/report_fidelity"),
    M.EnvironmentProvenance: ("receipt-v2", "/$defs/provenance/properties/environments/items"),
    M.PrivateReceiptV1: ("private-receipt-v1", ""),
    M.PrivateRowV1: ("private-receipt-v1", "/$defs/result"),
    M.PrivateReceiptV2: ("private-receipt-v2", ""),
    M.PrivateRowV2: ("private-receipt-v2", "/$defs/result"),
}


def _pointer(doc: Any, pointer: str) -> Any:
    for part in [p for p in pointer.split("/") if p]:
        doc = doc[part.replace("~1", "/").replace("~0", "~")]
    return doc


def _object(kind: str, pointer: str) -> tuple[set[str], set[str], bool]:
    """``(properties, required, open)`` of a schema object, following its ``$ref`` chain."""
    base = aau_schemas.kind_info(kind).schema_id
    node = _pointer(aau_schemas.schema_by_id(base), pointer)
    props: set[str] = set()
    required: set[str] = set()
    closed = False
    while True:
        props |= set(node.get("properties", {}))
        required |= set(node.get("required", []))
        closed = closed or node.get("additionalProperties") is False
        if "$ref" not in node:
            return props, required, not closed
        target, fragment = urldefrag(urljoin(base, node["$ref"]))
        base = target
        node = _pointer(aau_schemas.schema_by_id(target), fragment)


def test_every_model_is_mapped_to_a_schema_object():
    found = {obj for module in (_suite_models, _protocol_models, _receipt_models)
             for obj in vars(module).values()
             if isinstance(obj, type) and attrs.has(obj) and obj.__module__ == module.__name__}
    assert found == set(SCHEMA_OF)
    assert set(MODELS.values()) <= found
    assert {k: SCHEMA_OF[m] for k, m in MODELS.items()} == {k: (k, "") for k in MODELS}


@pytest.mark.parametrize("model", list(SCHEMA_OF), ids=lambda m: m.__name__)
def test_model_fields_match_the_schema(model):
    props, required, is_open = _object(*SCHEMA_OF[model])
    fields = json_fields(model)
    assert {f.name for f in fields} == props
    assert {f.name for f in fields if not is_optional(f)} == required
    assert (extra_field(model) is not None) == is_open


def _folders(kind: str) -> list[Path]:
    """The kind's schema folder and, for a minor ``vN.M/``, the earlier folders of its major
    (``vN/``, ``vN.K/``), whose documents the one model holds too."""
    folder = (SCHEMA_ROOT / aau_schemas.kind_info(kind).path).parent
    major, _, minor = folder.name.partition(".")
    older = [folder.parent / major] + [folder.parent / f"{major}.{k}" for k in
                                       range(1, int(minor or 0))]
    return [f for f in older if minor and f.is_dir()] + [folder]


def _examples(valid: bool) -> list[tuple[str, Path]]:
    out = []
    for kind in MODELS:
        paths = [p for folder in _folders(kind)
                 for p in sorted((folder / "examples" / ("valid" if valid else "invalid"))
                                 .glob("*.json"))]
        for path in paths:
            doc = json.loads(path.read_text(encoding="utf-8"))
            if aau_schemas.detect_kind(doc) == kind or (
                    aau_schemas.detect_kind(doc) is None and kind.startswith("adapter-")
                    and path.name.startswith(kind.removeprefix("adapter-"))):
                out.append((kind, path))
    return out


VALID = _examples(valid=True)
INVALID = _examples(valid=False)


def test_every_kind_has_valid_examples():
    assert {kind for kind, _ in VALID} == set(MODELS)
    assert len(VALID) >= 25


@pytest.mark.parametrize(("kind", "path"), VALID, ids=lambda v: getattr(v, "name", v))
def test_valid_example_round_trips(kind, path):
    raw = path.read_text(encoding="utf-8")
    doc = json.loads(raw)
    model = structure_document(kind, doc, source=str(path))
    assert isinstance(model, MODELS[kind])
    back = unstructure_document(model)
    assert back == doc
    assert render_json(back) == render_json(doc)
    assert aau_schemas.canonical_json(back) == aau_schemas.canonical_json(doc)
    aau_schemas.validate(kind, back)


@pytest.mark.parametrize(("kind", "path"), INVALID, ids=lambda v: getattr(v, "name", v))
def test_invalid_example_is_refused_before_structuring(kind, path):
    doc = json.loads(path.read_text(encoding="utf-8"))
    with pytest.raises(InvalidDocumentError) as err:
        structure_document(kind, doc, source=path.name)
    assert str(err.value).startswith(path.name)


def test_optional_keys_are_omitted_and_nullable_ones_kept():
    row = M.PrivateRowV2(scenario_id="s", input={}, expected={"outcome": "o"},
                         forbidden_actions=(), response={}, error="adapter-timeout", repeat=0,
                         stderr_tail=None, error_detail=None)
    doc = unstructure_document(row)
    assert "tool_call_mismatches" not in doc
    assert doc["stderr_tail"] is None and doc["error_detail"] is None
    interval = unstructure_document(M.Interval(low=0.0, high=1.0, method="wilson", n=2))
    assert interval == {"low": 0.0, "high": 1.0, "method": "wilson", "n": 2}


def test_open_suite_keeps_unknown_keys_and_null_description():
    doc = json.loads((SCHEMA_ROOT / "suite/v1/examples/valid/suite-byo-agent-smoke.json")
                     .read_text(encoding="utf-8"))
    doc["description"] = None
    doc["x-owner"] = {"team": "a"}
    doc["cases"][0]["note"] = [1, 2]
    model = structure_document("suite", doc)
    assert model.description is None and model.extra == {"x-owner": {"team": "a"}}
    assert model.cases[0].extra == {"note": [1, 2]}
    assert unstructure_document(model) == doc
    del doc["description"]
    model = structure_document("suite", doc)
    assert model.description is M.ABSENT and "description" not in unstructure_document(model)


def test_numbers_keep_their_json_type():
    path = SCHEMA_ROOT / "receipt/v2/examples/valid/receipt-starter-3-repeats.python.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["timeout_s"] = 30
    assert json.dumps(unstructure_document(structure_document("receipt-v2", doc))[
        "timeout_s"]) == "30"


@pytest.mark.parametrize(("version", "model"), [("v2", M.SuiteDocumentV2),
                                                ("v3", M.SuiteDocumentV3)])
def test_the_loaded_suite_is_backed_by_its_model(version, model):
    path = SCHEMA_ROOT / f"suite/{version}/examples/valid/suite-library-desk-tool-calls.json"
    suite = aau_adapters.load_suite(path)
    assert isinstance(suite.model, model)
    assert unstructure_document(suite.model) == suite.doc
    for case, case_model in zip(suite.cases, suite.model.cases, strict=True):
        assert case.model is case_model and case.scenario_id == case_model.scenario_id
        assert case.expected_outcome == case_model.expected.outcome
        request = aau_adapters.build_request(suite.suite_id, case)
        aau_schemas.validate("adapter-request", request)
        assert list(request) == ["protocol_version", "suite_id", "scenario_id", "input"]
        assert aau_adapters.encode_request(request) == (json.dumps(request) + "\n").encode()


def test_a_loaded_suite_structures_its_model_on_first_read_only(monkeypatch):
    # a run never reads the models: structuring them at load copied every case's input
    # (~50 MB for 100,000 cases, benchmarks/README.md row f)
    import aau_adapters._converter as package_converter

    calls = []
    real = package_converter.converter

    class Counting:
        def structure(self, doc, kind):
            calls.append(kind)
            return real.structure(doc, kind)

    monkeypatch.setattr(package_converter, "converter", Counting())
    path = SCHEMA_ROOT / "suite/v3/examples/valid/suite-library-desk-tool-calls.json"
    suite = aau_adapters.load_suite(path)
    assert calls == []
    assert suite.cases[1].model is suite.model.cases[1]
    assert suite.model is suite.model and calls == [M.SuiteDocumentV3]
    assert unstructure_document(suite.model) == suite.doc


def test_loaded_cases_without_rules_share_one_read_only_tool_call_match(tmp_path):
    # a new {} per case was ~6.5 MB of a 100,000-case suite (benchmarks/README.md row f)
    path = SCHEMA_ROOT / "suite/v2/examples/valid/suite-library-desk-tool-calls.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["cases"].append({**doc["cases"][4], "scenario_id": "no-rules-2"})
    copy = tmp_path / "suite.json"
    copy.write_text(json.dumps(doc), encoding="utf-8")
    cases = aau_adapters.load_suite(copy).cases
    bare = [c for c in cases if "tool_call_match" not in c.expected]
    assert [c.scenario_id for c in bare] == [cases[4].scenario_id, "no-rules-2"]
    assert bare[0].tool_call_match is bare[1].tool_call_match
    assert bare[0].tool_call_match == {} and dict(bare[0].tool_call_match) == {}
    with pytest.raises(TypeError):
        bare[0].tool_call_match["mode"] = "superset"  # type: ignore[index]
    assert cases[0].tool_call_match is cases[0].expected["tool_call_match"]
    assert aau_adapters.Case(index=0, scenario_id="x", input={}, expected={},
                             expected_outcome=None, forbidden_actions=[]).tool_call_match == {}


def test_the_package_converter_is_the_one_converter():
    from aau_adapters import _converter

    names = [n for n, obj in vars(sys.modules["aau_adapters._converter"]).items()
             if type(obj).__name__ == "Converter"]
    assert names == ["converter"] and aau_adapters.converter is _converter.converter


def test_input_numbers_are_sent_as_docs_evaluate_md_says(tmp_path):
    # the request carries the same values: a fraction or exponent as the nearest double in its
    # shortest form; an integer beyond +-(2**53 - 1) is refused, naming its JSON path
    path = SCHEMA_ROOT / "suite/v2/examples/valid/suite-library-desk-tool-calls.json"
    text = path.read_text(encoding="utf-8")
    doc = json.loads(text)
    doc["cases"][0]["input"] = {"n": "N"}
    copy = tmp_path / "suite.json"
    copy.write_text(json.dumps(doc).replace(
        '"N"', '{"a": 2.50, "b": 1e2, "c": 12345678901234567890.123, "d": 9007199254740991}'),
        encoding="utf-8")
    suite = aau_adapters.load_suite(copy)
    line = aau_adapters.encode_request(aau_adapters.build_request(suite.suite_id,
                                                                   suite.cases[0]))
    assert b'"n": {"a": 2.5, "b": 100.0, "c": 1.2345678901234567e+19, "d": 9007199254740991}' \
        in line
    copy.write_text(json.dumps(doc).replace('"N"', "9007199254740992"), encoding="utf-8")
    with pytest.raises(InvalidDocumentError, match=r"\$\.cases\[0\]\.input\.n: cannot compute "
                       r"the RFC 8785 digest: an integer beyond"):
        aau_adapters.load_suite(copy).suite_digest()  # what every receipt 2.x run computes
