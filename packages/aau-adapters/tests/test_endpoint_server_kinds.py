"""The endpoint adapter does not stall on any kind of HTTP server, whatever its write pattern.

A server that writes its headers and its body in two small writes with Nagle on holds the body
until aau ACKs the headers; on a kept-alive connection Linux delays that ACK by ~40 ms, so every
case would cost ~43 ms (``_endpoint_adapter``'s docstring). Each server kind of
``examples/agents/server_kinds.py`` (the ones the benchmarks run) answers 40 cases in a row at
concurrency 1 here. Not a speed goal: a guard against the stall. The bounds are ~20x above what
a healthy exchange costs on a loaded 2-core machine (~1 ms) and below what the stall costs
(>= 40 ms per case: 40 cases >= 1.6 s).
"""

from __future__ import annotations

import importlib.util
import json
import socket
import statistics
import sys
import time
from pathlib import Path

import pytest
from aau_adapters import EndpointAdapter, evaluate, suite_from_document

pytestmark = pytest.mark.slow  # starts servers

REPO = Path(__file__).resolve().parents[3]
AGENTS = REPO / "examples" / "agents"
CASES = 40
MAX_TOTAL_S = 0.8  # 40 cases; a stall costs >= 1.6 s
MAX_MEDIAN_S = 0.015  # per case; a stall costs >= 0.040 s


def _server_kinds():
    spec = importlib.util.spec_from_file_location("server_kinds", AGENTS / "server_kinds.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("server_kinds", module)
    spec.loader.exec_module(module)
    return module


KINDS = _server_kinds()


def _suite():
    doc = json.loads((REPO / "examples" / "suites" / "public-service-routing.json")
                     .read_text(encoding="utf-8"))
    base = doc["cases"]
    doc["cases"] = [dict(base[i % len(base)], scenario_id=f"case-{i:03d}") for i in range(CASES)]
    return suite_from_document(doc)


def _sequential_run(url: str) -> tuple[float, float, list[str]]:
    """(wall s, median latency s, adapter failure codes) of CASES cases at concurrency 1."""
    adapter = EndpointAdapter(url, 5.0, concurrency=1)
    try:
        started = time.perf_counter()
        run = evaluate(_suite(), adapter, repeats=1, concurrency=1, timeout_s=5.0)
        wall = time.perf_counter() - started
    finally:
        adapter.close()
    errors = [u.answer.error for u in run.units if u.answer.error is not None]
    return wall, statistics.median(u.answer.latency_s for u in run.units), errors


def test_the_benchmarks_server_kinds_are_all_here():
    assert set(KINDS.SERVER_KINDS) == {"http1.1-nodelay", "http1.1-two-writes", "http1.1-chunked",
                                       "http1.1-close", "http1.0", "uvicorn"}


@pytest.mark.parametrize("kind", sorted(KINDS.SERVER_KINDS))
def test_no_delayed_ack_stall_on_any_server_kind(kind):
    with KINDS.RunningAgent(kind) as agent:
        _sequential_run(agent.url)  # warm-up: imports, the server's first answer
        wall, median, errors = _sequential_run(agent.url)
    assert errors == []
    assert median < MAX_MEDIAN_S, f"{kind}: median {median * 1000:.1f} ms per case"
    assert wall < MAX_TOTAL_S, f"{kind}: {CASES} cases took {wall:.2f} s"


class _RecordingStream:
    """An inner network stream that records what the adapter's stream does to it."""

    def __init__(self, fail_writes: bool = False) -> None:
        self.options: list[tuple[int, int, int]] = []
        self.writes: list[bytes] = []
        self.fail_writes = fail_writes

    def setsockopt(self, level: int, option: int, value: int) -> None:
        self.options.append((level, option, value))

    def get_extra_info(self, info: str) -> object:
        return self if info == "socket" else None

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return b"x"

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        import httpcore

        if self.fail_writes:
            raise httpcore.WriteError("broken pipe")
        self.writes.append(buffer)


def _stream(inner: _RecordingStream):
    from aau_adapters import _endpoint_adapter as ea

    return ea._DeadlineStream(inner, ea._DeadlineBackend())  # type: ignore[arg-type]


def test_quick_ack_is_re_armed_before_every_read():
    """Where the option exists, every read of the adapter's stream sets it first (the kernel
    drops it whenever we send, so once per connection would not hold)."""
    if not hasattr(socket, "TCP_QUICKACK"):
        pytest.skip("no TCP_QUICKACK on this platform (documented in docs/evaluate.md)")
    inner = _RecordingStream()
    stream = _stream(inner)
    assert [stream.read(10), stream.read(10), stream.read(10)] == [b"x"] * 3
    assert inner.options == [(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 1)] * 3


def test_a_request_leaves_in_one_write():
    """httpcore writes the headers and the body apart; they reach the socket together, at the
    first read, or as soon as 64 KiB are pending (in 64 KiB slices)."""
    inner = _RecordingStream()
    stream = _stream(inner)
    stream.write(b"POST / HTTP/1.1\r\n\r\n")
    stream.write(b'{"a": 1}')
    assert inner.writes == []
    stream.read(10)
    assert inner.writes == [b'POST / HTTP/1.1\r\n\r\n{"a": 1}']
    stream.read(10)
    assert len(inner.writes) == 1  # nothing pending: nothing written
    inner.writes.clear()
    stream.write(b"h" * 100)
    stream.write(b"b" * 70_000)
    assert [len(w) for w in inner.writes] == [65_536, 4_564]


def test_a_failed_last_write_still_reads_the_answer():
    """As httpcore does: a server may answer (413) and close before taking the whole request."""
    stream = _stream(_RecordingStream(fail_writes=True))
    stream.write(b"request")
    assert stream.read(10) == b"x"


# what each kind puts on the wire: (HTTP version, chunked, closes after the answer, Server prefix)
WIRE = {
    "http1.1-nodelay": (11, False, False, "aau-example-http-agent"),
    "http1.1-two-writes": (11, False, False, "aau-example-http-agent"),
    "http1.1-chunked": (11, True, False, "aau-example-http-agent"),
    "http1.1-close": (11, False, True, "aau-example-http-agent"),
    "http1.0": (10, False, True, "aau-example-http-agent"),
    "uvicorn": (11, False, False, "uvicorn"),
}
REQUEST = {"protocol_version": "aau-byo-agent-request/1.0", "suite_id": "s", "scenario_id": "1",
           "input": {"source_state": "expired", "channel_need": "web"}}


def _exchange(url: str, method: str, path: str, body: bytes | None = None):
    import http.client
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    try:
        conn.request(method, path, body=body, headers={"Content-Type": "application/json"})
        resp = conn.getresponse()
        data = resp.read()
        return resp, json.loads(data) if data else None
    finally:
        conn.close()


@pytest.mark.parametrize("kind", sorted(WIRE))
def test_each_kind_answers_alike_and_writes_as_it_says(kind):
    version, chunked, closes, server = WIRE[kind]
    with KINDS.RunningAgent(kind) as agent:
        resp, doc = _exchange(agent.url, "POST", "/evaluate", json.dumps(REQUEST).encode())
        assert (resp.status, doc["outcome"]) == (200, "stop_stale_source")
        assert (resp.version, resp.chunked, resp.will_close) == (version, chunked, closes)
        assert resp.getheader("Server", "").startswith(server)
        assert _exchange(agent.url, "POST", "/evaluate", b"not json")[0].status == 400
        assert _exchange(agent.url, "POST", "/elsewhere", b"{}")[0].status == 404
        refused, _ = _exchange(agent.url, "GET", "/evaluate")
        assert (refused.status, refused.getheader("Allow")) == (405, "POST")
        assert _exchange(agent.url, "GET", "/healthz")[1] == {"status": "ok"}
