"""Building the aggregate-only ``aau-human-baseline-report/1.0`` from a study and its sessions.

The report carries hashes of its inputs (study, sessions, agent receipt: 1.6's ``sha256_json``),
the statistics of ``_summary``, and fixed privacy, protection and boundary statements. It never
carries session ids, roles, responses or any free text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import aau_schemas

from ._converter import converter
from ._documents import study_sha256
from ._models import (
    AgentComparison,
    AnswerKey,
    HumanProtectionSummary,
    Report,
    ReportSource,
    Session,
    SessionKinds,
    Study,
)
from ._protocol import ABSTAIN
from ._summary import HumanMetrics, summarize_responses


def build_report(study: Study, answer_key: AnswerKey, sessions: Sequence[Session],
                 agent_receipt: dict[str, Any] | None = None) -> tuple[Report, HumanMetrics]:
    """The report model and its metrics (whose ``fleiss_kappa_note`` says why kappa is null).

    All inputs must already be checked (``_documents``): sessions of this study with unique
    ``anonymous_session_id``s, and a receipt fit for comparison (a checked receipt document)
    or ``None``. Session hashes are 1.6's ``sha256_json`` of each session document.

    Raises:
        aau_core.NotMeasuredError: every response of every session abstained (exit 3): no task
            was answered, so the rates would describe nothing (aau-harness 1.6 wrote that
            report; aau refuses it like any non-measurement and writes nothing).
    """
    from aau_core import NotMeasuredError

    responses = sum(len(s.responses) for s in sessions)
    if sessions and all(r.outcome == ABSTAIN for s in sessions for r in s.responses):
        count = len(sessions)
        raise NotMeasuredError(f"no task was answered: {count} session"
                               f"{'' if count == 1 else 's'}, every response abstained",
                               not_measured=responses, units=responses, reason="no-answer")
    metrics, rows = summarize_responses(
        [c.scenario_id for c in study.cases], study.outcomes, answer_key.answers,
        [s.responses for s in sessions])
    kinds = SessionKinds(
        synthetic_reference=sum(s.session_kind == "synthetic_reference" for s in sessions),
        human_observed=sum(s.session_kind == "human_observed" for s in sessions))
    comparison = None
    if agent_receipt is not None:
        agent_rate = round(agent_receipt["metrics"]["exact_rate"], 4)
        comparison = AgentComparison(
            receipt_sha256=aau_schemas.legacy_sha256_json(agent_receipt),
            adapter_kind=agent_receipt["adapter_kind"],
            scenario_count=agent_receipt["scenario_count"],
            agent_exact_rate=agent_rate,
            human_exact_rate=metrics.outcome_exact_rate,
            human_minus_agent_exact_rate=round(metrics.outcome_exact_rate - agent_rate, 4),
        )
    report = Report(
        study_id=study.study_id,
        study_sha256=study_sha256(study),
        source=ReportSource(
            session_count=len(sessions),
            session_kinds=kinds,
            session_sha256=sorted(aau_schemas.legacy_sha256_json(converter.unstructure(s))
                                  for s in sessions)),
        metrics=metrics,
        per_scenario=rows,
        agent_comparison=comparison,
        human_protection_summary=HumanProtectionSummary(
            observed_human_sessions=kinds.human_observed,
            synthetic_reference_sessions=kinds.synthetic_reference),
    )
    return report, metrics
