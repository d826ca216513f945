"""``aau_core._run._verify.verify_result_files``: results verification as a Python API (no CLI)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from aau_core._run._verify import verify_result_files

REPO = Path(__file__).resolve().parents[3]
EXAMPLES = sorted(REPO.glob("schemas/eval-aggregate/v*/examples/valid/*.json"))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_valid_example_aggregate_recomputes_exactly(path):
    [verdict] = verify_result_files([str(path)])
    assert verdict["status"] == "match", verdict
    assert verdict["root"] == "$" and verdict["n_results"] > 0
    assert all(e["mean"]["match"] and e["ci95"]["match"] for e in verdict["metrics"].values())


def test_an_edited_mean_is_drift_naming_the_metric(tmp_path):
    doc = json.loads(EXAMPLES[-1].read_text(encoding="utf-8"))
    metric = sorted(doc["metric_means"])[0]
    doc["metric_means"][metric] = round(min(1.0, doc["metric_means"][metric] + 0.25), 4)
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(doc), encoding="utf-8")
    [verdict] = verify_result_files([str(edited)])
    assert verdict["status"] == "drift"
    assert not verdict["metrics"][metric]["mean"]["match"]
    assert verdict["metrics"][metric]["mean"]["stored"] == doc["metric_means"][metric]


def test_one_bad_file_gets_its_own_verdict_and_never_stops_the_rest(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"receipt_version": "aau-byo-agent-receipt/2.0"}', encoding="utf-8")
    first, unreadable, last = verify_result_files([str(EXAMPLES[0]), str(bad), str(EXAMPLES[-1])])
    assert first["status"] == last["status"] == "match"
    assert (first["file"], last["file"]) == (str(EXAMPLES[0]), str(EXAMPLES[-1]))
    assert unreadable["status"] == "unreadable" and unreadable["file"] == str(bad)
    assert unreadable["path"] == "$" and "receipt-v2" in unreadable["message"]
    assert unreadable["lines"] == [f"{bad}: $: {unreadable['message']}"]
