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
    assert "eval_my-agent.json: match: 2 metric(s) recomputed from 60 run(s) (bootstrap)" in (
        verified.stderr)


def test_the_runner_doc_is_linked_from_the_readme():
    assert "[docs/runner.md](docs/runner.md)" in (REPO / "README.md").read_text("utf-8")


def test_the_runner_doc_says_a_metric_error_keeps_the_results():
    text = " ".join(DOC.read_text("utf-8").split())
    assert "the N finished results are on this error's .results" in text
    assert "aggregate_results(exc.results" in text
