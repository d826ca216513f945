"""The summary statistics reproduce aau-harness 1.6's reference report exactly.

The reference study, answer key, five synthetic sessions and report are copied byte for byte
into ``schemas/human-baseline/v1/examples/valid/`` (so these tests run in a plain clone); the
same comparison against ``../shared/compat/aau-1.6/baseline`` runs when it is present.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _helpers import SHARED, SHARED_MISSING
from aau_baseline._converter import converter
from aau_baseline._summary import (
    KAPPA_NEEDS_TWO_SESSIONS,
    KAPPA_ONE_CATEGORY,
    Response,
    median_ms,
    p90_ms,
    rate,
    summarize_responses,
)

REPO = Path(__file__).resolve().parents[3]
EXAMPLES = REPO / "schemas" / "human-baseline" / "v1" / "examples" / "valid"
COMPAT = SHARED / "compat" / "aau-1.6" / "baseline"


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _inputs(study_path, key_path, session_paths):
    study, key = _load(study_path), _load(key_path)
    sessions = [[Response(**r) for r in _load(p)["responses"]] for p in session_paths]
    return [c["scenario_id"] for c in study["cases"]], study["outcomes"], key["answers"], sessions


def _check_reproduces(study_path, key_path, session_paths, report_path):
    metrics, rows = summarize_responses(*_inputs(study_path, key_path, session_paths))
    report = _load(report_path)
    assert converter.unstructure(metrics) == report["metrics"]
    assert converter.unstructure(rows) == report["per_scenario"]
    # the numbers the issue names, spelled out
    assert metrics.fleiss_kappa == 0.6929
    assert metrics.outcome_exact_wilson_95 == (0.7695, 0.9604)
    assert (metrics.median_task_time_ms, metrics.p90_task_time_ms) == (14485, 18090)
    # same JSON types as 1.6 (ints stay ints)
    assert json.dumps(converter.unstructure(metrics), sort_keys=True) == json.dumps(
        report["metrics"], sort_keys=True)


def test_reproduces_the_reference_report_from_the_copied_examples():
    _check_reproduces(EXAMPLES / "study-reference.json", EXAMPLES / "answer-key-reference.json",
                      [EXAMPLES / f"session-synthetic-0{i}.json" for i in range(1, 6)],
                      EXAMPLES / "report-reference.json")


@pytest.mark.skipif(not COMPAT.is_dir(), reason=SHARED_MISSING)
def test_reproduces_the_reference_report_from_shared_compat():
    _check_reproduces(COMPAT / "reference-pack" / "study.json",
                      COMPAT / "reference-pack" / "answer-key.json",
                      sorted((COMPAT / "sessions").glob("synthetic-*.json")),
                      COMPAT / "reference-report.json")


def test_one_session_has_no_kappa_and_says_why():
    ids, outcomes, answers, sessions = _inputs(
        EXAMPLES / "study-reference.json", EXAMPLES / "answer-key-reference.json",
        [EXAMPLES / "session-synthetic-01.json"])
    metrics, rows = summarize_responses(ids, outcomes, answers, sessions)
    assert metrics.fleiss_kappa is None and metrics.fleiss_kappa_note == KAPPA_NEEDS_TWO_SESSIONS
    assert "fleiss_kappa_note" not in converter.unstructure(metrics)
    assert converter.unstructure(metrics)["fleiss_kappa"] is None
    assert all(r.responses == 1 and r.modal_agreement_rate == 1.0 for r in rows)


def test_all_abstaining_and_whole_mean_confidence():
    ids = ["a", "b"]
    sessions = [[Response(i, "__abstain__", 50, 1000) for i in ids] for _ in range(2)]
    metrics, _ = summarize_responses(ids, ["x", "y"], {"a": "x", "b": "y"}, sessions)
    assert metrics.outcome_exact_rate == 0.0 and metrics.conditional_exact_rate == 0.0
    assert metrics.abstain_rate == 1.0
    assert metrics.mean_confidence == 50 and isinstance(metrics.mean_confidence, int)
    assert metrics.absolute_calibration_gap == 0.5
    # every answer in one category: p_e = 1, kappa is 0/0 (aau-harness 1.6 wrote 1.0)
    assert metrics.fleiss_kappa is None and metrics.fleiss_kappa_note == KAPPA_ONE_CATEGORY
    assert metrics.outcome_exact_wilson_95[0] == 0.0


def test_time_and_rate_helpers():
    assert median_ms([1, 2]) == 2 and median_ms([1, 4]) == 2  # 1.5 and 2.5 round to even
    assert median_ms([3, 1, 2]) == 2
    assert p90_ms(list(range(1, 11))) == 9 and p90_ms([5]) == 5 and p90_ms(list(range(1, 12))) == 10
    assert rate(1, 3) == 0.3333 and rate(1, 0) == 0.0
    with pytest.raises(ValueError):
        median_ms([])
    with pytest.raises(ValueError):
        p90_ms([])


def test_a_session_missing_a_case_is_refused():
    with pytest.raises(ValueError):
        summarize_responses(["a", "b"], ["x", "y"], {"a": "x", "b": "y"},
                            [[Response("a", "x", 1, 1)]])
