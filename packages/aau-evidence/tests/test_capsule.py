"""Impact Capsules: derived status at every level, inflation and hostile capsules refused with a
JSON path, artifact cross-checks, and the comparison."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import aau_schemas
import pytest
from _helpers import SHARED, SHARED_MISSING
from aau_core import InputError, InvalidDocumentError
from aau_evidence._capsule import check_capsule, derive_status, find_root, read_capsule
from aau_evidence._comparison import MISSING_EVIDENCE, build_comparison

COMPAT_EVIDENCE = SHARED / "compat" / "aau-1.6" / "evidence"

STATUSES = ["synthetic_reference", "partner_sought", "study_reviewed", "aggregate_published",
            "independently_reproduced"]


def problems(chain: Any, doc: dict[str, Any]) -> list[str]:
    with pytest.raises(InvalidDocumentError) as info:
        check_capsule(doc, chain.root, source="c.json")
    return str(info.value).splitlines()


@pytest.mark.parametrize("status", STATUSES)
def test_every_status_is_derived_and_compared(chain: Any, status: str) -> None:
    doc = chain.capsule(status)
    assert check_capsule(doc, chain.root, source="c.json") is doc
    assert derive_status(doc) == status
    comparison = build_comparison(doc)
    assert aau_schemas.is_valid("capsule-comparison", comparison)
    assert comparison["derived_status"] == status
    level = STATUSES.index(status)
    # the agent receipt is hash-bound, so the first gap is the study (or nothing at the top)
    first_gap = {0: 1, 1: 1, 2: 2, 3: 3, 4: 5}[level]
    assert comparison["missing_evidence"] == list(MISSING_EVIDENCE[first_gap:])
    assert comparison["next_evidence"] == (MISSING_EVIDENCE[first_gap] if level < 4 else
                                           "periodic reassessment and transfer testing")
    if level >= 3:
        human = chain.report["metrics"]["outcome_exact_rate"]
        assert comparison["human_minus_agent_exact_rate"] == round(human - 0.75, 4)
    assert comparison["claims"]["causal_impact_proved"] is False


@pytest.mark.parametrize("declared, derived_level", [
    ("independently_reproduced", "aggregate_published"),
    ("aggregate_published", "study_reviewed"),
    ("study_reviewed", "partner_sought"),
    ("partner_sought", "synthetic_reference"),
])
def test_status_inflation_is_refused(chain: Any, declared: str, derived_level: str) -> None:
    doc = chain.capsule(derived_level)
    doc["status"] = declared
    lines = problems(chain, doc)
    assert f"c.json: $.status: inflated: declared '{declared}', but the artifacts support " \
           f"'{derived_level}' (status is derived, never selected)" in lines


def test_stale_status_and_label_inflation(chain: Any) -> None:
    doc = chain.capsule("study_reviewed")
    doc["status"] = "partner_sought"
    assert any("$.status: stale" in line for line in problems(chain, doc))
    doc = chain.capsule("partner_sought")
    doc["evidence_quality"]["rigor"] = "observed_aggregate"
    doc["evidence_quality"]["independence"] = "independent_reproduction_attested"
    lines = problems(chain, doc)
    assert any("$.evidence_quality.rigor: 'observed_aggregate' claims human evidence" in line
               for line in lines)
    assert any("$.evidence_quality.independence" in line for line in lines)


def test_causal_label_inflation_is_refused(chain: Any) -> None:
    doc = chain.capsule()
    doc["artifacts"]["public_value_observation"]["causal_claim"] = True
    lines = problems(chain, doc)  # schema: a causal claim needs a causal evaluation
    assert lines == ["c.json: $.artifacts.public_value_observation.observation_kind: "
                     "\"causal_evaluation\" was expected"]
    # declaring a causal evaluation the record does not make is a mismatch with the record
    doc["artifacts"]["public_value_observation"]["observation_kind"] = "causal_evaluation"
    lines = problems(chain, doc)
    assert any(".observation_kind: " in line and "method is 'descriptive_before_after'" in line
               for line in lines)
    assert any(".causal_claim: " in line for line in lines)


def test_chain_prerequisites(chain: Any) -> None:
    doc = chain.capsule()
    doc["artifacts"]["human_study"] = None
    lines = problems(chain, doc)
    assert any("$.artifacts.human_baseline: a human-baseline report needs its blinded study"
               in line for line in lines)
    assert any("$.artifacts.reproduction: an independent reproduction needs the whole chain"
               in line for line in lines)
    doc = chain.capsule("study_reviewed")
    doc["artifacts"]["public_value_observation"] = chain.artifact("public_value_observation")
    assert any("needs an observed aggregate human baseline" in line
               for line in problems(chain, doc))


@pytest.mark.parametrize("mutate, expected", [
    (lambda d: d["artifacts"]["agent_receipt"].update(primary_metric=None),
     "$.artifacts.agent_receipt.primary_metric: null is not of type \"object\""),
    (lambda d: d.update(artifacts=[]), "$.artifacts: [] is not of type \"object\""),
    (lambda d: d["artifacts"].update(human_baseline="report.json"), "$.artifacts.human_baseline"),
    (lambda d: d["partner_call"].update(open="yes"), "$.partner_call.open"),
    (lambda d: d["privacy"].update(participant_level_data_included=True), "$.privacy"),
    (lambda d: d["artifacts"]["suite"].update(path="../../etc/passwd"),
     "$.artifacts.suite.path"),
    (lambda d: d["artifacts"]["suite"].update(classification="internal"),
     "$.artifacts.suite.classification"),
    (lambda d: d["artifacts"]["human_baseline"].update(institutional_basis_verified_by_aau=True),
     "$.artifacts.human_baseline.institutional_basis_verified_by_aau"),
])
def test_hostile_capsules_give_one_clean_line(chain: Any, mutate: Any, expected: str) -> None:
    doc = chain.capsule()
    mutate(doc)
    lines = problems(chain, doc)
    assert lines and all(line.startswith("c.json: $") for line in lines)
    assert any(expected in line for line in lines), lines


def test_private_data_in_text_is_refused_without_echoing_it(chain: Any) -> None:
    doc = chain.capsule()
    doc["mission"] = "Contact jane.doe@agency.gov or use key sk-ant-api03-" + "x" * 40
    lines = problems(chain, doc)
    assert any(line.startswith("c.json: $.mission: looks like private data (email_address")
               for line in lines)
    assert not any("jane.doe" in line for line in lines)
    ok = chain.capsule()
    ok["mission"] = "Docket 123456789 was decided in 3.14159265358979 days (example@example.org)."
    check_capsule(ok, chain.root, source="c.json")  # a nine-digit docket is not an SSN


def test_hash_drift_and_missing_artifacts(chain: Any) -> None:
    doc = chain.capsule()
    (chain.root / "human/report.json").write_bytes(chain.files["human/report.json"] + b" ")
    (chain.root / "public-value/observation.json").unlink()
    lines = problems(chain, doc)
    assert any("$.artifacts.human_baseline.sha256: " in line and "hash drift" in line
               for line in lines)
    assert any("$.artifacts.public_value_observation.path: " in line and "no such file" in line
               for line in lines)


def test_symlinked_artifacts_are_refused(chain: Any, tmp_path: Path) -> None:
    doc = chain.capsule("study_reviewed")
    study = chain.root / "human/study.json"
    outside = tmp_path / "outside-study.json"
    outside.write_bytes(study.read_bytes())
    study.unlink()
    study.symlink_to(outside)  # same bytes, but through a symlink
    assert any("$.artifacts.human_study.path" in line and "symlink" in line
               for line in problems(chain, doc))
    study.unlink()
    (chain.root / "human").rename(tmp_path / "human-real")
    (chain.root / "human").symlink_to(tmp_path / "human-real")  # a symlinked folder
    lines = [line for line in problems(chain, doc) if "'human' is a symlink" in line]
    assert lines, problems(chain, doc)
    for line in lines:  # the capsule and the JSON path once, not twice
        assert line.count("c.json") == 1 and line.count("$.artifacts.") == 1, line


def test_receipt_content_cross_checks(chain: Any) -> None:
    doc = chain.capsule("partner_sought")
    metric = doc["artifacts"]["agent_receipt"]["primary_metric"]
    metric["value"] = 0.8
    metric["interval_95"] = [0.5, 0.9]
    lines = problems(chain, doc)
    assert any("primary_metric.value: " in line and "metrics.exact_rate is 0.75" in line
               for line in lines)
    doc = chain.capsule("partner_sought")
    doc["artifacts"]["agent_receipt"]["scenario_ids_sha256"] = "0" * 64
    assert any(".scenario_ids_sha256: " in line for line in problems(chain, doc))


def test_hash_bound_label_must_be_backed(chain: Any) -> None:
    receipt = dict(chain.receipt, suite_sha256="1" * 64)
    chain._put("results/agent-receipt.json", json.dumps(receipt, indent=2).encode())
    doc = chain.capsule("partner_sought")
    lines = problems(chain, doc)
    assert any("$.artifacts.agent_receipt.suite_binding: " in line for line in lines)
    doc["artifacts"]["agent_receipt"]["suite_binding"] = "scenario_ids_only"
    check_capsule(doc, chain.root, source="c.json")


def test_mock_and_private_receipts_are_not_evidence(chain: Any) -> None:
    chain._put("results/agent-receipt.json", json.dumps(
        dict(chain.receipt, adapter_kind="mock"), indent=2).encode())
    doc = chain.capsule("partner_sought")
    assert any("a mock receipt is not evidence" in line for line in problems(chain, doc))
    private = (Path(__file__).resolve().parents[3] / "schemas/receipt/v1/examples/valid/"
               "private-receipt-byo-agent.command.json").read_bytes()
    chain._put("results/agent-receipt.json", private)
    doc = chain.capsule("partner_sought")
    assert any("a private receipt detail file is never public evidence" in line
               for line in problems(chain, doc))


def test_reproduction_record_must_bind_current_hashes(chain: Any) -> None:
    chain.write_reproduction(source_artifacts=[{"artifact_id": "suite", "sha256": "2" * 64},
                                               {"artifact_id": "agent-receipt",
                                                "sha256": "3" * 64}])
    lines = problems(chain, chain.capsule())
    assert any("source artifact 'suite' is not bound with that SHA-256" in line for line in lines)
    record = chain.write_reproduction()
    record["metric_checks"][0]["within_tolerance"] = False
    chain._put("reproductions/rerun.json", json.dumps(record).encode())
    assert any("within_tolerance must be true" in line for line in problems(chain, chain.capsule()))


def test_root_default_and_reading(chain: Any, tmp_path: Path) -> None:
    path = chain.write_capsule(chain.capsule())
    assert find_root(path) == chain.root.resolve()
    lone = tmp_path / "lone.json"
    lone.write_text("{}")
    with pytest.raises(InputError, match="pass --root"):
        find_root(lone)
    with pytest.raises(InputError, match=r"\$.capsule_version: not an impact capsule"):
        read_capsule(lone)
    lone.write_text("[1]")
    with pytest.raises(InputError, match="a JSON object"):
        read_capsule(lone)


@pytest.mark.skipif(not SHARED.is_dir(), reason=SHARED_MISSING)
def test_the_16_capsule_validates_and_compares() -> None:
    capsule = COMPAT_EVIDENCE / "capsule-root/evidence-commons/capsules/foia-routing-impact-pilot.json"
    doc = read_capsule(capsule)
    check_capsule(doc, find_root(capsule), source=str(capsule))
    expected = (COMPAT_EVIDENCE / "pack-generated/comparison.json").read_bytes()
    rendered = (json.dumps(build_comparison(doc), indent=2, sort_keys=True) + "\n").encode()
    assert rendered == expected
    assert os.fspath(find_root(capsule)).endswith("capsule-root")


def test_an_artifact_bound_twice_is_refused(chain: Any) -> None:
    doc = chain.capsule()
    doc["artifacts"]["human_study"].update(artifact_id="suite", path="suites/reference-suite.json")
    lines = problems(chain, doc)
    assert "c.json: $.artifacts.human_study.artifact_id: artifact_id 'suite' is used twice" in lines
    assert ("c.json: $.artifacts.human_study.path: path 'suites/reference-suite.json' is used "
            "twice") in lines
