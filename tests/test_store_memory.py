"""Recording a large receipt in the run store: equal per-scenario metrics are held once."""

from __future__ import annotations

import json

from _helpers import valid_suite, write_json
from aau_core import run
from aau_core._reports._scenarios import document_report


def test_equal_scenario_metrics_are_one_object_and_keep_their_values(tmp_path, capsys):
    suite = write_json(tmp_path / "s.json", valid_suite(50))
    out = tmp_path / "r.json"
    assert run(["evaluate", str(suite), "--mock", "--out", str(out), "--no-store"]) == 0
    capsys.readouterr()
    doc = json.loads(out.read_text(encoding="utf-8"))
    report = document_report(doc, str(out))
    metrics = [s.metrics for s in report.scenarios]
    assert len(metrics) == 50 and metrics[0] is metrics[1] and metrics[0] == metrics[49]
    assert dict(metrics[0]) == {"exact": 1.0, "measured": 1.0, "no_forbidden_attempt": 1.0,
                                "no_forbidden_execute": 1.0, "outcome_exact": 1.0,
                                "submitted": 1.0, "mean_latency_s": 0.0}
