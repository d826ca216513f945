"""The protocol constants and the schemas pin the same values."""

from __future__ import annotations

import json
from pathlib import Path

from aau_baseline import HumanProtections, ManifestClaims, ReportPrivacy
from aau_baseline import _protocol as p
from aau_baseline._converter import converter

SCHEMAS = Path(__file__).resolve().parents[3] / "schemas" / "human-baseline" / "v1"


def _schema(name: str) -> dict:
    return json.loads((SCHEMAS / f"{name}.schema.json").read_text(encoding="utf-8"))


def test_constants_match_the_schemas():
    study, session, report = _schema("study"), _schema("session"), _schema("report")
    props = study["properties"]
    assert props["study_version"]["const"] == p.STUDY_VERSION
    assert props["participant_roles"]["const"] == list(p.PARTICIPANT_ROLES)
    assert props["measures"]["const"] == list(p.MEASURES)
    assert props["human_protections"]["const"] == converter.unstructure(HumanProtections())
    assert props["boundary"]["const"] == p.STUDY_BOUNDARY
    assert session["properties"]["boundary"]["const"] == p.SESSION_BOUNDARY
    assert session["properties"]["session_kind"]["enum"] == list(p.SESSION_KINDS)
    assert session["properties"]["session_version"]["const"] == p.SESSION_VERSION
    rp = report["properties"]
    assert rp["report_version"]["const"] == p.REPORT_VERSION
    assert rp["boundary"]["const"] == p.REPORT_BOUNDARY
    assert rp["privacy"]["const"] == converter.unstructure(ReportPrivacy())
    comparison = rp["agent_comparison"]["oneOf"][1]["properties"]
    assert comparison["interpretation"]["const"] == p.COMPARISON_INTERPRETATION
    assert rp["source"]["properties"]["session_count"]["maximum"] == p.MAX_SESSIONS
    assert _schema("answer-key")["properties"]["answer_key_version"]["const"] == p.ANSWER_KEY_VERSION
    manifest = _schema("manifest")["properties"]
    assert manifest["manifest_version"]["const"] == p.MANIFEST_VERSION
    assert manifest["claims"]["const"] == converter.unstructure(ManifestClaims())


def test_models_and_schemas_have_the_same_fields():
    import attrs
    from aau_baseline import HumanMetrics, Response, ScenarioSummary

    report, session = _schema("report"), _schema("session")
    metrics = {f.name for f in attrs.fields(HumanMetrics)} - {"fleiss_kappa_note"}
    assert metrics == set(report["properties"]["metrics"]["required"])
    row = report["properties"]["per_scenario"]["items"]
    assert {f.name for f in attrs.fields(ScenarioSummary)} == set(row["required"])
    response = session["properties"]["responses"]["items"]
    assert {f.name for f in attrs.fields(Response)} == set(response["required"])
