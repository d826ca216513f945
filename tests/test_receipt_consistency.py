"""One receipt consistency check (``aau_core.check_receipt_consistency``) and its use by
``aau report`` and ``aau schema validate``: every rule, each on a real receipt made by
``aau evaluate`` and then edited by hand so that it still passes its schema."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

import aau_schemas
import pytest
from _helpers import EXAMPLE_SUITE, write_json
from aau_adapters import check_receipt
from aau_core import check_receipt_consistency, receipt_metrics, run, wilson_interval

CRASHED_AGENT = Path(__file__).parent / "fixtures" / "crashed-run" / "agent.py"


def aau(capsys, *args: object) -> tuple[int, str, str]:
    rc = run([str(a) for a in args])
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


@pytest.fixture(scope="module")
def receipts(tmp_path_factory) -> dict[str, dict]:
    folder = tmp_path_factory.mktemp("receipts")
    out = {}
    for name, args in (("v2", ["--repeats", "3"]), ("v1", ["--format", "aau-1.0"])):
        target = folder / f"{name}.json"
        rc = run(["evaluate", str(EXAMPLE_SUITE), "--mock", "--out", str(target), *args])
        assert rc in (0, 1)
        out[name] = json.loads(target.read_text())
    # a receipt 2.1 of a partly crashed run: psr-002 and psr-005 exit 1 (not measured)
    target = folder / "crashed.json"
    rc = run(["evaluate", str(EXAMPLE_SUITE), "--command", f"{sys.executable} {CRASHED_AGENT}",
              "--out", str(target), "--fail-under", "no_forbidden_execute_rate=0.5",
              "--no-store"])
    assert rc == 3  # coverage 0.75 < --min-coverage 1: only the 2 units not measured fail it
    out["v2.1"] = json.loads(target.read_text())
    return out


def _edit(receipts, version, change) -> dict:
    doc = copy.deepcopy(receipts[version])
    change(doc)
    kind = "receipt-v1" if version == "v1" else "receipt-v2"
    aau_schemas.validate(kind, doc)  # the edit is invisible to the schema
    return doc


def _repeats_7(doc):
    doc["repeats"] = 7


def _duplicate_row(doc):
    doc["results"][1] = copy.deepcopy(doc["results"][0])


def _one_scenario_id(doc):
    for row in doc["results"]:
        row["scenario_id"] = doc["results"][0]["scenario_id"]


def _metric(doc):
    doc["metrics"]["exact_rate"] = round(abs(doc["metrics"]["exact_rate"] - 0.1), 6)


def _failure_codes(doc):
    doc["failure_code_counts"] = {"adapter-timeout": 3}


def _pass_hat_k(doc):
    doc["pass_hat_k"]["3"] = 1.0 if doc["pass_hat_k"]["3"] != 1.0 else 0.5


def _flip_exact(doc):
    row = doc["results"][0]
    row["exact"] = not row["exact"]


def _drop_scenario(doc):
    doc["scenario_count"] = doc["scenario_count"] + 1


def _measured_flip(doc):
    doc["results"][1]["measured"] = True  # psr-002 exited 1: it measured nothing


def _vacuous_negative_check(doc):
    doc["results"][1]["no_forbidden_execute"] = True  # 1.6's rule in a 2.1 receipt
    doc["metrics"]["no_forbidden_execute_rate"] = 0.875
    doc["metric_ci95"]["no_forbidden_execute_rate"]["high"] = 1.0


def _coverage_rate(doc):
    doc["coverage"]["rate"] = 1.0


def _unmeasured_limit(doc):
    doc["unmeasured_limit"] = 0.25  # 2 of 8 not measured reaches it: no receipt may exist


def _bar_coverage(doc):
    doc["fail_under"][0]["coverage"] = 1.0


def _bar_passes_without_coverage(doc):
    doc["fail_under"][0]["passed"] = True  # 0.75 >= 0.5, but coverage 0.75 < 1


def _refresh(doc):
    """What a careful forger does after editing a row: every derived number made to follow."""
    from aau_core._reports._receipt_consistency import (
        receipt_failure_code_counts,
        receipt_metric_intervals,
        receipt_pass_hat_k,
    )

    rows = doc["results"]
    doc["metrics"] = receipt_metrics(rows)
    if "metric_ci95" in doc:
        doc["metric_ci95"] = receipt_metric_intervals(rows, doc["metrics"])
        doc["pass_hat_k"] = receipt_pass_hat_k(rows, doc["repeats"])
        doc["failure_code_counts"] = receipt_failure_code_counts(rows)


def _ci_low(doc):
    doc["metric_ci95"]["exact_rate"]["low"] = 0.30  # still below the point estimate 1.0


def _ci_n(doc):
    doc["metric_ci95"]["exact_rate"]["n"] = 24  # units, not the 8 scenarios


def _ci_latency_high(doc):
    doc["metric_ci95"]["mean_latency_s"]["high"] = 0.5


def _ci_seed(doc):
    doc["metric_ci95"]["mean_latency_s"]["seed"] = 7


def _exact_without_outcome(doc):
    row = doc["results"][0]
    row.update(outcome_exact=False, failure_codes=["outcome-mismatch"])  # exact stays true
    _refresh(doc)


def _mismatch_without_code(doc):
    row = doc["results"][0]
    row.update(outcome_exact=False, exact=False, failure_codes=[])  # submitted stays true
    _refresh(doc)


def _not_exact_all_checks_pass(doc):
    doc["results"][0].update(exact=False, failure_codes=["outcome-mismatch"])
    _refresh(doc)


def _outcome_exact_not_submitted(doc):
    doc["results"][0].update(submitted=False, failure_codes=["not-submitted"])
    _refresh(doc)


def _forbidden_code_check_holds(doc):
    row = doc["results"][0]
    row.update(exact=False, failure_codes=["forbidden-action-executed"])
    _refresh(doc)


def _forbidden_check_without_code(doc):
    row = doc["results"][0]
    row.update(exact=False, no_forbidden_attempt=False, failure_codes=[])
    _refresh(doc)


EDITS = [
    ("v2", _ci_low, "$.metric_ci95.exact_rate.low",
     "is 0.3; the rows give 0.675592 (Wilson score interval over 8 scenario(s))"),
    ("v2", _ci_n, "$.metric_ci95.exact_rate.n", "is 24; the rows give 8"),
    ("v2", _ci_latency_high, "$.metric_ci95.mean_latency_s.high",
     "is 0.5; the rows give"),
    ("v2", _ci_seed, "$.metric_ci95.mean_latency_s.seed", "is 7; the rows give 0"),
    ("v2", _exact_without_outcome, "$.results[0].exact", "is true, but outcome_exact is false"),
    ("v2", _mismatch_without_code, "$.results[0].failure_codes",
     "outcome-mismatch must be there exactly when submitted is true and outcome_exact false"),
    ("v2", _not_exact_all_checks_pass, "$.results[0].exact",
     "is false, but every check it is made of passed"),
    ("v2", _outcome_exact_not_submitted, "$.results[0].outcome_exact",
     "is true, but submitted is false"),
    ("v2", _forbidden_code_check_holds, "$.results[0].failure_codes",
     "holds forbidden-action-executed, but no_forbidden_execute is not false"),
    ("v2", _forbidden_check_without_code, "$.results[0].failure_codes",
     "no_forbidden_attempt is false, but forbidden-action-attempt is not there"),
    ("v1", _exact_without_outcome, "$.results[0].exact", "is true, but outcome_exact is false"),
    ("v1", _mismatch_without_code, "$.results[0].failure_codes", "outcome-mismatch must be"),
    ("v2.1", _ci_low, "$.metric_ci95.exact_rate.low", "is 0.3; the rows give"),
    ("v2.1", _mismatch_without_code, "$.results[0].failure_codes", "outcome-mismatch must be"),
    ("v2", _repeats_7, "$.results", "has 3 row(s); repeats is 7"),
    ("v2", _duplicate_row, "$.results[1]", "duplicates $.results[0]"),
    ("v2", _one_scenario_id, "$.results", "has 24 row(s); repeats is 3"),
    ("v2", _metric, "$.metrics.exact_rate", "; the rows give"),
    ("v2", _failure_codes, "$.failure_code_counts", "is {'adapter-timeout': 3}; the rows give"),
    ("v2", _pass_hat_k, "$.pass_hat_k", "; the rows give"),
    ("v2", _flip_exact, "$.metrics.exact_rate", "; the rows give"),
    ("v2", _drop_scenario, "$.scenario_count", "the rows hold 8 distinct scenario id(s)"),
    ("v1", _duplicate_row, "$.results[1]", "duplicates $.results[0]"),
    ("v1", _metric, "$.metrics.exact_rate", "; the rows give"),
    ("v2.1", _measured_flip, "$.results[1].measured",
     "is true, but the row's adapter failure is adapter-exit-1"),
    ("v2.1", _vacuous_negative_check, "$.results[1]",
     "a negative check holds although the adapter failed (adapter-exit-1)"),
    ("v2.1", _coverage_rate, "$.coverage", "; the rows give {'units': 8, 'measured': 6, "
     "'not_measured': 2, 'adapter_failures': 2, 'infrastructure_failures': 0, 'rate': 0.75}"),
    ("v2.1", _unmeasured_limit, "$.coverage", "2 of 8 unit(s) not measured (0 infrastructure): "
     "a non-measurement at unmeasured_limit 0.25 has no receipt"),
    ("v2.1", _bar_coverage, "$.fail_under[0].coverage",
     "is 1.0; the receipt's coverage rate is 0.75"),
    ("v2.1", _bar_passes_without_coverage, "$.fail_under[0]", "verdict does not match"),
    ("v2.1", _metric, "$.metrics.exact_rate", "; the rows give"),
]


def test_a_receipt_aau_evaluate_writes_is_consistent(receipts):
    for doc in receipts.values():
        assert check_receipt_consistency(doc) == []
        assert check_receipt(doc) == []


def test_the_stored_rounding_is_tolerated_and_nothing_more(receipts):
    doc = copy.deepcopy(receipts["v2"])
    exact = doc["metrics"]["exact_rate"]
    doc["metrics"]["exact_rate"] = exact - 4e-7  # another writer's rounding of the same rate
    assert check_receipt_consistency(doc) == []
    doc["metrics"]["exact_rate"] = exact - 2e-6
    assert [p.split(": ")[0] for p in check_receipt_consistency(doc)] == ["$.metrics.exact_rate"]


@pytest.mark.parametrize(("version", "change", "path", "words"), EDITS,
                         ids=[f"{v}-{c.__name__.strip('_')}" for v, c, _, _ in EDITS])
def test_every_rule_on_an_edited_receipt(receipts, tmp_path, capsys, version, change, path,
                                         words):
    doc = _edit(receipts, version, change)
    problems = check_receipt_consistency(doc)
    first = next(p for p in problems if p.startswith(f"{path}: "))
    assert words in first, problems
    assert (path, first.split(": ", 1)[1]) in check_receipt(doc)  # aau-adapters' is the same

    edited = write_json(tmp_path / "edited.json", doc)
    rc, _, err = aau(capsys, "report", edited, "--json")
    assert rc == 2, err
    assert err.startswith(f"aau: error: {edited}: $.") and "inconsistent with its own rows" in err
    if len(problems) > 1:
        assert f"(and {len(problems) - 1} more problem" in err

    rc, out, err = aau(capsys, "schema", "validate", edited, "--json")
    assert rc == 1
    verdict = json.loads(out)["files"][0]
    assert verdict["valid"] is False
    assert [f"{v['path']}: {v['message']}" for v in verdict["violations"]] == problems
    assert f"{edited}: {first}" in err


def test_report_accepts_the_consistent_receipt(receipts, tmp_path, capsys):
    good = write_json(tmp_path / "good.json", receipts["v2"])
    rc, _, err = aau(capsys, "report", good, "--json")
    assert rc in (0, 1), err
    rc, _, err = aau(capsys, "schema", "validate", good)
    assert rc == 0 and "valid receipt-v2" in err


def test_a_2_0_receipt_keeps_1_6_rule_for_negative_checks(receipts):
    """Old receipts stay valid: in 2.0 a crashed unit's negative checks held vacuously."""
    doc = copy.deepcopy(receipts["v2.1"])
    doc["receipt_version"] = "aau-byo-agent-receipt/2.0"
    for key in ("coverage", "retries", "unmeasured_limit"):
        del doc[key]
    for row in doc["results"]:
        if not row.pop("measured"):
            row["no_forbidden_attempt"] = row["no_forbidden_execute"] = True
    doc["metrics"]["no_forbidden_attempt_rate"] = doc["metrics"]["no_forbidden_execute_rate"] = 1.0
    # a 2.0 writer timed every row (2.1 times the measured ones only)
    from aau_core._reports._receipt_consistency import receipt_metric_intervals, receipt_metrics

    doc["metrics"]["mean_latency_s"] = receipt_metrics(doc["results"])["mean_latency_s"]
    doc["metric_ci95"]["mean_latency_s"] = receipt_metric_intervals(
        doc["results"], doc["metrics"])["mean_latency_s"]
    for name in ("no_forbidden_attempt_rate", "no_forbidden_execute_rate"):
        # what a 2.0 writer wrote: the Wilson interval of every scenario passing
        n = doc["metric_ci95"][name]["n"]
        doc["metric_ci95"][name].update(low=round(wilson_interval(n, n)[0], 6), high=1.0)
    bar = doc["fail_under"][0]
    del bar["coverage"], bar["min_coverage"]
    bar.update(value=1.0, passed=True)
    aau_schemas.validate("receipt-v2", doc)
    assert check_receipt_consistency(doc) == []
    assert check_receipt_consistency(receipts["v2.1"]) == []


def test_documents_other_than_receipts_have_no_consistency_problems():
    assert check_receipt_consistency({"suite_version": "aau-byo-agent-suite/1.0"}) == []


def test_pass_metric_is_refused_for_a_receipt_and_outside_0_1(receipts, tmp_path, capsys):
    good = write_json(tmp_path / "good.json", receipts["v2"])
    rc, _, err = aau(capsys, "report", good, "--json", "--pass-metric", "exact_rate=1")
    assert rc == 2 and "--pass-metric judges eval aggregates and lab results only" in err
    lab = Path(__file__).parents[1] / "examples" / "labs"
    result = sorted(lab.glob("*.mock-result/eval_mock.json"))[0]
    for bad in ("decision_gate_exact=2", "decision_gate_exact=-0.1"):
        rc, _, err = aau(capsys, "report", result, "--json", "--pass-metric", bad)
        assert rc == 2 and "the bar must be between 0 and 1" in err, err
