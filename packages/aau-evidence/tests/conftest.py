"""Fixtures for aau-evidence's tests.

``evidence_chain`` builds a repository root holding a complete, real evidence chain for the
human-baseline reference suite of aau-harness 1.6 (the byte copies kept as schema examples): the
suite, the 1.6 command-adapter receipt over it, the blinded study, an aggregate report of five
sessions marked as observed (built by aau-baseline), a public-value observation record and an
independent reproduction record. ``chain.capsule(status)`` returns a capsule at any of the five
statuses, bound to those files by their real SHA-256.
"""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[3]
EXAMPLES = REPO / "schemas"
SUITE = EXAMPLES / "suite/v1/examples/valid/suite-human-baseline-reference.json"
RECEIPT = EXAMPLES / "receipt/v1/examples/valid/receipt-human-baseline-with-mismatches.command.json"
BASELINE = EXAMPLES / "human-baseline/v1/examples/valid"
CAPSULE_TEMPLATE = EXAMPLES / "evidence/v1/examples/valid/impact-capsule-foia-routing-impact-pilot.json"
CAPSULE_ID = "public-service-routing-impact"
OBSERVATION_BOUNDARY = (
    "This observation reports bounded aggregate measures under the declared method and "
    "limitations. It does not by itself prove causality, audited savings, universal transfer, "
    "program effectiveness, government endorsement, or authority to deploy AI.")
REPRODUCTION_BOUNDARY = (
    "This reproduction reports an organization-attested rerun of declared public artifacts. "
    "AAU does not verify identity or independence, certify the result, resolve divergences, or "
    "authorize transfer or deployment.")
PRIVACY = {"participant_level_data_included": False, "direct_identifiers_included": False,
           "free_text_responses_included": False, "production_records_included": False,
           "credentials_included": False, "aggregate_only": True}


def render(value: Any) -> bytes:
    return (json.dumps(value, indent=2, sort_keys=True) + "\n").encode()


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class Chain:
    """A root folder with the chain's files; ``capsule(status)`` builds capsules over them."""

    def __init__(self, root: Path):
        import aau_schemas
        from aau_baseline import AnswerKey, Session, Study, build_report
        from aau_evidence._converter import converter

        self.root = root
        (root / "docs").mkdir(parents=True)
        (root / "docs" / "use-cases.json").write_text("[]\n")
        self.files: dict[str, bytes] = {}
        suite_bytes = SUITE.read_bytes()
        self._put("suites/reference-suite.json", suite_bytes)
        self._put("results/agent-receipt.json", RECEIPT.read_bytes())
        study = json.loads((BASELINE / "study-reference.json").read_text())
        self._put("human/study.json", (BASELINE / "study-reference.json").read_bytes())
        answer_key = json.loads((BASELINE / "answer-key-reference.json").read_text())
        sessions = []
        for i in range(1, 6):
            s = json.loads((BASELINE / f"session-synthetic-0{i}.json").read_text())
            s.update(session_kind="human_observed",
                     protection_basis="institutional_review_recorded")
            sessions.append(s)
        report, _ = build_report(converter.structure(study, Study),
                                 converter.structure(answer_key, AnswerKey),
                                 [converter.structure(s, Session) for s in sessions])
        report = converter.unstructure(report)
        self.report = report
        self._put("human/report.json", render(report))
        receipt = json.loads(RECEIPT.read_text())
        self.receipt = receipt
        self.scenario_ids = sorted({r["scenario_id"] for r in receipt["results"]})
        self.ids_sha256 = aau_schemas.legacy_sha256_json(self.scenario_ids)
        self.study_sha256 = aau_schemas.legacy_sha256_json(study)
        self.observation = {
            "observation_version": "aau-public-value-observation/1.0",
            "observation_id": "routing-burden-2026q1", "capsule_id": CAPSULE_ID,
            "method": "descriptive_before_after",
            "metric_results": [{
                "metric_id": "handoff-completeness", "baseline_value": 0.62,
                "observed_value": 0.71, "unit": "share of routed requests",
                "direction": "increase", "window": "2026-01 to 2026-03",
                "affected_group": "residents seeking routing help",
                "uncertainty": "descriptive; no interval computed",
                "limitation": "one office, one quarter"}],
            "causal_claim": False,
            "decision": {"accountable_role": "service owner", "outcome": "continue",
                         "conditions": ["re-measure next quarter"]},
            "privacy": dict(PRIVACY), "limitations": ["single site"],
            "boundary": OBSERVATION_BOUNDARY}
        self._put("public-value/observation.json", render(self.observation))
        self.write_reproduction()

    def _put(self, rel: str, data: bytes) -> None:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        self.files[rel] = data

    def write_reproduction(self, **changes: Any) -> dict[str, Any]:
        record = {
            "reproduction_version": "aau-impact-reproduction/1.0",
            "reproduction_id": "routing-rerun-01", "source_capsule_id": CAPSULE_ID,
            "source_capsule_version": "aau-impact-capsule/1.0",
            "source_artifacts": [
                {"artifact_id": "suite", "sha256": sha(self.files["suites/reference-suite.json"])},
                {"artifact_id": "agent-receipt",
                 "sha256": sha(self.files["results/agent-receipt.json"])}],
            "organization_id": "county-digital-service", "independence_attested": True,
            "scope": "rerun of the suite with the same adapter contract",
            "environment": "county sandbox", "outcome": "reproduced",
            "metric_checks": [{"name": "exact_rate", "source_value": 0.75,
                               "reproduced_value": 0.7, "tolerance": 0.1,
                               "within_tolerance": True}],
            "divergences": [], "limitations": ["one rerun"], "privacy": dict(PRIVACY),
            "boundary": REPRODUCTION_BOUNDARY}
        record.update(changes)
        self._put("reproductions/rerun.json", render(record))
        return record

    def artifact(self, slot: str) -> dict[str, Any]:
        base = {"classification": "public"}
        if slot == "suite":
            return {**base, "artifact_id": "suite", "kind": "aau_byo_suite_file",
                    "path": "suites/reference-suite.json",
                    "sha256": sha(self.files["suites/reference-suite.json"]),
                    "suite_id": "public-service-routing-human-baseline",
                    "suite_kind": "aau_byo_suite", "scenario_count": 8,
                    "provenance_note": "aau-harness 1.6 human-baseline reference suite"}
        if slot == "agent_receipt":
            return {**base, "artifact_id": "agent-receipt", "kind": "aau_byo_agent_receipt_file",
                    "classification": "aggregate_public",
                    "path": "results/agent-receipt.json",
                    "sha256": sha(self.files["results/agent-receipt.json"]),
                    "receipt_kind": "aau_byo_agent_receipt", "model": "reference-command-agent",
                    "suite_binding": "hash_bound", "scenario_ids_sha256": self.ids_sha256,
                    "primary_metric": {"name": "exact_rate", "value": 0.75,
                                       "interval_95": [0.4093, 0.9285], "scenario_count": 8,
                                       "repeats": 1, "observation_count": 8,
                                       "mean_cost_per_scenario_usd": 0,
                                       "p50_latency_s": 0.2}}
        if slot == "human_study":
            return {**base, "artifact_id": "human-study", "kind": "aau_human_baseline_study",
                    "path": "human/study.json", "sha256": sha(self.files["human/study.json"])}
        if slot == "human_baseline":
            m = self.report["metrics"]
            return {**base, "artifact_id": "human-baseline", "classification": "aggregate_public",
                    "kind": "aau_human_baseline_report", "path": "human/report.json",
                    "sha256": sha(self.files["human/report.json"]),
                    "report_version": "aau-human-baseline-report/1.0",
                    "study_sha256": self.study_sha256, "session_count": 5,
                    "observed_human_sessions": 5, "exact_rate": m["outcome_exact_rate"],
                    "abstain_rate": m["abstain_rate"], "institutional_basis_attested": True,
                    "institutional_basis_verified_by_aau": False}
        if slot == "public_value_observation":
            return {**base, "artifact_id": "observation", "classification": "aggregate_public",
                    "kind": "aau_public_value_observation",
                    "path": "public-value/observation.json",
                    "sha256": sha(self.files["public-value/observation.json"]),
                    "observation_kind": "descriptive_before_after",
                    "metric_ids": ["handoff-completeness"], "causal_claim": False}
        assert slot == "reproduction"
        return {**base, "artifact_id": "reproduction", "kind": "aau_independent_reproduction",
                "path": "reproductions/rerun.json",
                "sha256": sha(self.files["reproductions/rerun.json"]),
                "organization_id": "county-digital-service", "outcome": "reproduced",
                "independence_attested": True, "independence_verified_by_aau": False}

    def capsule(self, status: str = "independently_reproduced") -> dict[str, Any]:
        """A valid capsule at ``status`` over this chain's files."""
        order = ["synthetic_reference", "partner_sought", "study_reviewed",
                 "aggregate_published", "independently_reproduced"]
        level = order.index(status)
        doc = copy.deepcopy(json.loads(CAPSULE_TEMPLATE.read_text()))
        doc["capsule_id"] = CAPSULE_ID
        doc["title"] = "Public service routing impact"
        doc["status"] = status
        doc["partner_call"]["open"] = level >= 1
        doc["measurement_plan"][0]["metric_id"] = "handoff-completeness"
        slots = ["suite", "agent_receipt"]
        slots += ["human_study"] if level >= 2 else []
        slots += ["human_baseline"] if level >= 3 else []
        slots += ["public_value_observation", "reproduction"] if level >= 4 else []
        doc["artifacts"] = {k: (self.artifact(k) if k in slots else None) for k in (
            "suite", "agent_receipt", "human_study", "human_baseline",
            "public_value_observation", "reproduction")}
        doc["evidence_quality"] = {
            "relevance_and_utility": "declared",
            "rigor": ["synthetic_scenarios", "synthetic_scenarios", "reviewed_protocol",
                      "observed_aggregate", "observed_aggregate"][level],
            "independence": ("independent_reproduction_attested" if level == 4
                             else "maintainer_reference"),
            "transparency": "artifact_bound",
            "ethics": ("institutional_basis_attested_not_verified" if level >= 3 else
                       "institutional_determination_required_before_human_observation")}
        return doc

    def write_capsule(self, doc: dict[str, Any], name: str = "capsule.json") -> Path:
        path = self.root / "capsules" / name
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(render(doc))
        return path


@pytest.fixture
def chain(tmp_path: Path) -> Chain:
    """A fresh evidence chain under ``tmp_path / "repo"``."""
    return Chain(tmp_path / "repo")
