"""Building the aggregate-only ``aau-human-baseline-report/1.0`` from a study and its sessions.

The report carries hashes of its inputs (study, sessions, agent receipt: 1.6's ``sha256_json``),
the statistics of ``_summary``, and fixed privacy, protection and boundary statements. It never
carries session ids, roles, responses or any free text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import aau_schemas

from ._documents import study_sha256
from ._protocol import (
    COMPARISON_INTERPRETATION,
    REPORT_BOUNDARY,
    REPORT_VERSION,
    SESSION_KINDS,
    report_privacy,
)
from ._summary import HumanMetrics, Response, summarize_responses


def build_report(study: dict[str, Any], answer_key: dict[str, Any],
                 sessions: Sequence[dict[str, Any]],
                 agent_receipt: dict[str, Any] | None = None) -> tuple[dict[str, Any], HumanMetrics]:
    """The report document and its metrics (whose ``fleiss_kappa_note`` says why kappa is null).

    All inputs must already be checked (``_documents``): sessions of this study with unique
    ``anonymous_session_id``s, and a receipt fit for comparison or ``None``.
    """
    metrics, rows = summarize_responses(
        [c["scenario_id"] for c in study["cases"]], study["outcomes"], answer_key["answers"],
        [[Response(**r) for r in s["responses"]] for s in sessions])
    kinds = {kind: sum(s["session_kind"] == kind for s in sessions) for kind in SESSION_KINDS}
    comparison = None
    if agent_receipt is not None:
        agent_rate = round(agent_receipt["metrics"]["exact_rate"], 4)
        comparison = {
            "receipt_sha256": aau_schemas.legacy_sha256_json(agent_receipt),
            "adapter_kind": agent_receipt["adapter_kind"],
            "scenario_count": agent_receipt["scenario_count"],
            "agent_exact_rate": agent_rate,
            "human_exact_rate": metrics.outcome_exact_rate,
            "human_minus_agent_exact_rate": round(metrics.outcome_exact_rate - agent_rate, 4),
            "interpretation": COMPARISON_INTERPRETATION,
        }
    report = {
        "report_version": REPORT_VERSION,
        "study_id": study["study_id"],
        "study_sha256": study_sha256(study),
        "source": {
            "session_count": len(sessions),
            "session_kinds": kinds,
            "session_sha256": sorted(aau_schemas.legacy_sha256_json(s) for s in sessions),
        },
        "metrics": metrics.as_dict(),
        "per_scenario": [r.as_dict() for r in rows],
        "agent_comparison": comparison,
        "human_protection_summary": {
            "observed_human_sessions": kinds["human_observed"],
            "synthetic_reference_sessions": kinds["synthetic_reference"],
            "institutional_determination_verified_by_aau": False,
        },
        "privacy": report_privacy(),
        "boundary": REPORT_BOUNDARY,
    }
    return report, metrics
