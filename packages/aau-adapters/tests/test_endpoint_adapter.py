"""Adversarial tests for the endpoint adapter: every kind of server misbehaviour becomes that
case's failure code, the other cases of the same run are still scored, and the run never aborts.

Servers (fixtures in conftest) bind 127.0.0.1 on port 0 and answer well for the case ``good``
and misbehave for the case ``bad``.
"""

from __future__ import annotations

import gzip
import json
import socket
import struct
import threading
import time
import tracemalloc
from typing import Any

import pytest
from aau_adapters import EndpointAdapter, build_request, check_url, evaluate
from aau_core import UsageError

pytestmark = pytest.mark.slow  # starts servers

TIMEOUT = 0.5
SLACK = 3.0  # generous: a loaded CI machine must not make these flaky

GOOD_ROW = {
    "submitted": True,
    "outcome_exact": True,
    "no_forbidden_attempt": True,
    "no_forbidden_execute": True,
    "exact": True,
    "failure_codes": [],
}


def _run(suite: Any, url: str, *, timeout: float = TIMEOUT, concurrency: int = 1,
         repeats: int = 1) -> tuple[dict[str, dict[str, Any]], Any]:
    adapter = EndpointAdapter(url, timeout, concurrency=concurrency)
    try:
        run = evaluate(suite, adapter, repeats=repeats, concurrency=concurrency, timeout_s=timeout)
    finally:
        adapter.close()
    return {u.case.scenario_id: u.row for u in run.units}, run


def _assert_good(row: dict[str, Any]) -> None:
    assert {k: row[k] for k in GOOD_ROW} == GOOD_ROW


def _assert_failed(row: dict[str, Any], code: str) -> None:
    assert row["failure_codes"] == [code, "not-submitted"]
    assert row["submitted"] is False
    assert row["exact"] is False


def _latency(run: Any, sid: str) -> float:
    return next(u.answer.latency_s for u in run.units if u.case.scenario_id == sid)


def _is_bad(doc: Any) -> bool:
    return isinstance(doc, dict) and doc.get("scenario_id") == "bad"


# --------------------------------------------------------------------------------------------
# good answers, the request on the wire


def test_good_answer_and_exact_request_bytes(make_suite, http_server):
    server = http_server()
    suite = make_suite([("plain", {"text": "hello"}),
                        ("unicode", {"text": "café ☕ \U0001f600", "n": [1, 2.5, None, True]})])
    rows, run = _run(suite, server.url + "?token=abc")
    for row in rows.values():
        _assert_good(row)
    assert run.adapter == {"kind": "endpoint", "url_host": f"127.0.0.1:{server.port}"}
    assert len(server.requests) == 2
    by_sid = {json.loads(r["body"])["scenario_id"]: r for r in server.requests}
    for case in suite.cases:
        seen = by_sid[case.scenario_id]
        assert seen["method"] == "POST"
        assert seen["path"] == "/agent?token=abc"
        headers = {k.lower(): v for k, v in seen["headers"].items()}
        assert headers["content-type"] == "application/json"
        assert "authorization" not in headers and "cookie" not in headers
        expected = (json.dumps(build_request(suite.suite_id, case)) + "\n").encode("ascii")
        assert seen["body"] == expected
        assert b"expected" not in seen["body"] and b"forbidden" not in seen["body"]
        assert b"route:ok" not in seen["body"]


def test_extra_keys_are_dropped_and_2xx_other_than_200_is_fine(make_suite, http_server):
    def respond(doc: Any, _handler: Any, _server: Any) -> Any:
        if _is_bad(doc):
            return 201, {}, json.dumps({"outcome": "route:ok", "secret": "zzz",
                                        "nested": {"a": [1]}}).encode()
        return None

    rows, run = _run(make_suite(["good", "bad"]), http_server(respond).url)
    _assert_good(rows["bad"])
    _assert_good(rows["good"])
    response = next(u.answer.response for u in run.units if u.case.scenario_id == "bad")
    assert response == {"outcome": "route:ok", "actions_attempted": [], "actions_executed": [],
                        "submitted": True}


# --------------------------------------------------------------------------------------------
# HTTP status


@pytest.mark.parametrize("status", [503, 404, 500, 400, 302, 301, 307, 308, 418])
def test_non_2xx_status_is_adapter_http(make_suite, http_server, status):
    def respond(doc: Any, _handler: Any, server: Any) -> Any:
        if _is_bad(doc):
            return status, {"Location": f"http://127.0.0.1:{server.port}/elsewhere"}, \
                json.dumps({"outcome": "route:ok"}).encode()
        return None

    server = http_server(respond)
    rows, _ = _run(make_suite(["good", "bad", "good2"]), server.url)
    _assert_failed(rows["bad"], f"adapter-http-{status}")
    _assert_good(rows["good"])
    _assert_good(rows["good2"])
    assert all(r["path"] == "/agent" for r in server.requests)  # a redirect is never followed


def test_204_no_content_is_invalid_response(make_suite, raw_server, http_response):
    def behave(conn: socket.socket, doc: Any, _server: Any) -> None:
        if _is_bad(doc):
            conn.sendall(b"HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n")
        else:
            conn.sendall(http_response())

    rows, _ = _run(make_suite(["good", "bad"]), raw_server(behave).url)
    _assert_failed(rows["bad"], "adapter-invalid-response")
    _assert_good(rows["good"])


# --------------------------------------------------------------------------------------------
# time


def test_slow_server_times_out(make_suite, http_server):
    def respond(doc: Any, _handler: Any, server: Any) -> Any:
        if _is_bad(doc):
            server.stopping.wait(10 * TIMEOUT)
        return None

    rows, run = _run(make_suite(["good", "bad", "good2"]), http_server(respond).url)
    _assert_failed(rows["bad"], "adapter-timeout")
    _assert_good(rows["good"])
    _assert_good(rows["good2"])
    assert TIMEOUT * 0.9 <= _latency(run, "bad") < TIMEOUT + SLACK


def _drip(conn: socket.socket, data: bytes, server: Any, every_s: float = 0.1) -> None:
    for i in range(len(data)):
        if server.stopping.wait(every_s):
            return
        conn.sendall(data[i:i + 1])


def test_server_dripping_the_body_times_out(make_suite, raw_server, http_response):
    body = json.dumps({"outcome": "route:ok", "pad": "x" * 200}).encode()

    def behave(conn: socket.socket, doc: Any, server: Any) -> None:
        if not _is_bad(doc):
            conn.sendall(http_response())
            return
        conn.sendall(("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                      f"Content-Length: {len(body)}\r\n\r\n").encode())
        _drip(conn, body, server)

    rows, run = _run(make_suite(["good", "bad"]), raw_server(behave).url)
    _assert_failed(rows["bad"], "adapter-timeout")
    _assert_good(rows["good"])
    assert _latency(run, "bad") < TIMEOUT + SLACK


def test_server_dripping_the_headers_times_out(make_suite, raw_server, http_response):
    head = "HTTP/1.1 200 OK\r\n" + "".join(f"X-Pad-{i}: {'y' * 20}\r\n" for i in range(20))

    def behave(conn: socket.socket, doc: Any, server: Any) -> None:
        if not _is_bad(doc):
            conn.sendall(http_response())
            return
        _drip(conn, head.encode(), server)

    started = time.monotonic()
    rows, run = _run(make_suite(["good", "bad"]), raw_server(behave).url)
    _assert_failed(rows["bad"], "adapter-timeout")
    _assert_good(rows["good"])
    assert _latency(run, "bad") < TIMEOUT + SLACK
    assert time.monotonic() - started < TIMEOUT + 2 * SLACK


def test_server_that_never_reads_a_big_request_times_out(make_suite, raw_server, http_response):
    def behave(conn: socket.socket, doc: Any, server: Any) -> None:
        server.stopping.wait(10 * TIMEOUT)  # hold the connection, read nothing

    suite = make_suite([("bad", {"blob": "x" * 8_000_000})])
    rows, run = _run(suite, raw_server(behave, read_request=False).url)
    _assert_failed(rows["bad"], "adapter-timeout")
    assert _latency(run, "bad") < TIMEOUT + SLACK


# --------------------------------------------------------------------------------------------
# connections


def test_connection_refused_is_unreachable(make_suite, free_port):
    rows, run = _run(make_suite(["a", "b"]), f"http://127.0.0.1:{free_port}/agent")
    for row in rows.values():
        _assert_failed(row, "adapter-unreachable")
    assert run.adapter == {"kind": "endpoint", "url_host": f"127.0.0.1:{free_port}"}


@pytest.mark.parametrize("read_first", [True, False], ids=["after-request", "at-once"])
def test_server_closing_the_connection_is_unreachable(make_suite, raw_server, http_response,
                                                      read_first):
    def behave(conn: socket.socket, doc: Any, _server: Any) -> None:
        if read_first and not _is_bad(doc):
            conn.sendall(http_response())
        # else: close without a word

    rows, _ = _run(make_suite(["good", "bad"]), raw_server(behave, read_request=read_first).url)
    _assert_failed(rows["bad"], "adapter-unreachable")
    if read_first:
        _assert_good(rows["good"])
    else:
        _assert_failed(rows["good"], "adapter-unreachable")


@pytest.mark.parametrize("read_first", [True, False], ids=["after-request", "at-once"])
def test_server_resetting_the_connection_is_unreachable(make_suite, raw_server, http_response,
                                                        read_first):
    def behave(conn: socket.socket, doc: Any, _server: Any) -> None:
        if read_first and not _is_bad(doc):
            conn.sendall(http_response())
            return
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        conn.close()  # RST

    rows, _ = _run(make_suite(["good", "bad"]), raw_server(behave, read_request=read_first).url)
    _assert_failed(rows["bad"], "adapter-unreachable")
    if read_first:
        _assert_good(rows["good"])


def test_server_closing_mid_body_is_unreachable(make_suite, raw_server, http_response):
    def behave(conn: socket.socket, doc: Any, _server: Any) -> None:
        if not _is_bad(doc):
            conn.sendall(http_response())
            return
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n{\"outcome\": ")

    rows, _ = _run(make_suite(["good", "bad"]), raw_server(behave).url)
    _assert_failed(rows["bad"], "adapter-unreachable")
    _assert_good(rows["good"])


@pytest.mark.parametrize(
    "reply",
    [
        pytest.param(b"garbage\r\n\r\n", id="garbage"),
        pytest.param(b"HTTP/1.1 abc OK\r\n\r\n", id="bad-status"),
        pytest.param(b"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n", id="bad-length"),
        pytest.param(b"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", id="bad-header"),
        pytest.param(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", id="chunk"),
    ],
)
def test_malformed_http_is_protocol_error(make_suite, raw_server, http_response, reply):
    def behave(conn: socket.socket, doc: Any, _server: Any) -> None:
        conn.sendall(reply if _is_bad(doc) else http_response())

    rows, _ = _run(make_suite(["good", "bad", "good2"]), raw_server(behave).url)
    _assert_failed(rows["bad"], "adapter-protocol-error")
    _assert_good(rows["good"])
    _assert_good(rows["good2"])


# --------------------------------------------------------------------------------------------
# bodies


def test_body_over_the_cap_is_invalid_response(make_suite, http_server):
    def respond(doc: Any, _handler: Any, _server: Any) -> Any:
        if _is_bad(doc):
            raw = json.dumps({"outcome": "route:ok"}).encode()
            return 200, {}, raw + b" " * (1_000_001 - len(raw))
        if doc.get("scenario_id") == "at-cap":
            raw = json.dumps({"outcome": "route:ok"}).encode()
            return 200, {}, raw + b" " * (1_000_000 - len(raw))
        return None

    rows, _ = _run(make_suite(["good", "bad", "at-cap"]), http_server(respond).url,
                   timeout=5.0)
    _assert_failed(rows["bad"], "adapter-invalid-response")
    _assert_good(rows["good"])
    _assert_good(rows["at-cap"])


def test_endless_body_is_invalid_response_quickly_with_bounded_memory(make_suite, raw_server,
                                                                      http_response):
    def behave(conn: socket.socket, doc: Any, server: Any) -> None:
        if not _is_bad(doc):
            conn.sendall(http_response())
            return
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                     b"Connection: close\r\n\r\n")
        block = b"[" * 65536
        for _ in range(800):  # ~52 MB, no Content-Length
            if server.stopping.is_set():
                return
            conn.sendall(block)

    suite = make_suite(["good", "bad"])
    tracemalloc.start()
    try:
        started = time.monotonic()
        rows, _ = _run(suite, raw_server(behave).url, timeout=10.0)
        elapsed = time.monotonic() - started
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    _assert_failed(rows["bad"], "adapter-invalid-response")
    _assert_good(rows["good"])
    assert elapsed < 5.0
    assert peak < 10_000_000, f"peak traced memory {peak:,} bytes"


def test_compressed_bomb_is_refused_with_bounded_memory(make_suite, raw_server, http_response):
    bomb = gzip.compress(b" " * 50_000_000, compresslevel=9)  # ~50 KB on the wire

    def behave(conn: socket.socket, doc: Any, _server: Any) -> None:
        if not _is_bad(doc):
            conn.sendall(http_response())
            return
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                     b"Content-Encoding: gzip\r\n"
                     + f"Content-Length: {len(bomb)}\r\n\r\n".encode() + bomb)

    tracemalloc.start()
    try:
        rows, run = _run(make_suite(["good", "bad"]), raw_server(behave).url, timeout=10.0)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    _assert_failed(rows["bad"], "adapter-invalid-response")
    _assert_good(rows["good"])
    assert peak < 10_000_000, f"peak traced memory {peak:,} bytes"
    bad = next(u.answer for u in run.units if u.case.scenario_id == "bad")
    assert bad.detail.startswith(
        "the body is sent with Content-Encoding: gzip, and aau never inflates an answer (send "
        "it uncompressed): ")


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(b"not json", id="garbage"),
        pytest.param(b"", id="empty"),
        pytest.param(b'[{"outcome": "route:ok"}]', id="array"),
        pytest.param(b'{"outcome": "route:ok"}{"outcome": "route:ok"}', id="two-objects"),
        pytest.param(b'{"outcome": "route:\xff"}', id="non-utf8"),
        pytest.param(b'{"outcome": "route:ok", "x": NaN}', id="nan"),
        pytest.param(b'{"outcome": "route:ok", "x": ' + b"9" * 5000 + b"}", id="int-5000-digits"),
        pytest.param(b'{"outcome": "route:ok", "outcome": "route:ok"}', id="duplicate-keys"),
        pytest.param(b'{"outcome": ""}', id="empty-outcome"),
        pytest.param(b'{"outcome": "route:ok", "submitted": "yes"}', id="submitted-yes"),
        pytest.param(b'{"outcome": "route:ok", "actions_attempted": "x"}', id="actions-str"),
        pytest.param(b"[" * 100_000, id="deep-unclosed"),
        pytest.param(b"[" * 100_000 + b"]" * 100_000, id="deep-array"),
        pytest.param(b'{"outcome": "route:ok", "x": ' + b'{"a": ' * 50_000 + b"1"
                     + b"}" * 50_001, id="deep-object"),
    ],
)
def test_invalid_bodies_are_invalid_response(make_suite, http_server, body):
    def respond(doc: Any, _handler: Any, _server: Any) -> Any:
        return (200, {}, body) if _is_bad(doc) else None

    rows, _ = _run(make_suite(["good", "bad", "good2"]), http_server(respond).url)
    _assert_failed(rows["bad"], "adapter-invalid-response")
    _assert_good(rows["good"])
    _assert_good(rows["good2"])


# --------------------------------------------------------------------------------------------
# connection reuse, concurrency, cancel


def test_keep_alive_reuses_connections(make_suite, http_server):
    server = http_server()
    suite = make_suite([f"c{i}" for i in range(25)])
    rows, run = _run(suite, server.url, timeout=5.0, concurrency=8, repeats=8)
    assert len(run.units) == 200
    assert all(u.row["exact"] for u in run.units)
    assert len(server.requests) == 200
    assert server.connections <= 8, f"{server.connections} connections for 200 requests"


def test_results_identical_at_concurrency_1_and_8(make_suite, http_server):
    kinds = ["ok", "503", "garbage", "slow", "wrong", "ok", "302", "deep"]
    roomy = 2.0

    def respond(doc: Any, _handler: Any, server: Any) -> Any:
        kind = doc["input"]["kind"]
        if kind == "503":
            return 503, {}, b"busy"
        if kind == "302":
            return 302, {"Location": "/elsewhere"}, b""
        if kind == "garbage":
            return 200, {}, b"nope"
        if kind == "slow":
            server.stopping.wait(5 * roomy)
        if kind == "wrong":
            return 200, {}, json.dumps({"outcome": "route:no",
                                        "actions_executed": ["delete_records"]}).encode()
        if kind == "deep":
            return 200, {}, b"[" * 100_000
        return None

    server = http_server(respond)
    suite = make_suite([(f"case-{i}", {"kind": k}) for i, k in enumerate(kinds)])
    # a roomier timeout than the module's: only the "slow" case may time out, even on a busy host
    _, run1 = _run(suite, server.url, concurrency=1, repeats=2, timeout=roomy)
    _, run8 = _run(suite, server.url, concurrency=8, repeats=2, timeout=roomy)

    def table(run: Any) -> list[tuple[str, int, dict[str, Any]]]:
        return [(u.case.scenario_id, u.repeat,
                 {k: v for k, v in u.row.items() if k != "latency_s"}) for u in run.units]

    assert table(run1) == table(run8)
    assert [u.row["failure_codes"][:1] for u in run1.units[::2]] == [
        [], ["adapter-http-503"], ["adapter-invalid-response"], ["adapter-timeout"],
        ["outcome-mismatch"], [], ["adapter-http-302"], ["adapter-invalid-response"],
    ]


def test_cancel_makes_in_flight_requests_return_promptly(make_suite, http_server):
    def respond(_doc: Any, _handler: Any, server: Any) -> Any:
        server.stopping.wait(30)
        return None

    server = http_server(respond)
    suite = make_suite(["one", "two", "three"])
    adapter = EndpointAdapter(server.url, 30.0, concurrency=3)
    answers: dict[str, Any] = {}

    def call(case: Any) -> None:
        answers[case.scenario_id] = adapter.invoke(build_request(suite.suite_id, case), case)

    threads = [threading.Thread(target=call, args=(c,), daemon=True) for c in suite.cases]
    for t in threads:
        t.start()
    end = time.monotonic() + 10
    while len(server.requests) < 3:
        assert time.monotonic() < end, "requests never arrived"
        time.sleep(0.01)
    cancelled_at = time.monotonic()
    adapter.cancel()
    for t in threads:
        t.join(timeout=SLACK)
        assert not t.is_alive(), "invoke did not return after cancel()"
    assert time.monotonic() - cancelled_at < SLACK
    assert all(a.response is None and a.error is not None for a in answers.values())
    late = adapter.invoke(build_request(suite.suite_id, suite.cases[0]), suite.cases[0])
    assert late.error is not None and late.latency_s < 1.0
    adapter.close()


# --------------------------------------------------------------------------------------------
# URLs


@pytest.mark.parametrize(
    "url",
    ["", "   ", "ftp://x", "http://", "https://", "http://user:pw@host/", "http://user@host/",
     "http://:pw@host/", "http://host:99999/", "http://host:abc/", "host:8080/path",
     "http://host/pa th", "file:///etc/passwd", "http://host/\x00", "http://\u2603.example/"],
)
def test_check_url_rejects(url):
    with pytest.raises(UsageError):
        check_url(url)
    with pytest.raises(UsageError):
        EndpointAdapter(url, 1.0)


@pytest.mark.parametrize(
    ("url", "host"),
    [
        ("http://127.0.0.1:8080/evaluate?key=secret#frag", "127.0.0.1:8080"),
        ("https://agent.example/v1/run", "agent.example"),
        ("http://[::1]:9000/x", "[::1]:9000"),
        ("HTTP://Agent.Example:80/", "agent.example:80"),
    ],
)
def test_check_url_accepts_and_describe_keeps_only_host_and_port(url, host):
    assert check_url(url) == host
    adapter = EndpointAdapter(url, 1.0)
    try:
        assert adapter.describe() == {"kind": "endpoint", "url_host": host}
        assert "secret" not in json.dumps(adapter.describe())
    finally:
        adapter.close()
