"""docs/runner.md: its Python example runs, and what it writes verifies with `aau results verify`."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import aau_schemas
from _helpers import REPO, aau_script

DOC = REPO / "docs" / "runner.md"


def test_the_runner_doc_example_runs_and_its_aggregate_verifies(tmp_path):
    text = DOC.read_text("utf-8")
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    (tmp_path / "example.py").write_text(code, encoding="utf-8")
    done = subprocess.run([sys.executable, "example.py"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("## Routing\n\nModel: `my-agent` · 20 scenarios × 3 repeats")
    doc = json.loads((tmp_path / "eval_my-agent.json").read_text("utf-8"))
    assert aau_schemas.detect_kind(doc) == "eval-aggregate-v2"
    aau_schemas.validate("eval-aggregate-v2", doc)
    verified = subprocess.run([aau_script(), "results", "verify", "eval_my-agent.json"],
                              cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert verified.returncode == 0, verified.stderr
    assert "eval_my-agent.json: match: 2 metric(s) recomputed from 60 run(s) (wilson)" in (
        verified.stderr)
    assert "| correct | " in done.stdout and "] wilson |" in done.stdout  # the method is named
    assert doc["metric_ci_method"] == {"correct": "wilson", "tool_precision": "bootstrap"}


def test_the_runner_doc_states_both_non_measurement_limits_and_the_compat_promise():
    from aau_core._run._guards import PUBLISH_UNMEASURED_LIMIT, RUN_EVAL_UNMEASURED_LIMIT

    text = " ".join(DOC.read_text("utf-8").split())
    assert (RUN_EVAL_UNMEASURED_LIMIT, PUBLISH_UNMEASURED_LIMIT) == (1.0, 0.5)
    assert "| `run_eval(unmeasured_limit=...)` | **1.0** by default" in text
    assert "| `check_results_are_measurements(results, threshold=...)` | **0.5** by default" in text
    assert "aau-compat keeps aau-harness 1.6's arithmetic byte for byte" in text
    assert "`0.000 [0.000, 0.071] wilson` (low 0, high 0.0713)" in text


def test_the_runner_doc_is_linked_from_the_readme():
    assert "[docs/runner.md](docs/runner.md)" in (REPO / "README.md").read_text("utf-8")


def test_the_runner_doc_says_a_metric_error_keeps_the_results():
    text = " ".join(DOC.read_text("utf-8").split())
    assert "the N finished results are on this error's .results" in text
    assert "aggregate_results(exc.results" in text


def test_the_runner_doc_points_at_files_a_clone_has_and_names_the_real_provenance_keys():
    text = DOC.read_text("utf-8")
    assert "shared/compat" not in text
    assert "`schemas/eval-aggregate/v1/examples/valid/`" in text
    assert len(list((REPO / "schemas/eval-aggregate/v1/examples/valid").glob("*.json"))) == 2
    from aau_core import snapshot

    keys = set(snapshot()) | {"reproducibility_note"}
    for key in keys:
        assert f"`{key}`" in text, key


def test_the_runner_doc_describes_interrupted_as_it_is():
    from aau_core import Interrupted

    assert issubclass(Interrupted, Exception) and not issubclass(Interrupted, KeyboardInterrupt)
    text = " ".join(DOC.read_text("utf-8").split())
    assert "`aau_core.Interrupted`" in text and "**not** a `KeyboardInterrupt`" in text
    assert "`.finished` is a dict mapping unit index" in text


BACKENDS = REPO / "docs" / "backends.md"


def test_the_backends_doc_first_example_runs_as_written(tmp_path):
    code = re.search(r"```python\n(.*?)```", BACKENDS.read_text("utf-8"), re.S).group(1)
    (tmp_path / "example.py").write_text(code, encoding="utf-8")
    done = subprocess.run([sys.executable, "example.py"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("True {'route': 'billing'} None {'model': 'scripted-mock'")


def test_the_backends_doc_sample_pricing_file_validates_and_registers(tmp_path):
    sample = re.search(r"```json\n(.*?)```", BACKENDS.read_text("utf-8"), re.S).group(1)
    path = tmp_path / "my-prices.json"
    path.write_text(sample, encoding="utf-8")
    checked = subprocess.run([aau_script(), "schema", "validate", str(path)],
                             capture_output=True, text=True, timeout=120)
    assert checked.returncode == 0, checked.stderr
    code = ("import sys; from aau_core import CostTracker, register_pricing_file; "
            "register_pricing_file(sys.argv[1]); "
            "t = CostTracker('vendor/new-model'); "
            "t.add_usage({'input_tokens': 10**6, 'output_tokens': 10**6}); "
            "print(t.as_dict()['cost_usd'])")
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "1.0"
