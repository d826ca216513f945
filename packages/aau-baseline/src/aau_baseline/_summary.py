"""Aggregate statistics of a human-baseline study: what ``aau baseline summarize`` reports.

Inputs are the study's case ids (blinded order) and outcomes, the answer key, and each session's
responses; the answers are scored here and never leave this module as rows. Formulas, as
aau-harness 1.6 computes them (the compat reference report reproduces exactly):

- ``outcome_exact_rate`` = round(exact / responses, 4); its interval is the Wilson score interval
  at 95 % (``aau_core.wilson_interval``, z = 1.959963984540054) over all responses, rounded to 4
  places.
- ``conditional_exact_rate`` = round(exact / non-abstaining responses, 4) (0.0 when all abstain);
  ``abstain_rate`` = round(abstentions / responses, 4).
- ``median_task_time_ms`` = the median of ``elapsed_ms``, rounded half to even (Python
  ``round``); ``p90_task_time_ms`` = nearest rank: the ``ceil(0.9 n)``-th smallest value.
- ``mean_confidence`` = mean of ``confidence`` (percent), an int when exact, else rounded to 2
  places; ``absolute_calibration_gap`` = round(|unrounded mean / 100 - outcome_exact_rate|, 4),
  using the already rounded exact rate, as 1.6 does.
- ``fleiss_kappa`` = ``aau_core.fleiss_kappa`` over scenarios (subjects) x sessions (raters),
  categories = outcomes + ``__abstain__``, rounded to 4 places; ``None`` with a reason when it is
  undefined: fewer than two sessions, or every response in one category (p_e = 1, where
  aau-harness 1.6 wrote 1.0: a number no response measured).
- Per scenario: responses, exact and abstain rates, modal agreement (largest category count /
  responses) and the median ``elapsed_ms``, in the study's (blinded) case order.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from fractions import Fraction

import attrs
from aau_core import fleiss_kappa, wilson_interval
from aau_core._files._converter import OMIT  # internal to the monorepo

from ._protocol import ABSTAIN

KAPPA_NEEDS_TWO_SESSIONS = "Fleiss' kappa needs at least two sessions (raters)"
KAPPA_ONE_CATEGORY = ("Fleiss' kappa is undefined: every response is the same outcome, so "
                      "chance agreement p_e = 1")


@attrs.frozen
class Response:
    """One answer of one session: ``outcome`` is a study outcome or ``__abstain__``,
    ``confidence`` a percent (0..100), ``elapsed_ms`` the task time in milliseconds."""

    scenario_id: str
    outcome: str
    confidence: int
    elapsed_ms: int


@attrs.frozen
class ScenarioSummary:
    """The aggregate of one scenario's responses (a ``per_scenario`` row of the report)."""

    scenario_id: str
    responses: int
    exact_rate: float
    abstain_rate: float
    modal_agreement_rate: float
    median_elapsed_ms: int


@attrs.frozen
class HumanMetrics:
    """The report's ``metrics``, plus ``fleiss_kappa_note``: why kappa is ``None`` (not in the
    report, whose shape is fixed; the CLI prints it). ``mean_confidence`` is an int when the mean
    is whole (as aau-harness 1.6 writes it), else a float."""

    response_count: int
    outcome_exact_rate: float
    outcome_exact_wilson_95: tuple[float, float]
    conditional_exact_rate: float
    abstain_rate: float
    median_task_time_ms: int
    p90_task_time_ms: int
    mean_confidence: float
    absolute_calibration_gap: float
    fleiss_kappa: float | None
    fleiss_kappa_note: str | None = attrs.field(default=None, metadata={OMIT: True})


def rate(numerator: int, denominator: int) -> float:
    """``round(numerator / denominator, 4)``, or ``0.0`` when ``denominator`` is 0."""
    return round(numerator / denominator, 4) if denominator else 0.0


def median_ms(values: Sequence[int]) -> int:
    """Median of millisecond values, rounded half to even. Raises ValueError when empty."""
    if not values:
        raise ValueError("median of no values")
    return round(statistics.median(values))


def p90_ms(values: Sequence[int]) -> int:
    """Nearest-rank 90th percentile: the ``ceil(0.9 n)``-th smallest value (n >= 1)."""
    if not values:
        raise ValueError("percentile of no values")
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.9 * len(ordered)) - 1)]


def _mean_confidence(values: Sequence[int]) -> tuple[float | int, float]:
    """(reported mean, unrounded mean): an int when the mean is whole, as 1.6's
    ``statistics.mean`` gives it, else rounded to 2 places."""
    exact = Fraction(sum(values), len(values))
    unrounded: float | int = int(exact) if exact.denominator == 1 else float(exact)
    return (unrounded if isinstance(unrounded, int) else round(unrounded, 2)), unrounded


def summarize_responses(
    case_ids: Sequence[str],
    outcomes: Sequence[str],
    answers: Mapping[str, str],
    sessions: Sequence[Sequence[Response]],
) -> tuple[HumanMetrics, list[ScenarioSummary]]:
    """Score every response against ``answers`` and aggregate.

    Args:
        case_ids: the study's scenario ids in study (blinded) order.
        outcomes: the study's outcomes (without ``__abstain__``).
        answers: scenario id -> expected outcome, for every case id.
        sessions: each session's responses; every session answers every case exactly once
            (validated before this is called).

    Returns:
        ``(metrics, per_scenario)``.

    Raises:
        ValueError: no sessions, or a session that does not answer every case exactly once.
    """
    if not sessions:
        raise ValueError("need at least one session")
    categories = [*outcomes, ABSTAIN]
    by_case: dict[str, list[Response]] = {cid: [] for cid in case_ids}
    for responses in sessions:
        if sorted(r.scenario_id for r in responses) != sorted(case_ids):
            raise ValueError("every session must answer every case exactly once")
        for response in responses:
            by_case[response.scenario_id].append(response)
    every = [r for rows in by_case.values() for r in rows]
    exact = sum(r.outcome == answers[r.scenario_id] for r in every)
    abstained = sum(r.outcome == ABSTAIN for r in every)
    exact_rate = rate(exact, len(every))
    low, high = wilson_interval(exact, len(every))
    elapsed = [r.elapsed_ms for r in every]
    mean_conf, mean_unrounded = _mean_confidence([r.confidence for r in every])

    per_scenario = []
    table = []
    for cid in case_ids:
        rows = by_case[cid]
        counts = [sum(r.outcome == c for r in rows) for c in categories]
        table.append(counts)
        per_scenario.append(ScenarioSummary(
            scenario_id=cid,
            responses=len(rows),
            exact_rate=rate(sum(r.outcome == answers[cid] for r in rows), len(rows)),
            abstain_rate=rate(sum(r.outcome == ABSTAIN for r in rows), len(rows)),
            modal_agreement_rate=rate(max(counts), len(rows)),
            median_elapsed_ms=median_ms([r.elapsed_ms for r in rows]),
        ))
    kappa = fleiss_kappa(table)
    metrics = HumanMetrics(
        response_count=len(every),
        outcome_exact_rate=exact_rate,
        outcome_exact_wilson_95=(round(low, 4), round(high, 4)),
        conditional_exact_rate=rate(exact, len(every) - abstained),
        abstain_rate=rate(abstained, len(every)),
        median_task_time_ms=median_ms(elapsed),
        p90_task_time_ms=p90_ms(elapsed),
        mean_confidence=mean_conf,
        absolute_calibration_gap=round(abs(mean_unrounded / 100 - exact_rate), 4),
        fleiss_kappa=None if kappa is None else round(kappa, 4),
        fleiss_kappa_note=None if kappa is not None else (
            KAPPA_NEEDS_TWO_SESSIONS if len(sessions) < 2 else KAPPA_ONE_CATEGORY),
    )
    return metrics, per_scenario
