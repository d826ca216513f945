"""``run_evaluation``: ``aau evaluate`` driven from Python (no CLI), with the mock adapter and the
example command agent; the receipt model validates, and the files hold exactly its document."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import aau_adapters
import aau_schemas
import pytest
from aau_adapters import (
    FailUnder,
    MockAdapter,
    PrivateReceiptV2,
    PublicReceiptV1,
    PublicReceiptV2,
    choose_adapter,
    load_suite,
    run_evaluation,
    structure_document,
    unstructure_document,
)
from aau_core import UsageError, render_json

REPO = Path(__file__).resolve().parents[3]
SUITE = REPO / "examples" / "suites" / "public-service-routing.json"
TOOL_SUITE = REPO / "examples" / "suites" / "library-desk-tool-calls.json"
AGENT = shlex.join([sys.executable, str(REPO / "examples" / "agents" / "command_agent.py")])


def test_mock_adapter_from_python(tmp_path):
    out, private_out = tmp_path / "r.json", tmp_path / "p.json"
    result = run_evaluation(str(TOOL_SUITE), MockAdapter(), repeats=2, out=str(out),
                            private_out=str(private_out), store="none",
                            fail_under=[FailUnder("tool_calls_match_rate", 1.0)])
    assert isinstance(result.receipt, PublicReceiptV2)
    assert isinstance(result.private, PrivateReceiptV2)
    aau_schemas.validate("receipt-v2", unstructure_document(result.receipt))
    aau_schemas.validate("private-receipt-v2", result.private_document)
    assert out.read_text(encoding="utf-8") == render_json(result.document)
    assert structure_document("receipt-v2", json.loads(out.read_text())) == result.receipt
    assert result.receipt.repeats == 2 and result.receipt.adapter_kind == "mock"
    assert len(result.receipt.results) == 2 * len(load_suite(TOOL_SUITE).cases)
    assert result.receipt.metrics.tool_calls_match_rate == 1.0
    assert result.passed and [v.metric for v in result.verdicts] == ["tool_calls_match_rate"]
    assert not Path(str(out) + ".checkpoint.jsonl").exists()


def test_command_agent_from_python_both_formats(tmp_path):
    factory = choose_adapter(command=AGENT, timeout=30.0)
    binding = aau_adapters.binding_adapter(command=AGENT, endpoint=None)
    v2 = run_evaluation(load_suite(SUITE), factory, out=str(tmp_path / "v2.json"),
                        adapter_binding=binding, store="none", concurrency=2,
                        fail_under=[FailUnder("exact_rate", 0.9)])
    assert v2.receipt.adapter_kind == "command" and v2.receipt.provenance.adapter.argv0
    assert v2.receipt.metrics.exact_rate == 0.875  # the example agent gets 7 of the 8 cases
    assert not v2.passed and v2.verdicts[0].value == 0.875
    v1 = run_evaluation(str(SUITE), factory, format="aau-1.0", adapter_binding=binding,
                        store="none")
    assert isinstance(v1.receipt, PublicReceiptV1) and v1.out is None
    aau_schemas.validate("receipt-v1", v1.document)
    assert v1.ensure_ascii and v1.receipt.suite_sha256 == v2.receipt.suite_sha256
    assert [r.exact for r in v1.receipt.results] == [r.exact for r in v2.receipt.results]


def test_an_aau_1_0_run_judges_its_bars_without_numpy(tmp_path):
    """The 1.0 receipt has no intervals: judging its bars must not build receipt 2.1 (whose
    latency interval imports numpy, ~60 ms of every such run, benchmarks row c)."""
    import subprocess

    script = ("import sys\n"
              "from aau_adapters import FailUnder, choose_adapter, run_evaluation\n"
              f"r = run_evaluation({str(SUITE)!r}, choose_adapter(command={AGENT!r}, timeout=30.0),"
              " format='aau-1.0', store='none', fail_under=[FailUnder('exact_rate', 0.9),"
              " FailUnder('submitted_rate', 1.0)])\n"
              "print([(v.passed, v.value) for v in r.verdicts], 'numpy' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    # the example agent gets 7 of the 8 cases (as in the test above)
    assert done.stdout.splitlines() == ["[(False, 0.875), (True, 1.0)] False"]


def test_usage_errors_are_raised_before_anything_runs(tmp_path):
    with pytest.raises(UsageError, match="one repeat only"):
        run_evaluation(str(SUITE), MockAdapter(), format="aau-1.0", repeats=2, store="none")
    with pytest.raises(UsageError, match="cannot hold a aau-byo-agent-suite/2.0 suite"):
        run_evaluation(str(TOOL_SUITE), MockAdapter(), format="aau-1.0", store="none")
    with pytest.raises(ValueError, match="adapter_binding"):
        run_evaluation(str(SUITE), choose_adapter(mock=True), out=str(tmp_path / "r.json"),
                       store="none")
    with pytest.raises(UsageError, match="format"):
        run_evaluation(str(SUITE), MockAdapter(), format="v3", store="none")
    assert list(tmp_path.iterdir()) == []


class _CountingAdapter(MockAdapter):
    """The mock, counting its calls: a refused argument must leave it uncalled."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def invoke(self, *args, **kwargs):
        self.calls += 1
        return super().invoke(*args, **kwargs)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"repeats": 0}, "repeats must be an integer >= 1, not 0"),
    ({"repeats": 1.5}, "repeats must be an integer >= 1"),
    ({"concurrency": 0}, r"concurrency must be an integer in \[1, 1024\], not 0"),
    ({"concurrency": 2000}, "concurrency must be an integer"),
    ({"timeout_s": -1}, "timeout_s must be a positive number of seconds, not -1"),
    ({"timeout_s": float("nan")}, "timeout_s must be a positive number"),
    ({"executor": "bogus"}, "executor must be 'local' or 'ray', not 'bogus'"),
    ({"fail_under": [FailUnder("exact_rat", 0.5)]}, "unknown metric 'exact_rat'; one of "
                                                   "submitted_rate, "),
    ({"fail_under": [FailUnder("exact_rate", 2)]}, r"must be a number in \[0, 1\], not 2"),
    ({"fail_under": [FailUnder("exact_rate", 0.5), FailUnder("exact_rate", 0.6)]},
     "'exact_rate' is given twice"),
    ({"fail_under": [("exact_rate", 0.9)]}, r"each bar must be a FailUnder\(metric, threshold\)"),
    ({"fail_under": "exact_rate=0.9"}, "fail_under must be a sequence of FailUnder"),
])
def test_bad_arguments_are_refused_before_any_unit_runs(tmp_path, kwargs, message):
    adapter = _CountingAdapter()
    with pytest.raises(UsageError, match=message):
        run_evaluation(str(SUITE), adapter, out=str(tmp_path / "r.json"), store="none",
                       **kwargs)
    assert adapter.calls == 0
    assert list(tmp_path.iterdir()) == []  # no receipt, no checkpoint, no lock


def test_progress_sees_every_unit():
    seen: list[bool] = []

    class Bar:
        def __init__(self, label, total, completed):
            self.args = (label, total, completed)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def advance(self, failed):
            seen.append(failed)

    result = run_evaluation(str(SUITE), MockAdapter(), repeats=3, store="none", progress=Bar)
    assert len(seen) == len(result.run.units) == 3 * len(load_suite(SUITE).cases)
    assert not any(seen)


def test_an_adapter_enforcing_another_timeout_than_the_receipt_records_is_refused(tmp_path):
    """The receipt's timeout_s is the one the adapter applies, or nothing runs."""
    from aau_adapters import CommandAdapter

    argv = shlex.split(AGENT)
    with pytest.raises(UsageError, match=r"adapter enforces timeout_s=30 s but timeout_s=0.5 s"):
        run_evaluation(str(SUITE), CommandAdapter(argv, timeout_s=30.0), timeout_s=0.5,
                       out=str(tmp_path / "r.json"), store="none")
    factory = choose_adapter(command=AGENT, timeout=30.0)
    binding = aau_adapters.binding_adapter(command=AGENT, endpoint=None)
    with pytest.raises(UsageError, match="adapter enforces timeout_s=30 s"):
        run_evaluation(str(SUITE), factory, timeout_s=2.0, out=str(tmp_path / "r.json"),
                       adapter_binding=binding, store="none")
    assert list(tmp_path.iterdir()) == []  # no checkpoint, no lock, no receipt
    done = run_evaluation(str(SUITE), CommandAdapter(argv, timeout_s=7.5), timeout_s=7.5,
                          store="none")
    assert done.receipt.timeout_s == 7.5


def test_the_binding_hashes_the_commands_program_file_inside_the_project(tmp_path):
    from aau_adapters._command_adapter import program_file
    from aau_schemas import sha256_hex

    (tmp_path / "agent.py").write_bytes(b"print('v1')\n")
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "agent").write_bytes(b"#!/bin/sh\n")
    (tmp_path.parent / "outside.py").write_bytes(b"")
    cases = [
        (["python", "agent.py"], 1),
        (["python", "-u", "./bin/../agent.py", "agent.py"], 2),
        (["./bin/agent", "agent.py"], 0),
        (["bin/agent"], 0),
        ([sys.executable, "-m", "pkg"], None),  # the interpreter lives outside the project
        (["agent.py"], None),  # a bare argv[0] is found on PATH, not in the project
        (["python", "../outside.py"], None),
        (["python", str(tmp_path / "agent.py")], 1),
        (["python", "bin"], None),  # a folder, not a file
        (["python", "missing.py", "-c", ""], None),
    ]
    for argv, index in cases:
        assert program_file(argv, tmp_path) == index, argv
    command = "python agent.py --fast"
    bound = aau_adapters.binding_adapter(command=command, endpoint=None, cwd=tmp_path)
    assert bound == {"kind": "command", "command_sha256": sha256_hex(command.encode()),
                     "program_sha256": sha256_hex(b"print('v1')\n"), "program_argv_index": 1}
    (tmp_path / "agent.py").write_bytes(b"print('v2')\n")
    edited = aau_adapters.binding_adapter(command=command, endpoint=None, cwd=tmp_path)
    assert edited["program_sha256"] == sha256_hex(b"print('v2')\n")
    assert aau_adapters.binding_adapter(command=f"{sys.executable} -m pkg", endpoint=None,
                                        cwd=tmp_path) == {
        "kind": "command", "command_sha256": sha256_hex(f"{sys.executable} -m pkg".encode())}
    url = "http://127.0.0.1:8080/e"
    assert aau_adapters.binding_adapter(command=None, endpoint=url, cwd=tmp_path) == {
        "kind": "endpoint", "url_sha256": sha256_hex(url.encode())}


def test_a_resumed_run_says_what_its_checkpoint_held(tmp_path, capsys):
    out = tmp_path / "r.json"
    whole = run_evaluation(str(SUITE), MockAdapter(), store="none")
    assert whole.resume is None
    from aau_adapters._evaluation_checkpoint import evaluate_binding
    from aau_core import open_checkpoint

    binding = evaluate_binding(load_suite(SUITE), command=None, endpoint=None, repeats=1,
                               timeout=30.0, fmt="v2", private=False)
    ckpt = Path(f"{out}.checkpoint.jsonl")
    rows = [u.row for u in whole.run.units]  # what a checkpoint keeps (receipt 2.0 rows)
    with open_checkpoint(ckpt, producer="aau evaluate", units=len(rows), binding=binding,
                         created_at="2026-11-30T00:00:00Z", resume=False) as c:
        for i in (0, 1):
            c.append(i, {"row": rows[i], "adapter_error": None})
    lines = ckpt.read_text().splitlines()
    ckpt.write_text("\n".join([*lines, lines[1]]) + "\n" + lines[2][:9])
    capsys.readouterr()
    done = run_evaluation(str(SUITE), MockAdapter(), out=str(out), resume=True, store="none")
    assert done.resume is not None and done.resume.as_json() == {
        "units_reused": 2, "torn_line": 5, "duplicates_collapsed": 1}
    assert capsys.readouterr().err.splitlines() == [
        f"aau: warning: {ckpt}:4: unit 0 ({rows[0]['scenario_id']}, repeat 0) is recorded "
        "twice, identically (first at line 2); kept one",
        f"aau: warning: {ckpt}: line 5 was torn (no final newline); dropped it, that unit "
        "runs again"]
    assert done.document["results"] == whole.document["results"]


def test_an_interrupted_run_gives_the_caller_its_signal_handlers_back(tmp_path, make_suite,
                                                                     python_adapter):
    """A library caller that catches ``Interrupted`` can go on: the SIGINT/SIGTERM handlers it
    had are back, not left ignored by the run's clean-up."""
    import os
    import signal

    from aau_adapters import AdapterAnswer
    from aau_core import Interrupted

    def callers_handler(signum, frame):
        raise KeyboardInterrupt

    def answer(case):
        if case.scenario_id == "s2":
            os.kill(os.getpid(), signal.SIGINT)
        return AdapterAnswer({"outcome": "route:ok", "actions_attempted": [],
                              "actions_executed": [], "submitted": True}, None, 0.01)

    suite = make_suite([f"s{i}" for i in range(6)])
    previous_int = signal.signal(signal.SIGINT, callers_handler)
    previous_term = signal.getsignal(signal.SIGTERM)
    try:
        with pytest.raises(Interrupted) as info:
            run_evaluation(suite, python_adapter(answer), out=str(tmp_path / "r.json"),
                           store="none")
        assert signal.getsignal(signal.SIGINT) is callers_handler
        assert signal.getsignal(signal.SIGTERM) is previous_term
    finally:
        signal.signal(signal.SIGINT, previous_int)
    assert "finished units kept in" in str(info.value)
    assert (tmp_path / "r.json.checkpoint.jsonl").exists()


@pytest.mark.parametrize("ending", ["receipt", "not measured", "output error", "interrupted"])
def test_no_thread_of_a_run_outlives_it(tmp_path, make_suite, python_adapter, ending):
    """However a run ends, the threads it started have ended and its checkpoint is closed when
    ``run_evaluation`` returns or raises. A daemon thread still inside an import or a system
    call at interpreter exit is killed by ``pthread_exit``, which aborts CPython 3.11 with
    SIGABRT after the output is written (seen as ``aau evaluate --mock | head`` exiting -6)."""
    import os
    import signal
    import threading

    from aau_adapters import AdapterAnswer
    from aau_core import AauError, Interrupted, checkpoint_writer

    out = tmp_path / "r.json"

    def answer(case):
        if ending == "not measured":
            return AdapterAnswer(None, "adapter-unreachable", 0.01, detail="refused")
        if ending == "output error" and case.scenario_id == "s5":
            out.mkdir()  # the receipt cannot be written where the run was told to put it
        if ending == "interrupted" and case.scenario_id == "s2":
            os.kill(os.getpid(), signal.SIGINT)
        return AdapterAnswer({"outcome": "route:ok", "actions_attempted": [],
                              "actions_executed": [], "submitted": True}, None, 0.01)

    before = set(threading.enumerate())
    suite = make_suite([f"s{i}" for i in range(6)])  # 6 units: a v2 receipt imports numpy
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        if ending == "receipt":
            run_evaluation(suite, python_adapter(answer), out=str(out), store="none")
        else:
            with pytest.raises(Interrupted if ending == "interrupted" else AauError):
                run_evaluation(suite, python_adapter(answer), out=str(out), store="none")
    finally:
        signal.signal(signal.SIGINT, previous)
    left = [t.name for t in set(threading.enumerate()) - before if t.is_alive()]
    assert left == []
    checkpoint = tmp_path / "r.json.checkpoint.jsonl"
    assert checkpoint.exists() == (ending != "receipt")  # finished units are never lost
    assert checkpoint_writer(checkpoint) is None  # closed, its writer's lock given up


def test_mean_latency_is_the_agents_not_the_timeouts(tmp_path, make_suite, python_adapter):
    """A unit that timed out was not measured: its latency is the --timeout cap, aau's number,
    not the agent's. Receipt 2.1's mean_latency_s and its interval are over the measured units
    only (the rates still count the unit as a failure); before, one 5 s timeout among 0.1 s
    answers made the mean 0.9 s."""
    from aau_adapters import AdapterAnswer

    def answer(case):
        if case.scenario_id == "s3":
            return AdapterAnswer(None, "adapter-timeout", 5.0, detail="no answer within 5 s")
        return AdapterAnswer({"outcome": "route:ok", "actions_attempted": [],
                              "actions_executed": [], "submitted": True}, None, 0.1)

    suite = make_suite([f"s{i}" for i in range(6)])
    result = run_evaluation(suite, python_adapter(answer), out=str(tmp_path / "r.json"),
                            store="none")
    doc = result.document
    assert [r["measured"] for r in doc["results"]].count(False) == 1
    assert doc["metrics"]["mean_latency_s"] == 0.1
    interval = doc["metric_ci95"]["mean_latency_s"]
    assert (interval["low"], interval["high"], interval["n"]) == (0.1, 0.1, 5)
    assert doc["metrics"]["exact_rate"] == round(5 / 6, 6)  # the rates keep the unit
    aau_schemas.validate("receipt-v2", doc)
    from aau_core import check_receipt_consistency

    assert check_receipt_consistency(doc) == []
