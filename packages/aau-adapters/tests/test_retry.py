"""Opt-in retries of the endpoint adapter (``--retries``, ``--retry-max-wait``; ``_retry``).

The wait rules are pure functions tested with exact values. The adapter is tested against real
HTTP servers (conftest's ``http_server``, 127.0.0.1) with a fake clock and sleep injected, so
the back-off schedule and the cap are exact and no test sleeps for them; two tests wait a real
~1 s ``Retry-After`` to show the wait really happens and is charged neither to the timeout nor
to the latency.
"""

from __future__ import annotations

import json
import math
import threading
import time
from datetime import datetime, timezone
from email.utils import format_datetime
from pathlib import Path
from typing import Any

import attrs
import pytest
from aau_adapters import (
    AdapterAnswer,
    EndpointAdapter,
    MockAdapter,
    check_evaluation_arguments,
    choose_adapter,
    evaluate,
    run_evaluation,
)
from aau_adapters._cli import infrastructure_summary
from aau_adapters._retry import backoff_s, is_retryable, parse_retry_after, retry_wait_s
from aau_core import UsageError, run

pytestmark = pytest.mark.slow  # starts servers

NOW = 1_700_000_000.0  # the fake wall clock: 2023-11-14T22:13:20Z


def _date(when: float) -> str:
    return format_datetime(datetime.fromtimestamp(when, tz=timezone.utc), usegmt=True)


# --------------------------------------------------------------------------------------------
# the wait rules


@pytest.mark.parametrize(("value", "seconds"), [
    ("1", 1.0), (" 120 ", 120.0), ("0", 0.0), ("007", 7.0),
    (_date(NOW + 30), 30.0),                          # IMF-fixdate
    (_date(NOW - 30), 0.0),                           # a date in the past: no wait
    ("Tuesday, 14-Nov-23 22:13:50 GMT", 30.0),        # obsolete RFC 850 form
    ("Tue Nov 14 22:13:50 2023", 30.0),               # obsolete asctime form (no zone: GMT)
    ("9" * 20, math.inf),                             # delta-seconds beyond a float
    ("-1", None), ("1.5", None), ("soon", None), ("", None), (None, None),
])
def test_parse_retry_after(value, seconds):
    assert parse_retry_after(value, NOW) == seconds


def test_backoff_doubles_from_half_a_second():
    assert [backoff_s(k) for k in range(1, 7)] == [0.5, 1.0, 2.0, 4.0, 8.0, 16.0]
    assert backoff_s(10_000) > 1e300  # no OverflowError for absurd retry counts


@pytest.mark.parametrize(("retry", "header", "cap", "wait"), [
    (1, None, 60.0, 0.5),
    (7, None, 60.0, 32.0),
    (8, None, 60.0, 60.0),      # back-off 64 s, capped
    (1, "3600", 60.0, 60.0),    # a Retry-After beyond the cap waits the cap
    (3, "2", 60.0, 2.0),        # a valid Retry-After replaces the back-off (not 2.0 by chance)
    (3, "soon", 60.0, 2.0),     # an invalid one falls back to it
    (1, "5", 0.0, 0.0),         # --retry-max-wait 0: retry at once
    (1, _date(NOW + 90), 60.0, 60.0),
])
def test_retry_wait_is_retry_after_or_backoff_capped(retry, header, cap, wait):
    assert retry_wait_s(retry, header, now=NOW, max_wait_s=cap) == wait


@pytest.mark.parametrize(("code", "retried"), [
    ("adapter-http-429", True), ("adapter-http-500", True), ("adapter-http-503", True),
    ("adapter-http-599", True), ("adapter-unreachable", True),
    ("adapter-http-404", False), ("adapter-http-400", False), ("adapter-http-408", False),
    ("adapter-timeout", False), ("adapter-invalid-response", False),
    ("adapter-protocol-error", False), ("adapter-internal-error", False),
    ("adapter-exit-1", False), ("adapter-not-found", False), ("outcome-mismatch", False),
    (None, False),
])
def test_only_infrastructure_failures_are_retried(code, retried):
    assert is_retryable(code) is retried


# --------------------------------------------------------------------------------------------
# the adapter, with a fake clock


class FakeClock:
    """``monotonic()`` and ``now()`` that only ``sleep(seconds)`` advances; waits recorded."""

    def __init__(self) -> None:
        self.t = 0.0
        self.sleeps: list[float] = []

    def monotonic(self) -> float:
        return self.t

    def now(self) -> float:
        return NOW + self.t

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.t += seconds


def _scripted(answers: list[tuple[int, dict[str, str], bytes]]) -> Any:
    """A ``respond`` giving ``answers`` in order to the case ``bad`` (then the good answer)."""
    left = list(answers)

    def respond(doc: Any, _handler: Any, _server: Any) -> Any:
        if isinstance(doc, dict) and doc.get("scenario_id") == "bad" and left:
            return left.pop(0)
        return None

    return respond


def _invoke(suite: Any, url: str, clock: FakeClock | None = None, *, timeout: float = 5.0,
            **options: Any) -> tuple[AdapterAnswer, dict[str, Any]]:
    """Evaluate the suite's one case ``bad``; return its answer and row."""
    extra = {} if clock is None else {"sleep": clock.sleep, "clock": clock.monotonic,
                                      "now": clock.now}
    adapter = EndpointAdapter(url, timeout, **options, **extra)
    try:
        result = evaluate(suite, adapter, timeout_s=timeout)
    finally:
        adapter.close()
    (unit,) = result.units
    return unit.answer, unit.row


def _bad(make_suite: Any) -> Any:
    return make_suite(["bad"])


def test_429_forever_backs_off_exactly_and_keeps_the_last_code(make_suite, http_server):
    server = http_server(lambda *_: (429, {}, b"{}"))
    clock = FakeClock()
    answer, row = _invoke(_bad(make_suite), server.url, clock, retries=4)
    assert clock.sleeps == [0.5, 1.0, 2.0, 4.0]
    assert (answer.attempts, answer.retry_wait_s, answer.error) == (5, 7.5, "adapter-http-429")
    assert len(server.requests) == 5
    assert row["failure_codes"] == ["adapter-http-429", "not-submitted"]
    assert answer.detail == "HTTP status 429 (after 5 attempts, 7.5 s waited)"


def test_two_retries_mean_three_attempts(make_suite, http_server):
    server = http_server(lambda *_: (429, {"Retry-After": "1"}, b"{}"))
    clock = FakeClock()
    answer, _ = _invoke(_bad(make_suite), server.url, clock, retries=2)
    assert (answer.attempts, answer.error, clock.sleeps) == (3, "adapter-http-429", [1.0, 1.0])
    assert len(server.requests) == 3


def test_a_retry_after_beyond_the_cap_waits_the_cap(make_suite, http_server):
    server = http_server(lambda *_: (429, {"Retry-After": "3600"}, b"{}"))
    clock = FakeClock()
    answer, _ = _invoke(_bad(make_suite), server.url, clock, retries=2, retry_max_wait_s=60)
    assert clock.sleeps == [60.0, 60.0]
    assert answer.retry_wait_s == 120.0


def test_retry_after_as_an_http_date_then_success(make_suite, http_server):
    clock = FakeClock()
    server = http_server(_scripted([(429, {"Retry-After": _date(NOW + 5)}, b"{}")]))
    answer, row = _invoke(_bad(make_suite), server.url, clock, retries=3)
    assert clock.sleeps == [5.0]
    assert (answer.attempts, answer.retry_wait_s, answer.error) == (2, 5.0, None)
    assert row["exact"] is True and row["failure_codes"] == []
    assert answer.detail is None


def test_503_twice_then_200_is_scored_on_the_answer(make_suite, http_server):
    clock = FakeClock()
    server = http_server(_scripted([(503, {}, b"down"), (503, {}, b"down")]))
    answer, row = _invoke(_bad(make_suite), server.url, clock, retries=3)
    assert clock.sleeps == [0.5, 1.0]
    assert (answer.attempts, answer.retry_wait_s, answer.error) == (3, 1.5, None)
    assert row["exact"] is True
    assert len(server.requests) == 3


def test_unreachable_is_retried(make_suite, free_port):
    clock = FakeClock()
    answer, _ = _invoke(_bad(make_suite), f"http://127.0.0.1:{free_port}/agent", clock, retries=2)
    assert (answer.attempts, answer.error, clock.sleeps) == (3, "adapter-unreachable", [0.5, 1.0])


@pytest.mark.parametrize(("status", "body", "code"), [
    (404, b"{}", "adapter-http-404"),
    (400, b"{}", "adapter-http-400"),
    (200, b"not json", "adapter-invalid-response"),  # a 2xx with a bad body is the agent's
])
def test_agent_answers_are_not_retried(make_suite, http_server, status, body, code):
    server = http_server(lambda *_: (status, {"Retry-After": "1"}, body))
    clock = FakeClock()
    answer, _ = _invoke(_bad(make_suite), server.url, clock, retries=3)
    assert (answer.attempts, answer.retry_wait_s, answer.error) == (1, 0.0, code)
    assert clock.sleeps == [] and len(server.requests) == 1


def test_a_timeout_is_not_retried(make_suite, http_server):
    def respond(_doc: Any, _handler: Any, server: Any) -> Any:
        server.stopping.wait(5.0)

    server = http_server(respond)
    clock = FakeClock()
    answer, _ = _invoke(_bad(make_suite), server.url, clock, timeout=0.3, retries=3)
    assert (answer.attempts, answer.error, clock.sleeps) == (1, "adapter-timeout", [])
    assert len(server.requests) == 1


def test_without_retries_a_429_is_recorded_at_once(make_suite, http_server):
    server = http_server(lambda *_: (429, {"Retry-After": "1"}, b"{}"))
    clock = FakeClock()
    answer, _ = _invoke(_bad(make_suite), server.url, clock)
    assert (answer.attempts, answer.retry_wait_s, answer.error) == (1, 0.0, "adapter-http-429")
    assert clock.sleeps == [] and len(server.requests) == 1
    assert answer.detail == "HTTP status 429"


# --------------------------------------------------------------------------------------------
# real waits


def _timed(answers: list[tuple[int, dict[str, str], bytes]]) -> tuple[Any, list[float]]:
    """``_scripted`` that also records when (monotonic) each request of ``bad`` arrived."""
    scripted = _scripted(answers)
    arrivals: list[float] = []

    def respond(doc: Any, handler: Any, server: Any) -> Any:
        arrivals.append(time.monotonic())
        return scripted(doc, handler, server)

    return respond, arrivals


def test_a_real_retry_after_is_waited_and_charged_to_neither_timeout_nor_latency(
        make_suite, http_server):
    respond, arrivals = _timed([(429, {"Retry-After": "1"}, b"{}")])
    server = http_server(respond)
    # a timeout shorter than the wait: were the wait charged to it, the retry would time out
    answer, row = _invoke(_bad(make_suite), server.url, timeout=0.8, retries=1)
    assert (answer.attempts, answer.error, row["exact"]) == (2, None, True)
    assert 1.0 <= answer.retry_wait_s < 2.0
    assert arrivals[1] - arrivals[0] >= 1.0
    assert answer.latency_s < 0.5  # the last exchange only
    assert row["latency_s"] == round(answer.latency_s, 6)


def test_cancel_ends_a_wait_at_once(make_suite, http_server):
    server = http_server(lambda *_: (429, {"Retry-After": "30"}, b"{}"))
    adapter = EndpointAdapter(server.url, 5.0, retries=1)
    case = make_suite(["bad"]).cases[0]
    got: list[AdapterAnswer] = []
    worker = threading.Thread(target=lambda: got.append(adapter.invoke(
        {"protocol_version": "aau-byo-agent-request/1.0", "suite_id": "s",
         "scenario_id": "bad", "input": {}}, case)))
    try:
        worker.start()
        end = time.monotonic() + 5
        while not server.requests and time.monotonic() < end:
            time.sleep(0.01)
        time.sleep(0.1)  # now waiting the 30 s
        cancelled_at = time.monotonic()
        adapter.cancel()
        worker.join(timeout=5)
    finally:
        adapter.close()
    assert not worker.is_alive()
    assert time.monotonic() - cancelled_at < 2.0
    (answer,) = got
    assert (answer.error, answer.detail, answer.attempts) == ("adapter-internal-error",
                                                              "run cancelled", 1)
    assert 0.0 < answer.retry_wait_s < 2.0
    assert len(server.requests) == 1


# --------------------------------------------------------------------------------------------
# the options


def _suite_file(tmp_path: Path, make_suite: Any, cases: list[str]) -> str:
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(make_suite(cases).doc), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(("args", "fragment"), [
    (["--endpoint", "http://127.0.0.1:9/e", "--retries"], "'--retries' requires an argument"),
    (["--endpoint", "http://127.0.0.1:9/e", "--retries", "-1"], "-1 is not in the range x>=0"),
    (["--endpoint", "http://127.0.0.1:9/e", "--retries", "two"], "'two' is not a valid integer"),
    (["--endpoint", "http://127.0.0.1:9/e", "--retry-max-wait", "-1"],
     "--retry-max-wait must be a finite number of seconds >= 0, not -1.0"),
    (["--endpoint", "http://127.0.0.1:9/e", "--retry-max-wait", "inf"],
     "--retry-max-wait must be a finite number of seconds >= 0, not inf"),
    (["--endpoint", "http://127.0.0.1:9/e", "--unmeasured-limit", "nan"],
     "Invalid value for '--unmeasured-limit': 'nan' is not a number"),
    (["--endpoint", "http://127.0.0.1:9/e", "--min-coverage", "nan"],
     "Invalid value for '--min-coverage': 'nan' is not a number"),
    (["--mock", "--retries", "1"], "--retries applies to --endpoint only"),
    (["--command", "python agent.py", "--retries", "2"],
     "--retries applies to --endpoint only (it retries HTTP 429, 5xx and unreachable "
     "endpoints); --command has no transport to retry"),
    (["--mock", "--retry-max-wait", "5"], "--retry-max-wait applies to --endpoint only"),
])
def test_bad_retry_options_are_one_line_exit_2(tmp_path, capsys, make_suite, args, fragment):
    suite = _suite_file(tmp_path, make_suite, ["a"])
    out = tmp_path / "r.json"
    rc = run(["evaluate", suite, "--out", str(out), *args])
    captured = capsys.readouterr()
    assert rc == 2
    assert fragment in captured.err
    assert captured.err.count("\n") == 1 and captured.out == ""
    assert not out.exists()


def test_retries_zero_is_accepted_for_every_adapter():
    assert callable(choose_adapter(mock=True, retries=0))
    assert callable(choose_adapter(command="python agent.py", retries=0))


def test_python_callers_get_the_same_rules(make_suite, http_server):
    for bad in (-1, True, 1.5, "2"):
        with pytest.raises(UsageError, match="retries must be an integer >= 0"):
            check_evaluation_arguments(repeats=1, concurrency=1, timeout_s=1.0, format="aau-2.0",
                                       executor="local", fail_under=(), retries=bad)
    with pytest.raises(UsageError, match="--retries must be an integer >= 0, not -1"):
        EndpointAdapter("http://127.0.0.1:9/e", 1.0, retries=-1)
    suite = make_suite(["a"])
    with pytest.raises(UsageError, match="retries apply to an endpoint only"):
        run_evaluation(suite, MockAdapter(), retries=1)
    adapter = EndpointAdapter(http_server().url, 30.0, retries=2)
    try:
        with pytest.raises(UsageError, match="the endpoint adapter retries 2 time.s. but "
                                             "retries=0 would be recorded"):
            run_evaluation(suite, adapter)
        assert run_evaluation(suite, adapter, retries=2).document["metrics"]["exact_rate"] == 1.0
    finally:
        adapter.close()


def test_evaluate_says_infrastructure_failures_and_retries_apart(tmp_path, capsys, make_suite,
                                                                 http_server):
    def respond(doc: Any, _handler: Any, _server: Any) -> Any:
        sid = doc["scenario_id"]
        if sid == "down":
            return 503, {}, b"down"
        if sid == "busy" and sum(json.loads(r["body"])["scenario_id"] == "busy"
                                 for r in server.requests) == 1:
            return 429, {"Retry-After": "0"}, b"{}"
        return None

    server = http_server(respond)
    suite = _suite_file(tmp_path, make_suite, ["busy", "down", "ok1", "ok2"])
    out = tmp_path / "r.json"
    rc = run(["evaluate", suite, "--endpoint", server.url, "--retries", "1", "--quiet",
              "--out", str(out)])
    err = capsys.readouterr().err
    assert rc == 0, err
    assert json.loads(out.read_text(encoding="utf-8"))["metrics"]["exact_rate"] == 0.75
    # busy: 429 then 200 (retried at once: Retry-After 0); down: 503 twice (back-off 0.5 s)
    assert err.startswith("adversarial: 4 unit(s), exact_rate 0.7500; 1 of 4 unit(s) not "
                          "measured: 1 infrastructure (adapter-http-503 1); 2 unit(s) retried, ")
    assert err.endswith(f" s waited; receipt: {out}\n")
    assert len(server.requests) == 6


def test_infrastructure_summary_counts_by_class():
    @attrs.frozen
    class Unit:
        answer: AdapterAnswer

    def unit(code: str | None, attempts: int = 1, waited: float = 0.0) -> Unit:
        return Unit(AdapterAnswer(None, code, 0.1, attempts=attempts, retry_wait_s=waited))

    units = [unit("adapter-http-429", 3, 2.0), unit("adapter-http-429"), unit("adapter-http-503"),
             unit("adapter-unreachable", 2, 0.5), unit("adapter-timeout"),
             unit("adapter-http-404"), unit(None, 2, 1.25)]
    assert infrastructure_summary(units) == (
        "4 infrastructure failure(s), not measured (adapter-http-429 2, adapter-http-503 1, "
        "adapter-unreachable 1); 3 unit(s) retried, 3.8 s waited")
    assert infrastructure_summary([unit(None, 2, 1.0)]) == "1 unit(s) retried, 1.0 s waited"
    assert infrastructure_summary([unit("adapter-timeout"), unit(None)]) is None
