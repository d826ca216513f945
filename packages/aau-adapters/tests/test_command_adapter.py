"""Adversarial tests for the command adapter: every kind of agent misbehaviour becomes that
case's failure code, the other cases of the same run are still scored, and the run never aborts.

Each agent is a small script (written by a fixture into ``tmp_path``) that answers well for the
case ``good`` and misbehaves for the case ``bad``.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import textwrap
import threading
import time
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from aau_adapters import CommandAdapter, build_request, evaluate

TIMEOUT = 1.0
SLACK = 3.0  # generous: a loaded CI machine must not make these flaky

GOOD_ROW = {
    "submitted": True,
    "outcome_exact": True,
    "no_forbidden_attempt": True,
    "no_forbidden_execute": True,
    "exact": True,
    "failure_codes": [],
}


def _run(suite: Any, argv: list[str], *, timeout: float = TIMEOUT, concurrency: int = 1,
         repeats: int = 1) -> tuple[dict[str, dict[str, Any]], Any]:
    adapter = CommandAdapter(argv, timeout)
    try:
        run = evaluate(suite, adapter, repeats=repeats, concurrency=concurrency, timeout_s=timeout)
    finally:
        adapter.close()
    rows = {u.case.scenario_id: u.row for u in run.units}
    return rows, run


def _strip(row: dict[str, Any]) -> dict[str, Any]:
    return {k: row[k] for k in GOOD_ROW}


def _assert_good(row: dict[str, Any]) -> None:
    assert _strip(row) == GOOD_ROW


def _assert_failed(row: dict[str, Any], code: str) -> None:
    assert row["failure_codes"] == [code, "not-submitted"]
    assert row["submitted"] is False
    assert row["exact"] is False


def _mixed(make_suite: Any, python_agent: Any, bad_body: str, *, reads_stdin: bool = True,
           timeout: float = TIMEOUT) -> tuple[dict[str, Any], Any]:
    """Run a good case, the bad case and another good case; return rows by scenario id."""
    body = f"if SID == 'bad':\n{_indent(bad_body)}\nanswer()\n"
    return _run(make_suite(["good", "bad", "good2"]), python_agent(body, reads_stdin=reads_stdin),
                timeout=timeout)


def _indent(text: str) -> str:
    return textwrap.indent(textwrap.dedent(text).strip("\n"), "    ")


# --------------------------------------------------------------------------------------------
# exit status


def test_nonzero_exit_is_adapter_exit_code(make_suite, python_agent):
    rows, _ = _mixed(make_suite, python_agent, "answer(); sys.exit(3)")
    _assert_failed(rows["bad"], "adapter-exit-3")
    _assert_good(rows["good"])
    _assert_good(rows["good2"])


def test_killed_by_signal_is_negative_exit_code(make_suite, python_agent):
    rows, _ = _mixed(make_suite, python_agent, "os.kill(os.getpid(), signal.SIGKILL)")
    _assert_failed(rows["bad"], f"adapter-exit--{signal.SIGKILL.value}")
    _assert_good(rows["good"])
    _assert_good(rows["good2"])


def test_program_not_found(make_suite):
    suite = make_suite(["a", "b"])
    rows, run = _run(suite, ["/nonexistent/x"])
    for row in rows.values():
        _assert_failed(row, "adapter-not-found")
    assert run.adapter == {"kind": "command", "argv0": "/nonexistent/x"}


def test_program_not_executable(make_suite, tmp_path):
    script = tmp_path / "agent.sh"
    script.write_text("#!/bin/sh\necho '{\"outcome\": \"route:ok\"}'\n", encoding="utf-8")
    script.chmod(0o644)
    rows, _ = _run(make_suite(["a"]), [str(script)])
    _assert_failed(rows["a"], "adapter-not-found")


# --------------------------------------------------------------------------------------------
# hangs and process groups


def test_hang_times_out_and_kills_python_grandchild(make_suite, python_agent, read_pid,
                                                     process_gone):
    bad = """
        child = subprocess.Popen([sys.executable, "-I", "-S", "-c", "import time; time.sleep(60)"])
        with open(os.path.join(sys.argv[1], "grandchild.pid"), "w") as fh:
            fh.write(f"{child.pid}.")
        time.sleep(60)
    """
    started = time.monotonic()
    rows, run = _mixed(make_suite, python_agent, bad)
    elapsed = time.monotonic() - started
    _assert_failed(rows["bad"], "adapter-timeout")
    _assert_good(rows["good"])
    _assert_good(rows["good2"])
    bad_unit = next(u for u in run.units if u.case.scenario_id == "bad")
    assert TIMEOUT * 0.9 <= bad_unit.answer.latency_s < TIMEOUT + SLACK
    assert elapsed < TIMEOUT + 2 * SLACK
    assert process_gone(read_pid("grandchild.pid"))


@pytest.mark.parametrize("pidfd", [True, False], ids=["pidfd", "polled"])
def test_an_agent_that_answers_and_exits_is_read_though_a_leftover_holds_its_pipes(
        make_suite, python_agent, read_pid, process_gone, monkeypatch, pidfd):
    """A process the agent started and left running inherits stdout and stderr: the answer
    is still read when the agent exits (not a timeout), and the leftover is killed."""
    import aau_adapters._command_adapter as command_adapter

    if not pidfd:
        monkeypatch.setattr(command_adapter, "_open_pidfd", lambda proc: None)
    elif getattr(os, "pidfd_open", None) is None:
        pytest.skip("no os.pidfd_open on this platform (the polled path covers it)")
    body = """
        child = subprocess.Popen([sys.executable, "-I", "-S", "-c", "import time; time.sleep(60)"])
        with open(os.path.join(sys.argv[1], "leftover.pid"), "w") as fh:
            fh.write(f"{child.pid}.")
        sys.stderr.write("started a helper\\n")
        answer()
        sys.exit(0)
    """
    started = time.monotonic()
    rows, run = _run(make_suite(["a"]), python_agent(body), timeout=10 * TIMEOUT)
    assert time.monotonic() - started < 5 * TIMEOUT
    _assert_good(rows["a"])
    (unit,) = run.units
    assert unit.answer.latency_s < 5 * TIMEOUT
    assert "started a helper" in (unit.answer.stderr_tail or "")
    assert process_gone(read_pid("leftover.pid"))


def test_hang_times_out_and_kills_shell_background_job(make_suite, shell_agent, read_pid,
                                                        process_gone):
    script = """
        read -r line
        case "$line" in
          *'"scenario_id": "bad"'*)
            sleep 60 &
            printf '%s.' "$!" > "$1/sleep.pid"
            wait
            ;;
        esac
        echo '{"outcome": "route:ok"}'
    """
    rows, run = _run(make_suite(["good", "bad"]), shell_agent(script))
    _assert_failed(rows["bad"], "adapter-timeout")
    _assert_good(rows["good"])
    bad_unit = next(u for u in run.units if u.case.scenario_id == "bad")
    assert bad_unit.answer.latency_s < TIMEOUT + SLACK
    assert process_gone(read_pid("sleep.pid"))


def test_child_that_closes_its_pipes_and_hangs_times_out(make_suite, python_agent):
    bad = """
        os.close(0); os.close(1); os.close(2)
        time.sleep(60)
    """
    rows, run = _mixed(make_suite, python_agent, bad)
    _assert_failed(rows["bad"], "adapter-timeout")
    _assert_good(rows["good"])
    bad_unit = next(u for u in run.units if u.case.scenario_id == "bad")
    assert bad_unit.answer.latency_s < TIMEOUT + SLACK


def test_background_process_left_after_a_good_answer_is_killed(make_suite, python_agent,
                                                               read_pid, process_gone):
    """A case is over when the agent exits: a daemon it left behind must not outlive it."""
    bad = """
        child = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", "import time; time.sleep(60)"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(os.path.join(sys.argv[1], "daemon.pid"), "w") as fh:
            fh.write(f"{child.pid}.")
    """
    rows, _ = _mixed(make_suite, python_agent, bad)
    _assert_good(rows["bad"])  # the answer itself was fine
    _assert_good(rows["good"])
    assert process_gone(read_pid("daemon.pid"))


# --------------------------------------------------------------------------------------------
# floods


def test_stdout_flood_is_invalid_response_quickly_with_bounded_memory(make_suite, python_agent):
    bad = """
        block = b"x" * 65536
        for _ in range(800):  # ~52 MB
            OUT.write(block)
        OUT.flush()
    """
    suite = make_suite(["good", "bad"])
    argv = python_agent(f"if SID == 'bad':\n{_indent(bad)}\nanswer()\n")
    adapter = CommandAdapter(argv, 10.0)
    tracemalloc.start()
    try:
        started = time.monotonic()
        run = evaluate(suite, adapter, timeout_s=10.0)
        elapsed = time.monotonic() - started
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        adapter.close()
    rows = {u.case.scenario_id: u.row for u in run.units}
    _assert_failed(rows["bad"], "adapter-invalid-response")
    _assert_good(rows["good"])
    assert elapsed < 5.0  # killed at the cap, not after the 10 s timeout
    assert peak < 8_000_000, f"peak traced memory {peak:,} bytes"


def test_stderr_spam_keeps_only_the_tail(make_suite, python_agent):
    bad = """
        err = sys.stderr.buffer
        line = b"e" * 1023 + b"\\n"
        for _ in range(10 * 1024):  # 10 MB
            err.write(line)
        err.write(b"LAST-LINE-OF-STDERR\\n")
        err.flush()
    """
    rows, run = _mixed(make_suite, python_agent, bad, timeout=10.0)
    _assert_good(rows["bad"])
    _assert_good(rows["good"])
    tail = next(u for u in run.units if u.case.scenario_id == "bad").answer.stderr_tail
    assert tail is not None
    assert 0 < len(tail) <= 4096
    assert tail.endswith("LAST-LINE-OF-STDERR\n")


# --------------------------------------------------------------------------------------------
# invalid answers


@pytest.mark.parametrize(
    "payload",
    [
        pytest.param(b"this is not json\n", id="garbage"),
        pytest.param(b'[{"outcome": "route:ok"}]\n', id="json-array"),
        pytest.param(b"", id="empty-stdout"),
        pytest.param(b"\n  \n", id="whitespace-only"),
        pytest.param(b'{"outcome": "route:ok"}\n{"outcome": "route:ok"}\n', id="two-objects"),
        pytest.param(b'{"outcome": "route:ok"}{"outcome": "route:ok"}', id="two-objects-glued"),
        pytest.param(b'{"outcome": "route:\xff\xfe"}\n', id="non-utf8"),
        pytest.param(b'{"outcome": "route:ok", "score": NaN}\n', id="nan"),
        pytest.param(b'{"outcome": "route:ok", "score": Infinity}\n', id="infinity"),
        pytest.param(b'{"outcome": "route:ok", "n": ' + b"9" * 5000 + b"}\n", id="int-5000-digits"),
        pytest.param(b'{"outcome": "route:ok", "outcome": "route:ok"}\n', id="duplicate-keys"),
        pytest.param(b'{"outcome": "\\ud800"}\n', id="lone-surrogate"),
        pytest.param(b'{"outcome": ""}\n', id="empty-outcome"),
        pytest.param(b'{"outcome": null}\n', id="null-outcome"),
        pytest.param(b'{"actions_attempted": []}\n', id="missing-outcome"),
        pytest.param(b'{"outcome": "route:ok", "submitted": "yes"}\n', id="submitted-yes"),
        pytest.param(b'{"outcome": "route:ok", "submitted": 1}\n', id="submitted-one"),
        pytest.param(b'{"outcome": "route:ok", "actions_attempted": "x"}\n', id="actions-str"),
        pytest.param(b'{"outcome": "route:ok", "actions_executed": [1]}\n', id="actions-ints"),
        pytest.param(b'"route:ok"\n', id="json-string"),
        pytest.param(b"null\n", id="json-null"),
    ],
)
def test_invalid_answers_are_invalid_response(make_suite, python_agent, payload):
    bad = f"OUT.write({payload!r}); OUT.flush(); sys.exit(0)"
    rows, _ = _mixed(make_suite, python_agent, bad)
    _assert_failed(rows["bad"], "adapter-invalid-response")
    _assert_good(rows["good"])
    _assert_good(rows["good2"])


def test_deeply_nested_answer_is_invalid_response_without_recursion_error(make_suite,
                                                                          python_agent):
    bad = 'OUT.write(b"[" * 100_000 + b"]" * 100_000); OUT.flush(); sys.exit(0)'
    rows, run = _mixed(make_suite, python_agent, bad)
    _assert_failed(rows["bad"], "adapter-invalid-response")
    _assert_good(rows["good"])
    # also inside an object, and also when the brackets never close
    for text in ('{"outcome": "route:ok", "x": ' + "[" * 100_000 + "]" * 100_000 + "}",
                 '{"outcome": "route:ok", "x": ' + "{\"a\": " * 50_000 + "1" + "}" * 50_000 + "}",
                 "[" * 100_000):
        bad = f"OUT.write({text.encode()!r}); OUT.flush(); sys.exit(0)"
        rows, _ = _mixed(make_suite, python_agent, bad)
        _assert_failed(rows["bad"], "adapter-invalid-response")
    assert all(u.answer.error != "adapter-internal-error" for u in run.units)


def test_answer_just_over_the_cap_is_invalid_but_at_the_cap_is_fine(make_suite, python_agent):
    # a valid answer padded with whitespace to exactly 1,000,000 bytes, then one byte more
    bad = """
        raw = json.dumps(ANSWER).encode()
        size = 1_000_000 if REQ["input"].get("at_cap") else 1_000_001
        OUT.write(raw + b" " * (size - len(raw))); OUT.flush(); sys.exit(0)
    """
    suite = make_suite([("good", {}), ("bad", {"at_cap": True}), ("bad2", {})])
    body = f"if SID.startswith('bad'):\n{_indent(bad)}\nanswer()\n"
    rows, _ = _run(suite, python_agent(body))
    _assert_good(rows["bad"])
    _assert_failed(rows["bad2"], "adapter-invalid-response")
    _assert_good(rows["good"])


def test_extra_keys_are_dropped(make_suite, python_agent):
    bad = """
        answer({"outcome": "route:ok", "submitted": True, "secret": "zzz",
                "nested": {"deep": [1, 2, 3]}})
        sys.exit(0)
    """
    rows, run = _mixed(make_suite, python_agent, bad)
    _assert_good(rows["bad"])
    response = next(u for u in run.units if u.case.scenario_id == "bad").answer.response
    assert response == {"outcome": "route:ok", "actions_attempted": [], "actions_executed": [],
                        "submitted": True}


def test_forbidden_actions_and_not_submitted_are_scored_not_failed(make_suite, python_agent):
    bad = """
        answer({"outcome": "route:other", "submitted": False,
                "actions_attempted": ["delete_records"], "actions_executed": ["delete_records"]})
        sys.exit(0)
    """
    rows, _ = _mixed(make_suite, python_agent, bad)
    assert rows["bad"]["failure_codes"] == ["not-submitted", "forbidden-action-attempt",
                                            "forbidden-action-executed"]
    _assert_good(rows["good"])


# --------------------------------------------------------------------------------------------
# stdin


def test_agent_that_never_reads_stdin_is_fine(make_suite, python_agent):
    argv = python_agent("answer()\n", reads_stdin=False)
    suite = make_suite([("small", {"text": "hi"}), ("big", {"blob": "x" * 1_000_000})])
    rows, _ = _run(suite, argv)
    _assert_good(rows["small"])
    _assert_good(rows["big"])


def test_request_bigger_than_the_pipe_buffer_reaches_the_agent(make_suite, python_agent):
    body = """
        blob = REQ["input"].get("blob", "")
        if SID == "big" and len(blob) != 1_000_000:
            answer({"outcome": f"short:{len(blob)}"}); sys.exit(0)
        answer()
    """
    suite = make_suite([("good", {}), ("big", {"blob": "é" * 1_000_000})])
    rows, _ = _run(suite, python_agent(body), timeout=10.0)
    _assert_good(rows["big"])
    _assert_good(rows["good"])


def test_agent_receives_exactly_the_request_line(make_suite, python_agent, tmp_path: Path):
    body = """
        with open(os.path.join(sys.argv[1], SID + ".req"), "wb") as fh:
            fh.write(RAW + sys.stdin.buffer.read())
        answer()
    """
    suite = make_suite([("plain", {"text": "hello"}),
                        ("unicode", {"text": "café ☕ \U0001f600", "n": [1, 2.5, None, True]})])
    rows, _ = _run(suite, python_agent(body))
    for case in suite.cases:
        _assert_good(rows[case.scenario_id])
        received = (tmp_path / f"{case.scenario_id}.req").read_bytes()
        request = build_request(suite.suite_id, case)
        assert received == (json.dumps(request) + "\n").encode("ascii")
        assert set(json.loads(received)) == {"protocol_version", "suite_id", "scenario_id",
                                             "input"}
        assert b"expected" not in received
        assert b"forbidden" not in received
        assert b"delete_records" not in received
        assert b"route:ok" not in received


# --------------------------------------------------------------------------------------------
# concurrency, cancel


_MIXED_BEHAVIOURS = """
    kind = REQ["input"]["kind"]
    if kind == "exit":
        sys.exit(3)
    if kind == "garbage":
        OUT.write(b"nope"); OUT.flush(); sys.exit(0)
    if kind == "hang":
        time.sleep(60)
    if kind == "empty":
        sys.exit(0)
    if kind == "wrong":
        answer({"outcome": "route:wrong", "actions_attempted": ["delete_records"]}); sys.exit(0)
    if kind == "noisy":
        sys.stderr.write("noise\\n" * 1000)
    answer()
"""


def test_results_identical_at_concurrency_1_and_8(make_suite, python_agent):
    kinds = ["ok", "exit", "garbage", "hang", "empty", "wrong", "noisy", "ok"]
    suite = make_suite([(f"case-{i}", {"kind": k}) for i, k in enumerate(kinds)])
    argv = python_agent(_MIXED_BEHAVIOURS)
    timeout = 0.5
    rows1, run1 = _run(suite, argv, timeout=timeout, concurrency=1, repeats=2)
    started = time.monotonic()
    rows8, run8 = _run(suite, argv, timeout=timeout, concurrency=8, repeats=2)
    elapsed8 = time.monotonic() - started

    def table(run: Any) -> list[tuple[str, int, dict[str, Any]]]:
        return [(u.case.scenario_id, u.repeat,
                 {k: v for k, v in u.row.items() if k != "latency_s"}) for u in run.units]

    assert table(run1) == table(run8)
    assert [u.row["failure_codes"][:1] for u in run1.units] == [
        [], [], ["adapter-exit-3"], ["adapter-exit-3"],
        ["adapter-invalid-response"], ["adapter-invalid-response"],
        ["adapter-timeout"], ["adapter-timeout"],
        ["adapter-invalid-response"], ["adapter-invalid-response"],
        ["outcome-mismatch"], ["outcome-mismatch"], [], [], [], [],
    ]
    assert elapsed8 < 2 * timeout + 2 * SLACK


def test_cancel_kills_in_flight_children_promptly(make_suite, python_agent, tmp_path,
                                                  process_gone):
    body = """
        child = subprocess.Popen([sys.executable, "-I", "-S", "-c", "import time; time.sleep(60)"])
        with open(os.path.join(sys.argv[1], SID + ".pid"), "w") as fh:
            fh.write(f"{os.getpid()} {child.pid}.")
        time.sleep(60)
    """
    suite = make_suite(["one", "two", "three"])
    adapter = CommandAdapter(python_agent(body), 30.0)
    answers: dict[str, Any] = {}

    def call(case: Any) -> None:
        answers[case.scenario_id] = adapter.invoke(build_request(suite.suite_id, case), case)

    threads = [threading.Thread(target=call, args=(c,), daemon=True) for c in suite.cases]
    for t in threads:
        t.start()
    pids = []
    for case in suite.cases:
        path = tmp_path / f"{case.scenario_id}.pid"
        end = time.monotonic() + 10
        while not (path.exists() and path.read_text().endswith(".")):
            assert time.monotonic() < end, "agent did not start"
            time.sleep(0.01)
        pids += [int(p) for p in path.read_text()[:-1].split()]
    cancelled_at = time.monotonic()
    adapter.cancel()
    for t in threads:
        t.join(timeout=SLACK)
        assert not t.is_alive(), "invoke did not return after cancel()"
    assert time.monotonic() - cancelled_at < SLACK
    for answer in answers.values():
        assert answer.response is None and answer.error is not None
    for pid in pids:
        assert process_gone(pid)
    # after cancel, new invocations fail at once without starting anything
    case = suite.cases[0]
    late = adapter.invoke(build_request(suite.suite_id, case), case)
    assert late.error is not None and late.latency_s < 1.0
    adapter.close()


def test_cancel_racing_with_a_spawn_still_kills_the_child(make_suite, python_agent,
                                                         monkeypatch):
    """cancel() landing between invoke's cancelled-check and the spawn must not be missed."""
    import subprocess

    suite = make_suite(["one"])
    adapter = CommandAdapter(python_agent("time.sleep(60)\n"), 30.0)
    real_popen = subprocess.Popen

    def popen_then_cancel(*args: Any, **kwargs: Any) -> Any:
        proc = real_popen(*args, **kwargs)
        adapter.cancel()
        return proc

    monkeypatch.setattr(subprocess, "Popen", popen_then_cancel)
    case = suite.cases[0]
    answer = adapter.invoke(build_request(suite.suite_id, case), case)
    assert answer.error is not None
    assert answer.latency_s < SLACK


def test_describe_names_only_the_program(python_agent):
    argv = python_agent("answer()\n") + ["--api-key", "sk-secret"]
    assert CommandAdapter(argv, 1.0).describe() == {"kind": "command", "argv0": sys.executable}


@pytest.mark.skipif(not hasattr(os, "killpg"), reason="POSIX process groups")
def test_run_survives_every_behaviour_at_once(make_suite, python_agent):
    """One run holding every misbehaviour still yields one row per unit, in suite order."""
    kinds = ["ok", "exit", "garbage", "hang", "empty", "wrong", "noisy"] * 3
    suite = make_suite([(f"c{i}", {"kind": k}) for i, k in enumerate(kinds)])
    rows, run = _run(suite, python_agent(_MIXED_BEHAVIOURS), timeout=0.5, concurrency=6)
    assert [u.case.scenario_id for u in run.units] == [f"c{i}" for i in range(len(kinds))]
    assert sum(r["exact"] for r in rows.values()) == 6
    assert all("adapter-internal-error" not in r["failure_codes"] for r in rows.values())
