"""aau-harness 1.6's committed result files: they validate, our copies are byte-identical, and
`aau results verify` recomputes their means and intervals bit for bit."""

from __future__ import annotations

import json
import subprocess

import aau_schemas
import pytest
from _helpers import REPO, SHARED, SHARED_MISSING, aau_script

RESULTS_16 = SHARED / "compat" / "aau-1.6" / "results"
EXAMPLES = REPO / "schemas" / "eval-aggregate" / "v1" / "examples" / "valid"
COPIES = {
    "eval-aggregate-accessibility-remediation-verifier.mistral-small-latest.json":
        "accessibility-digital-services__accessibility-remediation-verifier__eval_mistral-small-"
        "latest.json",
    "eval-aggregate-foia-routing-appeal-navigator.deepseek-v4-flash.json":
        "government-transparency__foia-routing-appeal-navigator__eval_deepseek-v4-flash.json",
}
needs_shared = pytest.mark.skipif(not RESULTS_16.is_dir(), reason=SHARED_MISSING)


@needs_shared
def test_schema_examples_are_byte_copies_of_the_16_result_files():
    assert sorted(p.name for p in RESULTS_16.glob("*.json")) == sorted(COPIES.values())
    for ours, theirs in COPIES.items():
        assert (EXAMPLES / ours).read_bytes() == (RESULTS_16 / theirs).read_bytes(), ours


@needs_shared
def test_every_16_result_file_validates_as_eval_aggregate_v1():
    for path in sorted(RESULTS_16.glob("*.json")):
        doc = json.loads(path.read_text("utf-8"))
        assert aau_schemas.detect_kind(doc) is None  # 1.x aggregates carry no version field
        aau_schemas.validate("eval-aggregate-v1", doc, source=path.name)


@needs_shared
def test_aau_results_verify_matches_the_16_files_bit_exactly():
    files = sorted(RESULTS_16.glob("*.json"))
    done = subprocess.run([aau_script(), "results", "verify", "--json", *map(str, files)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    verdicts = json.loads(done.stdout)["files"]
    assert len(verdicts) == 2 and all(v["status"] == "match" for v in verdicts)
    for v, path in zip(verdicts, files, strict=True):
        doc = json.loads(path.read_text("utf-8"))
        assert set(v["metrics"]) == set(doc["metric_ci95"])
        for name, entry in v["metrics"].items():
            assert entry["ci95"]["recomputed"] == doc["metric_ci95"][name]
            assert entry["mean"]["recomputed"] == doc["metric_means"][name]


@needs_shared
def test_a_tampered_16_file_drifts_with_exit_1(tmp_path):
    src = RESULTS_16 / COPIES["eval-aggregate-accessibility-remediation-verifier.mistral-small-"
                              "latest.json"]
    doc = json.loads(src.read_text("utf-8"))
    doc["results"] = [r for r in doc["results"] if not (r["scenario_id"] == "access-001")]
    doc["n_scenarios"] = 7
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    done = subprocess.run([aau_script(), "results", "verify", str(path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    assert f"{path}: drift (aau-compat)" in done.stderr
