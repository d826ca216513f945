"""`aau report` and `aau results verify` read `aau lab run`'s own result file (kind lab-result),
and name the kind of a document given to the wrong command."""

from __future__ import annotations

import copy
import json

import pytest
from _helpers import EXAMPLE_SUITE, REPO, write_json
from aau_core import run

LAB_RESULTS = sorted((REPO / "examples" / "labs").glob("*.mock-result/eval_mock.json"))


def aau(capsys, *args: object) -> tuple[int, str, str]:
    rc = run([str(a) for a in args])
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


@pytest.mark.parametrize("result", LAB_RESULTS, ids=[p.parent.name for p in LAB_RESULTS])
def test_results_verify_and_report_read_a_lab_result(result, capsys, tmp_path):
    assert LAB_RESULTS
    rc, out, err = aau(capsys, "results", "verify", result, "--json")
    assert rc == 0, err
    assert json.loads(out)["files"][0]["status"] == "match"
    rc, out, err = aau(capsys, "report", result, "--json", "--junit", tmp_path / "j.xml")
    assert rc in (0, 1), err
    doc = json.loads(out)
    assert "lab-result" in err and (tmp_path / "j.xml").is_file()
    aggregate = json.loads(result.read_text())["aggregate"]
    assert doc  # the report is the aggregate's scenarios
    assert f"/{len({r['scenario_id'] for r in aggregate['results']})} scenarios" in err
    lab = json.loads(result.read_text())["lab"]
    suite = f"{lab}/{aggregate['backend']}/{aggregate['model']}"  # the lab first
    assert f'classname="{suite}"' in (tmp_path / "j.xml").read_text()


def test_results_verify_reports_drift_in_a_lab_result_under_aggregate(capsys, tmp_path):
    doc = json.loads(LAB_RESULTS[0].read_text())
    edited = copy.deepcopy(doc)
    edited["aggregate"]["n_scenarios"] += 1
    path = write_json(tmp_path / "eval_mock.json", edited)
    rc, _, err = aau(capsys, "results", "verify", path)
    assert rc == 1 and f"{path}: $.aggregate.n_scenarios: stored" in err


def test_results_verify_names_a_receipt_and_the_commands_that_read_it(capsys, tmp_path):
    receipt = tmp_path / "receipt.json"
    assert run(["evaluate", str(EXAMPLE_SUITE), "--mock", "--out", str(receipt)]) in (0, 1)
    capsys.readouterr()
    rc, _, err = aau(capsys, "results", "verify", receipt)
    assert rc == 2
    assert err.strip() == (f"aau: error: {receipt}: $: not an eval aggregate: this is a "
                           "receipt-v2 (aau evaluate's receipt; use aau report / aau schema "
                           "validate)")
    rc, _, err = aau(capsys, "report", EXAMPLE_SUITE, "--json")
    assert rc == 2 and "this is a suite (an aau evaluate suite" in err
