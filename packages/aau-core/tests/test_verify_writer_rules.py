"""`aau results verify` reads an old result file as its writer meant it (``_run/_writer_rules``).

Older aau-harness versions stored ``p50_latency_s`` as the upper median
``sorted(latencies)[n // 2]``; 1.6 (and aau) store ``statistics.median``. Every file here is
built from a real aau-harness result file (the byte copies in the v1 schema examples) by
recomputing from its own runs, never by typing a number in.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest
from aau_core import ScenarioResult, aggregate_results, run, run_eval
from aau_core._run._writer_rules import MEDIAN, UPPER_MEDIAN, read_writer_version, writer_major

REPO = Path(__file__).resolve().parents[3]
V1 = REPO / "schemas" / "eval-aggregate" / "v1" / "examples" / "valid"
ACCESS = V1 / "eval-aggregate-accessibility-remediation-verifier.mistral-small-latest.json"
FOIA = V1 / "eval-aggregate-foia-routing-appeal-navigator.deepseek-v4-flash.json"
V2_BOOTSTRAP = (REPO / "schemas" / "eval-aggregate" / "v2" / "examples" / "valid"
                / "eval-aggregate-mock-bootstrap.json")
UPPER = "p50_latency_s: upper-median (aau-harness < 1.x rule)"


def upper_median(doc: dict) -> float:
    latencies = sorted(r["latency_s"] for r in doc["results"])
    return round(latencies[len(latencies) // 2], 3)


def old_file(src: Path, harness_version: str | None = None) -> dict:
    """``src`` as an older harness wrote it: the upper median as p50, and no provenance block
    (files from before it) or one naming ``harness_version``."""
    doc = json.loads(src.read_text("utf-8"))
    if harness_version is None:
        del doc["provenance"]
    else:
        doc["provenance"]["harness_version"] = harness_version
    doc["p50_latency_s"] = upper_median(doc)
    return doc


def without_scenario(doc: dict, scenario_id: str) -> dict:
    """``doc`` with every run of one scenario dropped and its aggregate recomputed as
    aau-harness 1.6 does (aau-compat, bit for bit), p50 by 1.6's median."""
    rows = [r for r in doc["results"] if r["scenario_id"] != scenario_id]
    results = [ScenarioResult(r["scenario_id"], r["repeat"], r["metrics"], r["cost_usd"],
                              r["latency_s"]) for r in rows]
    names = sorted({m for r in rows for m in r["metrics"]})
    fresh = aggregate_results(results, doc["n_repeats"], ci_method="aau-compat",
                              optional_metrics=names).as_dict_v1()
    keep = ("n_scenarios", "metric_means", "metric_ci95", "mean_cost_per_scenario_usd",
            "total_cost_usd", "p50_latency_s")
    return {**doc, **{k: fresh[k] for k in keep}, "results": rows}


def verify(tmp_path, capsys, doc: dict, name: str = "eval_old.json"):
    path = tmp_path / name
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    rc = run(["results", "verify", str(path), "--json"])
    out = capsys.readouterr()
    [verdict] = json.loads(out.out)["files"]
    return rc, verdict, out.err, path


def test_the_two_rules_differ_on_the_real_files():
    # even run counts (24 each) whose two middle latencies differ: the rules disagree
    for src, median, upper in ((ACCESS, 6.369, 6.376), (FOIA, 10.831, 11.123)):
        doc = json.loads(src.read_text("utf-8"))
        assert len(doc["results"]) == 24 and doc["p50_latency_s"] == median  # 1.6's rule
        assert upper_median(doc) == upper
        latencies = [r["latency_s"] for r in doc["results"]]
        assert round(MEDIAN.compute(latencies)[0], 3) == median
        assert UPPER_MEDIAN.compute(latencies) == (upper, 0.0)


@pytest.mark.parametrize("src, n_metrics, upper", [(ACCESS, 8, 6.376), (FOIA, 12, 11.123)])
def test_a_file_without_provenance_and_the_upper_median_matches_naming_the_rule(
        tmp_path, capsys, src, n_metrics, upper):
    rc, verdict, err, path = verify(tmp_path, capsys, old_file(src))
    assert rc == 0, err
    assert err == (f"{path}: match: {n_metrics} metric(s) recomputed from 24 run(s) "
                   f"(aau-compat); {UPPER}\n")
    assert verdict["status"] == "match" and verdict["harness_version"] is None
    assert verdict["older_rules"] == {"p50_latency_s": "upper-median (aau-harness < 1.x rule)"}
    p50 = verdict["checks"]["p50_latency_s"]
    assert p50["stored"] == upper and p50["recomputed"] == upper
    assert p50["match"] is True and p50["rule"] == "upper-median"
    assert p50["rules"]["upper-median"] == {"recomputed": upper, "match": True, "allowed": True}
    assert p50["rules"]["median"]["match"] is False and p50["rules"]["median"]["allowed"]


def test_an_odd_run_count_gives_one_value_and_names_the_current_rule(tmp_path, capsys):
    doc = without_scenario(json.loads(ACCESS.read_text("utf-8")), "access-007")
    latencies = sorted(r["latency_s"] for r in doc["results"])
    assert len(latencies) == 21
    assert upper_median(doc) == round(statistics.median(latencies), 3) == doc["p50_latency_s"]
    del doc["provenance"]
    rc, verdict, err, path = verify(tmp_path, capsys, doc)
    assert rc == 0, err
    assert err == f"{path}: match: 8 metric(s) recomputed from 21 run(s) (aau-compat)\n"
    p50 = verdict["checks"]["p50_latency_s"]
    assert p50["rule"] == "median" and verdict["older_rules"] == {}
    assert all(r["match"] for r in p50["rules"].values())


@pytest.mark.parametrize("version", ["0.1.0", "unknown"])
def test_a_pre_1_0_or_unknown_writer_may_have_used_either_rule(tmp_path, capsys, version):
    rc, verdict, err, _ = verify(tmp_path, capsys, old_file(ACCESS, version))
    assert rc == 0, err
    assert verdict["harness_version"] == version and err.endswith(f"(aau-compat); {UPPER}\n")
    # and the same file as 1.6 wrote it (the real one, 0.1.0) still matches, by the median
    rc, verdict, err, _ = verify(tmp_path, capsys, json.loads(ACCESS.read_text("utf-8")))
    assert rc == 0 and verdict["checks"]["p50_latency_s"]["rule"] == "median"


@pytest.mark.parametrize("version", ["1.6.0", "1.0.0"])
def test_a_file_that_says_1_x_wrote_it_must_match_the_median(tmp_path, capsys, version):
    rc, verdict, err, path = verify(tmp_path, capsys, old_file(ACCESS, version))
    assert rc == 1
    assert err == (f"{path}: drift (aau-compat)\n"
                   f"{path}: $.p50_latency_s: stored 6.376, recomputed 6.369 (median); the "
                   f"stored value is upper-median's, a rule harness_version {version} (this "
                   "file's writer) did not use\n")
    p50 = verdict["checks"]["p50_latency_s"]
    assert p50["match"] is False and p50["rule"] is None and p50["recomputed"] == 6.369
    assert p50["rules"]["upper-median"] == {"recomputed": 6.376, "match": True,
                                            "allowed": False}
    # every other number still derives: the one drifted check is p50
    assert [f for f, c in verdict["checks"].items() if not c["match"]] == ["p50_latency_s"]


@pytest.mark.parametrize("offset", [0.001, -0.001, 0.05])
def test_a_p50_that_neither_rule_gives_is_drift(tmp_path, capsys, offset):
    doc = old_file(ACCESS)  # no version: both rules allowed
    doc["p50_latency_s"] = round(doc["p50_latency_s"] + offset, 3)  # 6.377, 6.375, 6.426
    rc, verdict, err, path = verify(tmp_path, capsys, doc)
    assert rc == 1
    assert (f"{path}: $.p50_latency_s: stored {doc['p50_latency_s']}, recomputed 6.369 "
            "(median) or 6.376 (upper-median)\n") in err
    assert verdict["checks"]["p50_latency_s"]["rule"] is None
    assert verdict["older_rules"] == {}


@pytest.mark.parametrize("field, value, line", [
    ("metric_means", ("route_accuracy", 0.75), "$.metric_means.route_accuracy: stored 0.75, "
                                               "recomputed 0.7083"),
    ("metric_ci95", ("remediation_exact", [0.4, 0.9167]),
     "$.metric_ci95.remediation_exact: stored [0.4, 0.9167], recomputed [0.375, 0.9167]"),
    ("total_cost_usd", None, "$.total_cost_usd: stored "),
])
def test_an_edited_number_fails_even_when_p50_matches_the_old_rule(tmp_path, capsys, field,
                                                                   value, line):
    doc = old_file(ACCESS)
    if value is None:
        doc[field] = round(doc[field] + 0.01, 4)
    else:
        doc[field][value[0]] = value[1]
    rc, verdict, err, path = verify(tmp_path, capsys, doc)
    assert rc == 1 and verdict["status"] == "drift"
    assert err.startswith(f"{path}: drift (aau-compat); {UPPER}\n")
    assert f"{path}: {line}" in err
    assert verdict["checks"]["p50_latency_s"]["rule"] == "upper-median"


def test_files_aau_wrote_must_match_its_own_median(tmp_path, capsys):
    doc = json.loads(V2_BOOTSTRAP.read_text("utf-8"))
    assert doc["p50_latency_s"] == 2.625
    doc["p50_latency_s"] = upper_median(doc)
    rc, verdict, err, path = verify(tmp_path, capsys, doc)
    assert rc == 1 and doc["p50_latency_s"] == 2.75
    assert (f"{path}: $.p50_latency_s: stored 2.75, recomputed 2.625 (median); the stored "
            f"value is upper-median's, a rule harness_version {doc['provenance']['harness_version']}"
            " (this file's writer) did not use\n") in err
    assert verdict["checks"]["p50_latency_s"]["rules"]["upper-median"]["allowed"] is False

    # aau's own 1.x-shape file names aau's version (2.x): the median only
    def run_one(sc, rep):
        return ScenarioResult(sc, rep, {"ok": 1.0}, latency_s=float(sc[1:]))

    v1 = run_eval([f"s{i}" for i in range(4)], run_one, repeats=1,
                  ci_method="aau-compat").as_dict_v1()
    assert v1["p50_latency_s"] == 1.5
    v1["p50_latency_s"] = upper_median(v1)
    rc, verdict, _, _ = verify(tmp_path, capsys, v1, "aau-v1.json")
    assert rc == 1 and v1["p50_latency_s"] == 2.0
    assert writer_major(v1, aau_format=False) >= 1  # 2.0.0.dev0 precedes 2.0: a 1.x-or-later writer


@pytest.mark.parametrize("provenance, aau_format, major", [
    ({"harness_version": "1.6.0"}, False, 1),
    ({"harness_version": "0.1.0"}, False, 0),
    # a development release of 2.0 precedes 2.0 (PEP 440): still a 1.0-or-later writer
    ({"harness_version": "2.0.0.dev0"}, False, 1),
    ({"harness_version": "1.0.0rc1"}, False, 0),
    ({"harness_version": "1.0.0.dev0"}, False, 0),
    ({"harness_version": "1.0.0a1"}, False, 0),
    ({"harness_version": "1.0.0"}, False, 1),
    ({"harness_version": "1.0.1rc1"}, False, 1),
    ({"harness_version": "1.6.0.post1"}, False, 1),
    ({"harness_version": "v1.2.0"}, False, 1),
    ({"harness_version": "V0.9.3"}, False, 0),
    ({"harness_version": "10.0"}, False, 10),
    ({"harness_version": "unknown"}, False, None),
    ({"harness_version": "0+unknown"}, False, None),
    ({"harness_version": "banana"}, False, None),
    (None, False, None),
    (None, True, 2),
])
def test_writer_major(provenance, aau_format, major):
    doc = {} if provenance is None else {"provenance": provenance}
    assert writer_major(doc, aau_format=aau_format) == major


def test_which_writers_each_rule_allows():
    assert [UPPER_MEDIAN.allowed_for(m) for m in (None, 0, 1, 2)] == [True, True, False, False]
    assert [MEDIAN.allowed_for(m) for m in (None, 0, 1, 2)] == [True, True, True, True]


@pytest.mark.parametrize("version, note", [
    ("1.6.0", None),
    ("v1.2.0", None),
    ("unknown", None),
    ("1.0.0rc1", "harness_version 1.0.0rc1 precedes 1.0 (PEP 440): read as a 0.x writer"),
    ("banana", 'harness_version "banana" is not a PEP 440 version: writer unknown, '
               "either rule allowed"),
])
def test_how_a_harness_version_was_read_is_noted(version, note):
    doc = {"provenance": {"harness_version": version}}
    assert read_writer_version(doc, aau_format=False)[1] == note
    assert read_writer_version(doc, aau_format=True) == (2, None)


@pytest.mark.parametrize("version", ["1.0.0rc1", "1.0.0.dev0"])
def test_a_pre_release_of_1_0_may_have_used_the_upper_median(tmp_path, capsys, version):
    rc, verdict, err, path = verify(tmp_path, capsys, old_file(ACCESS, version))
    assert rc == 0, err
    assert err == (f"{path}: match: 8 metric(s) recomputed from 24 run(s) (aau-compat); {UPPER}; "
                   f"harness_version {version} precedes 1.0 (PEP 440): read as a 0.x writer\n")
    assert verdict["checks"]["p50_latency_s"]["rule"] == "upper-median"


def test_a_leading_v_is_dropped_so_v1_2_0_must_match_the_median(tmp_path, capsys):
    rc, verdict, err, path = verify(tmp_path, capsys, old_file(ACCESS, "v1.2.0"))
    assert rc == 1
    assert verdict["writer_note"] is None
    assert f"{path}: $.p50_latency_s: stored 6.376, recomputed 6.369 (median)" in err


def test_a_version_that_is_not_pep_440_allows_either_rule_and_says_so(tmp_path, capsys):
    rc, verdict, err, path = verify(tmp_path, capsys, old_file(ACCESS, "banana"))
    assert rc == 0, err
    assert err.endswith(f'(aau-compat); {UPPER}; harness_version "banana" is not a PEP 440 '
                        "version: writer unknown, either rule allowed\n")
    assert verdict["writer_note"].startswith('harness_version "banana"')
