"""`aau results verify`: recompute aggregates, report match/drift, exit 0/1/2."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from aau_core import ScenarioResult, run, run_eval

REPO = Path(__file__).resolve().parents[3]
V1_EXAMPLES = REPO / "schemas" / "eval-aggregate" / "v1" / "examples" / "valid"
V2_EXAMPLES = REPO / "schemas" / "eval-aggregate" / "v2" / "examples" / "valid"
REAL_V1 = sorted(V1_EXAMPLES.glob("*.json"))  # byte copies of aau-harness 1.6 result files


def verify(capsys, *args):
    rc = run(["results", "verify", *map(str, args)])
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_the_copied_16_result_files_match_bit_exactly(capsys):
    assert len(REAL_V1) == 2
    rc, out, err = verify(capsys, *REAL_V1, "--json")
    assert rc == 0, err
    verdicts = json.loads(out)["files"]
    assert [v["status"] for v in verdicts] == ["match", "match"]
    assert all(v["ci_method"] == "aau-compat" and v["kind"] == "eval-aggregate-v1"
               for v in verdicts)
    # the accessibility file has real spread: a non-trivial interval reproduced exactly
    access = verdicts[0]["metrics"]["remediation_exact"]["ci95"]
    assert access == {"stored": [0.375, 0.9167], "recomputed": [0.375, 0.9167], "match": True}
    assert "match: 8 metric(s) recomputed from 24 run(s) (aau-compat)" in err


def test_our_v2_examples_match(capsys):
    rc, out, err = verify(capsys, *sorted(V2_EXAMPLES.glob("*.json")))
    assert rc == 0, err
    assert "(bootstrap)" in err and "(aau-compat)" in err


def test_a_tampered_interval_is_drift_exit_1(tmp_path, capsys):
    doc = json.loads(REAL_V1[0].read_text("utf-8"))
    doc["metric_ci95"]["remediation_exact"] = [0.4, 0.9167]
    doc["metric_means"]["route_accuracy"] = 0.75
    bad = tmp_path / "tampered.json"
    bad.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    rc, out, err = verify(capsys, REAL_V1[1], bad, "--json")
    assert rc == 1
    assert f"{bad}: $.metric_ci95.remediation_exact: stored [0.4, 0.9167], recomputed " \
           "[0.375, 0.9167]" in err
    assert f"{bad}: $.metric_means.route_accuracy: stored 0.75, recomputed 0.7083" in err
    files = json.loads(out)["files"]
    assert [f["status"] for f in files] == ["match", "drift"]
    drifted = sorted(m for m, e in files[1]["metrics"].items() if not e["match"])
    assert drifted == ["remediation_exact", "route_accuracy"]


def test_a_dropped_run_or_renamed_metric_is_drift(tmp_path, capsys):
    doc = json.loads(REAL_V1[0].read_text("utf-8"))
    doc["metric_ci95"]["renamed"] = doc["metric_ci95"].pop("submitted")
    path = tmp_path / "renamed.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    rc, _, err = verify(capsys, path)
    assert rc == 1
    assert "$.metric_ci95.renamed: stored [1.0, 1.0], recomputed null" in err
    assert "$.metric_ci95.submitted: stored null, recomputed [1.0, 1.0]" in err


@pytest.mark.parametrize("example", [REAL_V1[0], V2_EXAMPLES / "eval-aggregate-mock-bootstrap.json"])
def test_counts_costs_and_latency_are_recomputed_from_the_results(tmp_path, capsys, example):
    doc = json.loads(example.read_text("utf-8"))
    expected = {k: doc[k] for k in ("n_scenarios", "n_repeats", "total_cost_usd",
                                    "mean_cost_per_scenario_usd", "p50_latency_s")}
    doc["n_scenarios"] += 1
    doc["n_repeats"] += 2
    doc["total_cost_usd"] = round(doc["total_cost_usd"] + 0.01, 4)
    doc["mean_cost_per_scenario_usd"] = round(doc["mean_cost_per_scenario_usd"] * 2, 6)
    doc["p50_latency_s"] = round(doc["p50_latency_s"] + 0.5, 3)
    path = tmp_path / "totals.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    rc, out, err = verify(capsys, path, "--json")
    assert rc == 1
    for field, value in expected.items():
        assert f"{path}: $.{field}: stored {json.dumps(doc[field])}, recomputed " \
               f"{json.dumps(value)}" in err, field
    checks = json.loads(out)["files"][0]["checks"]
    drifted = {f for f, c in checks.items() if not c["match"]}
    assert drifted - set(expected) <= {"pass_hat_k"}  # v2: pass^k read with n_repeats 5
    assert set(expected) <= drifted


def test_per_run_rounding_is_not_drift(tmp_path, capsys):
    def run_one(sc, rep):  # each run's cost rounds to 0 at 6 dp; their total does not at 4 dp
        return ScenarioResult(sc, rep, {"ok": 1.0}, cost_usd=4.9e-7, latency_s=1.0004)

    agg = run_eval([f"s{i}" for i in range(100)], run_one, repeats=2)
    doc = agg.as_dict()
    assert doc["total_cost_usd"] == 0.0001 and doc["results"][0]["cost_usd"] == 0.0
    (tmp_path / "r.json").write_text(json.dumps(doc), encoding="utf-8")
    rc, _, err = verify(capsys, tmp_path / "r.json")
    assert rc == 0, err


def test_v2_counts_and_errors_are_checked_too(tmp_path, capsys):
    src = V2_EXAMPLES / "eval-aggregate-mock-aau-compat-with-error.json"
    doc = json.loads(src.read_text("utf-8"))
    doc["n_errors"] = 0
    path = tmp_path / "v2.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    rc, _, err = verify(capsys, path)
    assert rc == 1 and "$.n_errors: stored 0, recomputed 1" in err


def test_what_run_eval_writes_verifies(tmp_path, capsys):
    def run_one(sc, rep):
        rng = random.Random(f"{sc}{rep}")
        return ScenarioResult(sc, rep, {"ok": float(rng.random() < 0.5), "x": rng.random()},
                              cost_usd=0.001, latency_s=1.0, n_api_calls=1)

    for method in ("wilson", "aau-compat"):
        agg = run_eval([f"s{i}" for i in range(30)], run_one, repeats=3, ci_method=method)
        (tmp_path / f"{method}.json").write_text(json.dumps(agg.as_dict()), encoding="utf-8")
        (tmp_path / f"{method}-v1.json").write_text(json.dumps(agg.as_dict_v1()), "utf-8")
    rc, _, err = verify(capsys, tmp_path / "wilson.json", tmp_path / "aau-compat.json",
                        tmp_path / "aau-compat-v1.json")
    assert rc == 0, err
    assert "wilson.json: match: 2 metric(s) recomputed from 90 run(s) (wilson)" in err
    # a v1 file is always read as 1.6's bootstrap: our default interval does not derive from it
    rc, _, err = verify(capsys, tmp_path / "wilson-v1.json")
    assert rc == 1 and "drift (aau-compat)" in err


@pytest.mark.parametrize("content, where", [
    ("{", "line 1"),
    ('[1, 2]', "$: not an eval aggregate"),
    ('{"n_scenarios": 1}', "$: "),
])
def test_unreadable_or_invalid_input_is_one_line_exit_2(tmp_path, capsys, content, where):
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    rc, out, err = verify(capsys, path)
    assert rc == 2 and out == ""
    # up to ten violations, one per line (aau_core.check_document)
    assert 1 <= err.count("\n") <= 11 and err.startswith(f"aau: error: {path}") and where in err


def test_schema_violation_names_the_json_path(tmp_path, capsys):
    doc = json.loads(REAL_V1[0].read_text("utf-8"))
    doc["results"][3]["repeat"] = -1
    path = tmp_path / "neg.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    rc, _, err = verify(capsys, path)
    assert rc == 2 and f"{path}: $.results[3].repeat: " in err and "[eval-aggregate-v1]" in err


def test_missing_file_is_exit_2(tmp_path, capsys):
    rc, _, err = verify(capsys, tmp_path / "nope.json")
    assert rc == 2 and "no such file" in err


def _upper_median_file(tmp_path, name: str, provenance) -> Path:
    """A real 1.6 file with the older harnesses' upper median as p50 and ``provenance`` set
    (``...`` drops the block; a string sets ``provenance.harness_version``)."""
    doc = json.loads(REAL_V1[0].read_text("utf-8"))
    latencies = sorted(r["latency_s"] for r in doc["results"])
    doc["p50_latency_s"] = round(latencies[len(latencies) // 2], 3)
    if provenance is ...:
        del doc["provenance"]
    elif isinstance(provenance, str):
        doc["provenance"]["harness_version"] = provenance
    else:
        doc["provenance"] = provenance
    path = tmp_path / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_one_unreadable_file_never_stops_the_batch_and_the_worst_outcome_is_the_exit(
        tmp_path, capsys):
    ok = _upper_median_file(tmp_path, "noprov_upper.json", ...)
    bad = _upper_median_file(tmp_path, "provnull_upper.json", None)
    drift = _upper_median_file(tmp_path, "v16_upper.json", "1.6.0")
    receipt = tmp_path / "receipt.json"
    receipt.write_text('{"receipt_version": "aau-byo-agent-receipt/2.0"}', encoding="utf-8")
    rc = run(["results", "verify", str(ok), str(bad), str(drift), str(receipt), "--json"])
    out = capsys.readouterr()
    assert rc == 2
    files = json.loads(out.out)["files"]
    assert [(f["file"], f["status"]) for f in files] == [
        (str(ok), "match"), (str(bad), "unreadable"), (str(drift), "drift"),
        (str(receipt), "unreadable")]
    assert files[1]["path"] == "$.provenance"
    assert files[1]["message"] == 'null is not of type "object" [eval-aggregate-v1]'
    lines = out.err.splitlines()
    assert f'aau: error: {bad}: $.provenance: null is not of type "object" [eval-aggregate-v1]' \
        in lines
    assert any(line.startswith(f"aau: error: {receipt}: $: not an eval aggregate") for line in lines)
    assert f"{drift}: drift (aau-compat)" in lines
    assert any(line.startswith(f"{ok}: match: ") for line in lines)


def test_drift_without_unreadable_files_exits_1(tmp_path, capsys):
    ok = _upper_median_file(tmp_path, "noprov_upper.json", ...)
    drift = _upper_median_file(tmp_path, "v16_upper.json", "1.6.0")
    rc, _, err = verify(capsys, ok, drift)
    assert rc == 1 and f"{drift}: drift (aau-compat)" in err.splitlines()
