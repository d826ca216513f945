"""A stored run's units that were not measured, as ``aau runs show`` and ``aau runs compare``
see them (run-show 1.1, run-compare 1.1).

Real runs: the example suite against the example command agent, behind a wrapper that crashes
on the scenarios a test names (``adapter-exit-3``: not measured). Run A crashes on ``psr-002``;
run B measures every unit. Before 1.1, ``runs show`` left the crashed scenario's failure codes
blank and ``runs compare`` counted its zeros as a fail -> pass flip and in every difference.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import aau_schemas
import pytest
from aau_core import EXIT_NOT_MEASURED, run

REPO = Path(__file__).resolve().parents[1]
SUITE = REPO / "examples" / "suites" / "public-service-routing.json"
AGENT = REPO / "examples" / "agents" / "command_agent.py"


def _aau(capsys, *args: object) -> tuple[int, str, str]:
    rc = run([str(a) for a in args])
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


@pytest.fixture
def record(tmp_path, capsys):
    """``record(crash=(...), repeats=1, once=False)``: evaluate the example suite with the
    example agent, crashing on the scenario ids in ``crash`` (with ``once``, on the first
    request of each only), into this test's run store; returns the run id (str)."""
    store = tmp_path / "runs.sqlite"
    wrapper = tmp_path / "crashing_agent.py"
    wrapper.write_text(
        "import json, os, subprocess, sys\n"
        "line = sys.stdin.buffer.readline()\n"
        "sid = json.loads(line)['scenario_id']\n"
        "if sid in sys.argv[3:]:\n"
        "    marker = os.path.join(sys.argv[2], sid) if sys.argv[2] != '-' else None\n"
        "    if marker is None or not os.path.exists(marker):\n"
        "        if marker is not None:\n"
        "            open(marker, 'w').close()\n"
        "        sys.exit(3)\n"
        "done = subprocess.run([sys.executable, sys.argv[1]], input=line, capture_output=True)\n"
        "sys.stdout.buffer.write(done.stdout)\n", encoding="utf-8")
    made: list[str] = []

    def evaluate(crash: tuple[str, ...] = (), repeats: int = 1, once: bool = False) -> str:
        out = tmp_path / f"r{len(made)}.json"
        markers = tmp_path / f"markers{len(made)}"
        markers.mkdir()
        command = shlex.join([sys.executable, str(wrapper), str(AGENT),
                              str(markers) if once else "-", *crash])
        rc, _, err = _aau(capsys, "evaluate", SUITE, "--command", command, "--out", out,
                          "--store", store, "--repeats", repeats)
        assert rc == 0, err
        made.append(str(len(made) + 1))
        return made[-1]

    evaluate.store = store  # type: ignore[attr-defined]
    return evaluate


def test_runs_list_says_how_many_units_were_not_measured(record, capsys):
    run_a, run_b = record(crash=("psr-002", "psr-005")), record()
    rc, out, _ = _aau(capsys, "runs", "list", "--store", record.store)
    assert rc == 0
    rows = {line.split(" | ")[0].strip("| "): line for line in out.splitlines()[2:]}
    assert " | 5/8 (2 unit(s) not measured) | " in rows[run_a]  # the agent misses one itself
    assert "not measured" not in rows[run_b]


def test_runs_show_names_the_units_that_were_not_measured(record, capsys):
    run_a = record(crash=("psr-002",))
    rc, out, _ = _aau(capsys, "runs", "show", run_a, "--store", record.store)
    assert rc == 0
    assert "| psr-002 | FAIL | 0/1 (1 not measured) | adapter-exit-3 (not measured) |" in out
    rc, out, _ = _aau(capsys, "runs", "show", run_a, "--store", record.store, "--json")
    shown = json.loads(out)
    aau_schemas.validate("run-show", shown)
    by_id = {s["scenario_id"]: s for s in shown["scenarios"]}
    assert (by_id["psr-002"]["errored_runs"], by_id["psr-002"]["errors"]) == (1, ["adapter-exit-3"])
    assert by_id["psr-002"]["failure_codes"] == {}
    assert all((s["errored_runs"], s["errors"]) == (0, []) for sid, s in by_id.items()
               if sid != "psr-002")


def test_runs_compare_leaves_out_a_scenario_not_measured_in_one_run(record, capsys):
    run_a, run_b = record(crash=("psr-002",)), record()
    rc, out, _ = _aau(capsys, "runs", "compare", run_a, run_b, "--store", record.store,
                      "--json")
    assert rc == 0
    result = json.loads(out)
    aau_schemas.validate("run-compare", result)
    assert result["shared"] == 8 and result["not_measured"] == ["psr-002"]
    assert "psr-002" not in result["fail_to_pass"] + result["pass_to_fail"]
    exact = next(m for m in result["metrics"] if m["name"] == "exact")
    # the same agent on the 7 scenarios both runs measured: nothing changed
    assert (exact["n"], exact["diff"], exact["low"], exact["high"]) == (7, 0.0, 0.0, 0.0)
    rc, out, _ = _aau(capsys, "runs", "compare", run_a, run_b, "--store", record.store)
    assert (f"not measured in full in run {run_a} or run {run_b} (--resume measures the rest), "
            "left out of the differences and the flips (1): psr-002") in out
    assert "fail -> pass (0): none" in out and "| exact | 7 |" in out


def test_runs_compare_refuses_runs_with_no_scenario_measured_in_both(record, capsys):
    others = tuple(f"psr-00{i}" for i in range(1, 9) if i != 2)
    run_a, run_b = record(crash=("psr-002",)), record(crash=others)
    rc, out, err = _aau(capsys, "runs", "compare", run_a, run_b, "--store", record.store)
    assert rc == EXIT_NOT_MEASURED and out == ""
    assert err.strip() == (f"aau: error: runs {run_a} and {run_b} share 8 scenario(s), but none "
                           "was measured in full in both (a repeat failed in the adapter or "
                           "transport in one run; --resume measures it): nothing to compare")


def test_a_scenario_measured_in_part_is_no_regression(record, capsys):
    """Three repeats; in run B the first request of three scenarios crashes (one repeat of
    three not measured each), the same agent otherwise. Counting those repeats as failures read
    an outage as three pass -> fail flips and an exact drop whose interval excluded 0."""
    flaky = ("psr-001", "psr-003", "psr-008")  # scenarios the example agent gets right
    run_a, run_b = record(repeats=3), record(crash=flaky, repeats=3, once=True)
    rc, out, _ = _aau(capsys, "runs", "compare", run_a, run_b, "--store", record.store,
                      "--json")
    assert rc == 0
    result = json.loads(out)
    aau_schemas.validate("run-compare", result)
    assert result["not_measured"] == list(flaky)
    assert result["pass_to_fail"] == [] and result["fail_to_pass"] == []
    exact = next(m for m in result["metrics"] if m["name"] == "exact")
    assert (exact["n"], exact["diff"], exact["low"], exact["high"]) == (5, 0.0, 0.0, 0.0)
    assert "measured" not in {m["name"] for m in result["metrics"]}  # no metric of the agent


def test_the_view_s_compare_page_lists_them_too(record):
    from aau_core._store._view import compare_page

    run_a, run_b = record(crash=("psr-002",)), record()
    page = compare_page(record.store, run_a, run_b)
    assert 'data-testid="not-measured"' in page and "<code>psr-002</code>" in page
