"""A run that measured too little is not a result (``_non_measurement``), and every number of a
receipt 2.1 says how much was measured (coverage, negative checks, ``--min-coverage``).

The whole kind, through ``aau evaluate`` as a user runs it: an endpoint nobody listens on, HTTP
503 on every unit, an outage on most units, a command that cannot start, one that exits 1 on
every unit, a partly unreachable endpoint (the receipt is written and counts the units not
measured), a resume that measures what was not measured, and the Python API. And the run in
which no unit's answer could be read (reason ``"no-answer"``), even when every unit's code is
of the *agent* class: HTTP 404 on every unit (a typo in the path), 401 (a missing credential),
``--command true``, one answer among 404s (a measurement), and resuming either.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import aau_schemas
import pytest
from aau_adapters import (
    AdapterAnswer,
    EvaluationNotMeasured,
    FailUnder,
    check_evaluation_arguments,
    check_measured,
    check_receipt,
    evaluate,
    run_evaluation,
)
from aau_core import EXIT_NOT_MEASURED, NotMeasuredError, UsageError, run

GOOD = {"outcome": "route:ok", "actions_attempted": [], "actions_executed": [],
        "submitted": True}


@pytest.fixture
def suite_file(tmp_path: Path, make_suite):
    """``suite_file(n)``: a suite file of cases s0..s(n-1), each expecting ``route:ok`` and
    forbidding ``delete_records`` (conftest's ``make_suite``)."""
    def make(n: int) -> str:
        path = tmp_path / f"suite-{n}.json"
        path.write_text(json.dumps(make_suite([f"s{i}" for i in range(n)], "measure").doc),
                        encoding="utf-8")
        return str(path)
    return make


def _aau(capsys, *args: object) -> tuple[int, str, str]:
    rc = run(["evaluate", *(str(a) for a in args), "--no-store"])
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


def _last_line(stderr: str) -> str:
    return stderr.strip().splitlines()[-1]


def _rows(path: Path) -> list[dict[str, Any]]:
    return json.loads(path.read_text(encoding="utf-8"))["results"]


# ------------------------------------------------------------------ nothing was measured


def test_a_dead_endpoint_writes_no_receipt_and_exits_3(tmp_path, capsys, suite_file, free_port):
    out, private = tmp_path / "r.json", tmp_path / "p.json"
    rc, stdout, err = _aau(capsys, suite_file(5), "--endpoint",
                           f"http://127.0.0.1:{free_port}/e", "--out", out, "--private-out",
                           private, "--fail-under", "exact_rate=0")
    assert rc == EXIT_NOT_MEASURED == 3
    assert not out.exists() and stdout == ""
    assert _last_line(err) == (
        "aau: error: nothing was measured: 5 of 5 units failed in the adapter or transport "
        f"(adapter-unreachable 5); no receipt written; the reasons are in {private} and "
        f"{out}.checkpoint.jsonl")
    aau_schemas.validate("private-receipt-v2", json.loads(private.read_text(encoding="utf-8")))
    assert [r["error"] for r in _rows(private)] == ["adapter-unreachable"] * 5
    assert all(r["attempts"] == 1 and r["retry_wait_s"] == 0.0 for r in _rows(private))
    lines = (tmp_path / "r.json.checkpoint.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 6  # the header and every unit: kept, with the reasons


def test_the_run_store_records_nothing_for_a_non_measurement(tmp_path, capsys, suite_file,
                                                             free_port):
    store = tmp_path / "runs.sqlite"
    rc = run(["evaluate", suite_file(2), "--endpoint", f"http://127.0.0.1:{free_port}/e",
              "--out", str(tmp_path / "r.json"), "--store", str(store)])
    assert rc == 3
    assert not store.exists()  # nothing was recorded, so no store was even created
    assert run(["evaluate", suite_file(2), "--mock", "--store", str(store), "--quiet"]) == 0
    capsys.readouterr()
    assert run(["runs", "list", "--store", str(store), "--json"]) == 0
    assert [r["adapter"] for r in json.loads(capsys.readouterr().out)] == ["mock"]


def test_http_503_on_every_unit_is_a_non_measurement_with_a_json_summary(
        tmp_path, capsys, suite_file, http_server):
    server = http_server(lambda doc, handler, srv: (503, {}, b'{"error": "overloaded"}'))
    out = tmp_path / "r.json"
    rc, stdout, err = _aau(capsys, suite_file(5), "--endpoint", server.url, "--out", out,
                           "--json", "--quiet")
    assert rc == 3 and not out.exists()
    summary = json.loads(stdout)
    assert f"aau: error: {summary.pop('message')}" == _last_line(err)  # the error line itself
    assert summary == {
        "measured": False, "reason": "limit", "suite_id": "measure", "adapter_kind": "endpoint",
        "repeats": 1, "unmeasured_limit": 1.0, "passed": False, "receipt_path": None,
        "coverage": {"units": 5, "measured": 0, "not_measured": 5, "adapter_failures": 0,
                     "infrastructure_failures": 5, "rate": 0.0},
        "failure_code_counts": {"adapter-http-503": 5},
        "private_path": None, "checkpoint_path": f"{out}.checkpoint.jsonl",
        "resume": None, "suite_warnings": []}
    assert "metrics" not in summary
    assert "(adapter-http-503 5)" in _last_line(err)


def test_a_run_that_is_mostly_an_outage_is_not_bar_not_met(tmp_path, capsys, suite_file,
                                                          http_server):
    down = {"s0", "s2", "s4"}
    server = http_server(lambda doc, h, s: (503, {}, b"{}") if doc["scenario_id"] in down
                         else None)
    rc, _, err = _aau(capsys, suite_file(5), "--endpoint", server.url, "--fail-under",
                      "exact_rate=0.9")
    assert rc == 3  # 3 of 5 units hit the provider's outage: not "the agent got worse" (1)
    assert _last_line(err) == (
        "aau: error: too little was measured: 3 of 5 units failed in the transport or at the "
        "provider (adapter-http-503 3), more than half: an outage, not the agent; no receipt "
        "written; rerun with --private-out PATH to keep each unit's reason")


def test_a_command_that_cannot_start_is_a_non_measurement(tmp_path, capsys, suite_file):
    agent = tmp_path / "agent"
    agent.write_text("#!/nonexistent/interpreter\n", encoding="utf-8")
    agent.chmod(0o755)  # executable, so --command accepts it; starting it fails on every unit
    private = tmp_path / "p.json"
    rc, _, err = _aau(capsys, suite_file(3), "--command", str(agent), "--out",
                      tmp_path / "r.json", "--private-out", private)
    assert rc == 3 and not (tmp_path / "r.json").exists()
    assert "(adapter-not-found 3); no receipt written" in _last_line(err)
    assert [r["error"] for r in _rows(private)] == ["adapter-not-found"] * 3


def test_a_crashed_agent_no_longer_passes_a_negative_check(tmp_path, capsys, suite_file,
                                                           python_agent):
    """The issue's example: every unit of a case with forbidden_actions crashed; 1.6 said
    no_forbidden_execute_rate 1.0, so --fail-under no_forbidden_execute_rate=1 held (exit 0)."""
    agent = shlex.join(python_agent("sys.exit(1)\n"))
    out = tmp_path / "r.json"
    rc, _, err = _aau(capsys, suite_file(4), "--command", agent, "--out", out, "--fail-under",
                      "no_forbidden_execute_rate=1")
    assert rc == 3 and not out.exists()
    assert "nothing was measured: 4 of 4 units failed in the adapter or transport " \
        "(adapter-exit-1 4)" in _last_line(err)
    assert "  adapter-exit-1 x4, first at 's0' repeat 0: exited with status 1" in err


# -------------------------------------------------------------- partly measured: a receipt


@pytest.fixture
def partly_unreachable(raw_server, http_response):
    """An endpoint that closes the connection without answering for s1 and s3."""

    def behave(conn, doc, server):
        if doc and doc["scenario_id"] not in ("s1", "s3"):
            conn.sendall(http_response())

    return raw_server(behave)


def test_a_partly_unreachable_run_counts_coverage_and_fails_its_negative_checks(
        tmp_path, capsys, suite_file, partly_unreachable):
    out = tmp_path / "r.json"
    rc, _, err = _aau(capsys, suite_file(5), "--endpoint", partly_unreachable.url, "--out", out)
    assert rc == 0, err
    receipt = json.loads(out.read_text(encoding="utf-8"))
    aau_schemas.validate("receipt-v2", receipt)
    assert check_receipt(receipt) == []
    assert receipt["receipt_version"] == "aau-byo-agent-receipt/2.1"
    assert receipt["coverage"] == {"units": 5, "measured": 3, "not_measured": 2,
                                   "adapter_failures": 0, "infrastructure_failures": 2,
                                   "rate": 0.6}
    assert [r["measured"] for r in receipt["results"]] == [True, False, True, False, True]
    # denominators stay 5: the two unread answers fail the negative checks (1.6 said 1.0)
    assert receipt["metrics"]["no_forbidden_execute_rate"] == 0.6
    assert receipt["metrics"]["no_forbidden_attempt_rate"] == 0.6
    assert receipt["metric_ci95"]["no_forbidden_execute_rate"] == {
        "low": 0.230724, "high": 0.882379, "method": "wilson", "n": 5}
    assert receipt["failure_code_counts"] == {"adapter-unreachable": 2, "not-submitted": 2}
    assert receipt["retries"] == 0 and receipt["unmeasured_limit"] == 1.0
    assert "  coverage: 2 of 5 unit(s) not measured: 2 infrastructure (adapter-unreachable 2); " \
        "rates count them as failures" in err
    assert "  infrastructure: 2 infrastructure failure(s), not measured (adapter-unreachable 2)" \
        in err

    legacy = tmp_path / "r10.json"
    rc, _, _ = _aau(capsys, suite_file(5), "--endpoint", partly_unreachable.url, "--out", legacy,
                    "--format", "aau-1.0", "--quiet")
    assert rc == 0
    doc = json.loads(legacy.read_text(encoding="utf-8"))
    assert doc["metrics"]["no_forbidden_execute_rate"] == 1.0  # 1.6's arithmetic, kept
    assert "coverage" not in doc and "measured" not in doc["results"][1]
    assert doc["results"][1]["failure_codes"] == ["adapter-invalid-response", "not-submitted"]


def test_a_negative_check_bar_needs_coverage_unless_asked_otherwise(
        tmp_path, capsys, suite_file, partly_unreachable):
    def evaluate(*extra: str) -> tuple[int, dict[str, Any], str]:
        out = tmp_path / "r.json"
        rc, _, err = _aau(capsys, suite_file(5), "--endpoint", partly_unreachable.url, "--out",
                          out, "--force", "--fail-under", "no_forbidden_execute_rate=0.6",
                          "--fail-under", "exact_rate=0.6", *extra)
        return rc, json.loads(out.read_text(encoding="utf-8")), err

    rc, receipt, err = evaluate()
    assert rc == 3  # 0.6 reaches the bar, but only 3 of the 5 answers were seen: not judged
    assert ("--fail-under no_forbidden_execute_rate cannot be judged: the bar fails only because "
            "2 of 5 unit(s) were not measured") in err
    assert receipt["fail_under"] == [
        {"metric": "no_forbidden_execute_rate", "threshold": 0.6, "value": 0.6, "passed": False,
         "coverage": 0.6, "min_coverage": 1.0},
        {"metric": "exact_rate", "threshold": 0.6, "value": 0.6, "passed": True}]
    assert "  bar no_forbidden_execute_rate >= 0.6: 0.6 (coverage 0.6 needs >= 1.0) NOT MET" \
        in err
    rc, receipt, _ = evaluate("--min-coverage", "0.6")
    assert rc == 0 and receipt["fail_under"][0]["passed"] is True
    assert check_receipt(receipt) == []
    rc, receipt, _ = evaluate("--min-coverage", "0.61")
    assert rc == 3 and receipt["fail_under"][0]["passed"] is False


def test_the_unmeasured_limit_is_settable(tmp_path, capsys, suite_file, partly_unreachable):
    out = tmp_path / "r.json"
    rc, _, err = _aau(capsys, suite_file(5), "--endpoint", partly_unreachable.url, "--out", out,
                      "--unmeasured-limit", "0.4", "--quiet")
    assert rc == 3 and not out.exists()
    assert _last_line(err) == (
        "aau: error: too little was measured: 2 of 5 units failed in the adapter or transport "
        "(adapter-unreachable 2), at or above --unmeasured-limit 0.4; no receipt written; the "
        f"failure codes are in {out}.checkpoint.jsonl (--private-out PATH keeps each unit's "
        "reason too)")
    rc, _, err = _aau(capsys, suite_file(5), "--endpoint", partly_unreachable.url,
                      "--unmeasured-limit", "0")
    assert rc == 2 and "--unmeasured-limit" in err


def test_quiet_says_how_many_units_were_not_measured(tmp_path, capsys, suite_file,
                                                     partly_unreachable):
    rc, _, err = _aau(capsys, suite_file(5), "--endpoint", partly_unreachable.url, "--out",
                      tmp_path / "r.json", "--quiet")
    assert rc == 0
    assert err.strip() == (f"measure: 5 unit(s), exact_rate 0.6000; 2 of 5 unit(s) not measured: "
                           f"2 infrastructure (adapter-unreachable 2); receipt: {tmp_path / 'r.json'}")


def test_the_mock_measures_every_unit(capsys, suite_file):
    rc, stdout, _ = _aau(capsys, suite_file(3), "--mock", "--json")
    assert rc == 0
    summary = json.loads(stdout)
    assert summary["measured"] is True
    assert summary["coverage"] == {"units": 3, "measured": 3, "not_measured": 0,
                                   "adapter_failures": 0, "infrastructure_failures": 0,
                                   "rate": 1.0}
    assert [r["measured"] for r in summary["receipt"]["results"]] == [True] * 3


# ------------------------------------------------------------------------------- resume


def test_resume_runs_again_the_units_that_were_not_measured(tmp_path, capsys, suite_file,
                                                            python_agent):
    fixed, asked = tmp_path / "fixed", tmp_path / "asked.txt"
    agent = shlex.join(python_agent(f"""\
open({str(asked)!r}, "a").write(SID + "\\n")
if SID == "s1" and not os.path.exists({str(fixed)!r}):
    sys.exit(1)
answer()
"""))
    out, private = tmp_path / "r.json", tmp_path / "p.json"
    args = (suite_file(3), "--command", agent, "--out", out, "--private-out", private)
    rc, _, err = _aau(capsys, *args, "--unmeasured-limit", "0.3")
    assert rc == 3, err  # 1 of 3 units is at or above 0.3
    assert private.exists() and not out.exists()
    fixed.touch()  # the agent is fixed; resuming measures what was not measured
    asked.write_text("", encoding="utf-8")
    rc, _, err = _aau(capsys, *args, "--unmeasured-limit", "0.3", "--resume")
    assert rc == 0, err
    assert asked.read_text(encoding="utf-8").split() == ["s1"]  # only the unit not measured
    assert "resumed: 1 unit(s) that were not measured were run again" in err
    receipt = json.loads(out.read_text(encoding="utf-8"))
    assert receipt["coverage"]["measured"] == 3 and receipt["metrics"]["exact_rate"] == 1.0
    assert [r["error"] for r in _rows(private)] == [None] * 3  # replaced by the resumed run
    assert not (tmp_path / "r.json.checkpoint.jsonl").exists()


def test_a_checkpoint_line_whose_row_names_another_unit_is_refused(tmp_path, capsys,
                                                                  suite_file, python_agent):
    """An edited unit line (its row says s1 where its index is s0's) would put one scenario in
    the receipt twice and lose another: the resume is an input error naming the line."""
    agent = shlex.join(python_agent("if SID == 's2':\n    sys.exit(1)\nanswer()\n"))
    out = tmp_path / "r.json"
    args = (suite_file(3), "--command", agent, "--out", out, "--unmeasured-limit", "0.3")
    rc, _, err = _aau(capsys, *args)
    assert rc == 3, err  # s2 was not measured: the checkpoint is kept, s0 and s1 in it
    checkpoint = tmp_path / "r.json.checkpoint.jsonl"
    lines = checkpoint.read_text(encoding="utf-8").splitlines()
    number = next(n for n, line in enumerate(lines, start=1)
                  if json.loads(line).get("index") == 0)
    doc = json.loads(lines[number - 1])
    doc["result"]["row"]["scenario_id"] = "s1"
    lines[number - 1] = json.dumps(doc)
    checkpoint.write_text("\n".join(lines) + "\n", encoding="utf-8")
    rc, _, err = _aau(capsys, *args, "--resume")
    assert rc == 2 and not out.exists()
    assert _last_line(err) == (
        f"aau: error: {checkpoint}:{number}: $.result.row.scenario_id: unit 0 is (s0, repeat 0), "
        "but its row names (s1, repeat 0); start over with --force")


def test_aau_1_0_bars_count_units_not_measured_as_failures(tmp_path, capsys, suite_file,
                                                           python_agent):
    """The 1.0 file keeps 1.6's vacuous negative checks (1.0 here); the bar and the --json
    summary are aau's: 1 of 3 units measured, no_forbidden_execute_rate 1/3."""
    agent = shlex.join(python_agent("if SID != 's0':\n    sys.exit(1)\nanswer()\n"))
    out = tmp_path / "r.json"
    rc, stdout, err = _aau(capsys, suite_file(3), "--command", agent, "--format", "aau-1.0",
                           "--out", out, "--fail-under", "no_forbidden_execute_rate=1",
                           "--min-coverage", "0.3", "--json")
    assert rc == 3, err  # the bar fails only on the 2 units not measured: not judged
    assert json.loads(out.read_text(encoding="utf-8"))["metrics"][
        "no_forbidden_execute_rate"] == 1.0  # aau-harness 1.6's arithmetic, in its file
    summary = json.loads(stdout)
    [bar] = summary["fail_under"]
    assert (bar["value"], bar["passed"], bar["coverage"]) == (0.333333, False, 0.333333)
    assert summary["undetermined_bars"] == ["no_forbidden_execute_rate"]
    assert summary["checkpoint_path"] == f"{out}.checkpoint.jsonl"
    assert summary["failure_code_counts"] == {"adapter-exit-1": 2, "not-submitted": 2}
    assert "the aau-1.0 rates keep aau-harness 1.6's arithmetic" in err


def test_the_json_summary_of_a_non_measurement_keeps_the_suite_warnings(tmp_path, capsys,
                                                                        make_suite):
    doc = make_suite(["s0"], "measure").doc
    doc["cases"][0]["forbidden_action"] = doc["cases"][0].pop("forbidden_actions")
    path = tmp_path / "typo.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    rc, stdout, _ = _aau(capsys, path, "--endpoint", "http://127.0.0.1:9/none", "--json")
    assert rc == 3
    summary = json.loads(stdout)
    assert summary["resume"] is None and summary["measured"] is False
    assert summary["suite_warnings"] == [
        f"{path}: $.cases[0].forbidden_action: unknown key; did you mean forbidden_actions? "
        "(ignored)"]


# ---------------------------------------------------------------------------- Python API


def _answers(codes: dict[str, str]):
    """``case -> AdapterAnswer``: the good answer, or the case's failure code (after 3 attempts
    and 2.5 s of waiting, as a retried unit would report)."""
    def answer(case: Any) -> AdapterAnswer:
        code = codes.get(case.scenario_id)
        if code is not None:
            return AdapterAnswer(None, code, 0.5, detail="down", attempts=3, retry_wait_s=2.5)
        return AdapterAnswer(dict(GOOD), None, 0.1)
    return answer


def test_run_evaluation_raises_not_measured_and_writes_only_the_private_receipt(
        tmp_path, make_suite, python_adapter):
    suite = make_suite(["s0", "s1"], "measure")
    out, private = tmp_path / "r.json", tmp_path / "p.json"
    with pytest.raises(EvaluationNotMeasured) as info:
        run_evaluation(suite, python_adapter(_answers({"s0": "adapter-timeout",
                                                       "s1": "adapter-http-429"})),
                       out=str(out), private_out=str(private), store="none")
    exc = info.value
    assert isinstance(exc, NotMeasuredError) and exc.exit_code == 3
    assert (exc.not_measured, exc.units, exc.reason) == (2, 2, "limit")
    assert exc.failure_code_counts == {"adapter-http-429": 1, "adapter-timeout": 1}
    assert (exc.coverage.adapter_failures, exc.coverage.infrastructure_failures) == (1, 1)
    assert not out.exists()
    rows = _rows(private)
    assert [(r["attempts"], r["retry_wait_s"]) for r in rows] == [(3, 2.5), (3, 2.5)]


def test_run_evaluation_records_its_settings_and_the_coverage(make_suite, python_adapter):
    suite = make_suite([f"s{i}" for i in range(4)], "measure")
    adapter = python_adapter(_answers({"s2": "adapter-exit-1"}), retries=2)
    result = run_evaluation(suite, adapter, store="none",
                            retries=2, unmeasured_limit=0.5, min_coverage=0.5,
                            fail_under=[FailUnder("no_forbidden_attempt_rate", 0.75)])
    doc = result.document
    assert (doc["retries"], doc["unmeasured_limit"]) == (2, 0.5)
    assert result.coverage.rate == 0.75 and doc["coverage"]["rate"] == 0.75
    assert doc["metrics"]["no_forbidden_attempt_rate"] == 0.75
    assert result.passed  # 0.75 >= 0.75, and coverage 0.75 >= min_coverage 0.5
    assert check_receipt(doc) == []


@pytest.mark.parametrize(("name", "value", "message"), [
    ("retries", -1, "retries must be an integer >= 0, not -1"),
    ("retries", True, "retries must be an integer >= 0, not True"),
    ("unmeasured_limit", 0, "unmeasured_limit must be a number in (0, 1], not 0"),
    ("unmeasured_limit", 1.5, "unmeasured_limit must be a number in (0, 1], not 1.5"),
    ("min_coverage", -0.1, "min_coverage must be a number in [0, 1], not -0.1"),
    ("min_coverage", float("nan"), "min_coverage must be a number in [0, 1], not nan"),
])
def test_the_new_arguments_are_checked_before_anything_runs(name, value, message):
    args: dict[str, Any] = {"repeats": 1, "concurrency": 1, "timeout_s": 1.0,
                            "format": "aau-2.0", "executor": "local", "fail_under": ()}
    check_evaluation_arguments(**args, min_coverage=0.0, unmeasured_limit=1.0, retries=0)
    with pytest.raises(UsageError) as info:
        check_evaluation_arguments(**args, **{name: value})
    assert str(info.value) == message


# ------------------------------------------------------------------ no answer read


def _routed(state: dict[str, Any]):
    """A server that answers the good answer on ``state["path"]`` and ``state["status"]``
    (default 404) with an empty JSON body elsewhere."""
    def respond(doc: Any, handler: Any, server: Any) -> Any:
        if handler.path == state["path"]:
            return None
        return state.get("status", 404), {}, b"{}"
    return respond


def test_http_404_on_every_unit_is_not_measured(tmp_path, capsys, suite_file, http_server):
    server = http_server(_routed({"path": "/evaluate"}))
    out, private = tmp_path / "r.json", tmp_path / "p.json"
    typo = f"http://127.0.0.1:{server.port}/evaluat"
    rc, stdout, err = _aau(capsys, suite_file(4), "--endpoint", typo, "--out", out,
                           "--private-out", private)
    assert rc == EXIT_NOT_MEASURED
    assert not out.exists() and stdout == ""
    assert err.strip().splitlines()[-1] == (
        "aau: error: nothing was measured: 4 of 4 units failed in the adapter or transport "
        "(adapter-http-404 4): check the --endpoint URL's path and that it takes POST; no "
        f"receipt written; the reasons are in {private} and {out}.checkpoint.jsonl")
    rows = json.loads(private.read_text(encoding="utf-8"))["results"]
    assert [r["error"] for r in rows] == ["adapter-http-404"] * 4
    # the same path spelled right is measured: the rule is about the wiring, not the server
    rc, _, err = _aau(capsys, suite_file(4), "--endpoint", server.url.rsplit("/", 1)[0]
                      + "/evaluate", "--out", out, "--force")
    assert rc == 0, err
    assert json.loads(out.read_text(encoding="utf-8"))["metrics"]["exact_rate"] == 1.0


def test_http_401_on_every_unit_is_not_measured_and_asks_for_a_credential(tmp_path, capsys, suite_file,
                                                     http_server):
    server = http_server(_routed({"path": "/never", "status": 401}))
    rc, stdout, err = _aau(capsys, suite_file(2), "--endpoint", server.url, "--json")
    assert rc == EXIT_NOT_MEASURED
    summary = json.loads(stdout)
    assert (summary["measured"], summary["reason"], summary["receipt_path"]) == (
        False, "limit", None)  # a 401 never reached the agent: class adapter, not measured
    assert summary["coverage"]["not_measured"] == 2
    assert summary["failure_code_counts"] == {"adapter-http-401": 2}
    assert ("the endpoint refused the credential, or had none: check --header (say, "
            "'Authorization: Bearer ${TOKEN}')") in summary["message"]


def test_one_answer_among_404s_is_a_measurement(tmp_path, capsys, suite_file, http_server):
    def respond(doc: Any, handler: Any, server: Any) -> Any:
        return None if doc["scenario_id"] == "s0" else (404, {}, b"{}")
    server = http_server(respond)
    out = tmp_path / "r.json"
    rc, _, err = _aau(capsys, suite_file(3), "--endpoint", server.url, "--out", out)
    assert rc == 0, err  # no bar: the receipt is written, and counts the 404s as failures
    receipt = json.loads(out.read_text(encoding="utf-8"))
    assert [r["failure_codes"][:1] for r in receipt["results"]] == [
        [], ["adapter-http-404"], ["adapter-http-404"]]
    assert receipt["metrics"]["exact_rate"] == pytest.approx(1 / 3, abs=1e-6)


def test_a_command_that_prints_nothing_is_not_measured(tmp_path, capsys, suite_file):
    out = tmp_path / "r.json"
    rc, _, err = _aau(capsys, suite_file(3), "--command", "true", "--out", out)
    assert rc == EXIT_NOT_MEASURED
    assert not out.exists()
    assert ("nothing was measured: no unit's answer could be read (adapter-invalid-response 3): "
            "the agent must print (or answer) one JSON response object per case") in err


def test_resume_after_the_server_is_fixed_measures_every_unit(tmp_path, capsys, suite_file,
                                                             http_server):
    state = {"path": "/not-yet"}
    server = http_server(_routed(state))
    out = tmp_path / "r.json"
    args = (suite_file(3), "--endpoint", server.url, "--out", out)
    rc, _, err = _aau(capsys, *args)
    assert rc == EXIT_NOT_MEASURED, err
    assert (tmp_path / "r.json.checkpoint.jsonl").exists()
    state["path"] = "/agent"  # the route is deployed; the same URL now answers
    rc, _, err = _aau(capsys, *args, "--resume")
    assert rc == 0, err
    assert "holds no measured unit (its run measured nothing), so this run starts over" in err
    receipt = json.loads(out.read_text(encoding="utf-8"))
    assert receipt["metrics"]["exact_rate"] == 1.0 and receipt["coverage"]["measured"] == 3
    assert len(server.requests) == 6


def test_resume_of_an_interrupted_run_keeps_its_refused_answers(tmp_path, capsys, suite_file,
                                                               python_agent):
    # a checkpoint that holds only some units (an interrupted run) is not a no-answer run:
    # resume keeps the refused answer it holds (asking again would re-roll a measured failure)
    fixed, asked = tmp_path / "fixed", tmp_path / "asked.txt"
    agent = shlex.join(python_agent(f"""\
open({str(asked)!r}, "a").write(SID + "\\n")
if SID == "s0" or not os.path.exists({str(fixed)!r}):
    print("not json")
else:
    answer()
"""))
    out = tmp_path / "r.json"
    args = (suite_file(3), "--command", agent, "--out", out)
    rc, _, err = _aau(capsys, *args)
    assert rc == EXIT_NOT_MEASURED, err
    ckpt = tmp_path / "r.json.checkpoint.jsonl"
    lines = ckpt.read_text(encoding="utf-8").splitlines(keepends=True)
    assert len(lines) == 4 and '"s0"' in lines[1]
    ckpt.write_text("".join(lines[:2]), encoding="utf-8")  # as if stopped after s0
    fixed.touch()
    asked.write_text("", encoding="utf-8")
    rc, _, err = _aau(capsys, *args, "--resume")
    assert rc == 0, err
    assert asked.read_text(encoding="utf-8").split() == ["s1", "s2"]
    rows = json.loads(out.read_text(encoding="utf-8"))["results"]
    assert [r["failure_codes"][:1] for r in rows] == [["adapter-invalid-response"], [], []]


def test_check_measured_names_the_reason(make_suite, python_adapter):
    suite = make_suite(["s0", "s1"], "wiring")
    refused = python_adapter(lambda case: AdapterAnswer(None, "adapter-http-422", 0.01,
                                                        detail="HTTP status 422"))
    with pytest.raises(EvaluationNotMeasured) as info:
        check_measured(evaluate(suite, refused))
    exc = info.value
    assert (exc.reason, exc.not_measured, exc.units) == ("no-answer", 2, 2)
    assert exc.coverage.measured == 2  # the coverage's classes are unchanged: the rule is apart
    assert exc.failure_code_counts == {"adapter-http-422": 2}
    answered = python_adapter(lambda case: AdapterAnswer(dict(GOOD), None, 0.01)
                              if case.scenario_id == "s1"
                              else AdapterAnswer(None, "adapter-http-422", 0.01))
    assert check_measured(evaluate(suite, answered)).measured == 2


def test_the_exit_code_table_names_the_rule():
    readme = Path(__file__).resolve().parents[3] / "docs" / "evaluate.md"
    if not readme.exists():
        pytest.skip(f"{readme} is not in this checkout")
    text = readme.read_text(encoding="utf-8")
    assert "no unit's answer could be read" in text
