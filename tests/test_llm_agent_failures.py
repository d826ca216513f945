"""examples/agents/llm_agent.py and llm_agent_http.py when the model server or the request is bad.

A tiny local HTTP server answers every ``POST /v1/chat/completions`` with one canned body, so each
malformed shape a broken server can send is a model-server failure (exit 3 / HTTP 502, "model
server failed: invalid response from local: ..."), never "bad request", a traceback, or an
outcome that could score as a right answer (a reply without ``choices`` is not ``no_tool_call``).
A request nested too deep is a bad request (exit 2 / HTTP 400); a server that is down fails at
once (exit 3), well inside ``aau evaluate --timeout``.
"""

from __future__ import annotations

import io
import json
import socket
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples" / "agents"))

import llm_agent  # noqa: E402
from llm_agent_http import LLMAgentServer  # noqa: E402

REQUEST = {
    "protocol_version": "aau-byo-agent-request/1.0", "suite_id": "s", "scenario_id": "c-1",
    "input": {"messages": [{"role": "user", "content": "What is 5 factorial?"}],
              "tools": [{"name": "math.factorial", "parameters": {"type": "object"}}]},
}
GOOD = {"model": "m", "choices": [{"finish_reason": "stop",
                                   "message": {"role": "assistant", "content": "No."}}]}
DEEP_REPLY = dict(GOOD, choices=[{"finish_reason": "stop",
                                  "message": {"content": "[" * 5000 + "]" * 5000}}])


class _Canned(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:  # noqa: N802
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body, content_type = self.server.reply  # type: ignore[attr-defined]
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@contextmanager
def serving(server: ThreadingHTTPServer, path: str) -> Iterator[str]:
    """``server`` answering in a thread; yields its URL with ``path``."""
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}{path}"
    finally:
        server.shutdown()
        server.server_close()


def model_server(body: str, content_type: str = "application/json") -> Any:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Canned)
    server.daemon_threads = True
    server.reply = (body, content_type)  # type: ignore[attr-defined]
    return serving(server, "/v1")


def run_agent(base_url: str, stdin: str, monkeypatch, capsys, *extra: str) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = llm_agent.main(["--base-url", base_url, *extra])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(autouse=True)
def _env(monkeypatch):
    monkeypatch.setenv("AAU_LOCAL_MODEL", "m")
    monkeypatch.delenv("AAU_LOCAL_BASE_URL", raising=False)
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(name, raising=False)


MALFORMED = {
    "HTML body": ("<html>busy</html>", "text/html"),
    "non-JSON labelled JSON": ("Expecting nothing", "application/json"),
    "JSON list": ("[1, 2]", "application/json"),
    "no choices": (json.dumps({"model": "m"}), "application/json"),
    "empty choices": (json.dumps({"model": "m", "choices": []}), "application/json"),
    "content a number": (json.dumps({"choices": [{"message": {"content": 7}}]}),
                         "application/json"),
}


@pytest.mark.parametrize("shape", sorted(MALFORMED))
def test_malformed_server_reply_is_a_model_server_failure(shape, monkeypatch, capsys) -> None:
    with model_server(*MALFORMED[shape]) as url:
        code, out, err = run_agent(url, json.dumps(REQUEST) + "\n", monkeypatch, capsys)
    assert code == 3 and out == "", err
    assert "model server failed: invalid response from local: " in err
    assert "Traceback" not in err


def test_deeply_nested_model_reply_is_a_malformed_tool_call(monkeypatch, capsys) -> None:
    with model_server(json.dumps(DEEP_REPLY)) as url:
        code, out, err = run_agent(url, json.dumps(REQUEST) + "\n", monkeypatch, capsys)
    assert code == 0, err
    assert json.loads(out)["outcome"] == "malformed_tool_call"


def test_deeply_nested_request_is_a_bad_request(monkeypatch, capsys) -> None:
    with model_server(json.dumps(GOOD)) as url:
        code, out, err = run_agent(url, "[" * 3000 + "]" * 3000 + "\n", monkeypatch, capsys)
    assert code == 2 and out == "" and "bad request" in err and "nested deeper" in err


def test_server_down_fails_fast_with_exit_3(monkeypatch, capsys) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed when the block ends: nothing listens there
    start = time.monotonic()
    code, _, err = run_agent(f"http://127.0.0.1:{port}/v1", json.dumps(REQUEST) + "\n",
                             monkeypatch, capsys)
    assert code == 3 and "ConnectionError" in err and "connection refused" in err
    assert time.monotonic() - start < 10


def test_missing_model_names_the_cli_option(monkeypatch, capsys) -> None:
    monkeypatch.delenv("AAU_LOCAL_MODEL")
    code, _, err = run_agent("http://127.0.0.1:9/v1", "{}\n", monkeypatch, capsys)
    assert code == 2 and "--model" in err and "AAU_LOCAL_MODEL" in err


def _post(url: str, body: bytes) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def http_agent(base_url: str) -> Any:
    server = LLMAgentServer(("127.0.0.1", 0), llm_agent.make_llm_backend(base_url, "m"))
    return serving(server, "/evaluate")


@pytest.mark.parametrize("shape", ["non-JSON labelled JSON", "no choices"])
def test_http_flavour_answers_502_for_a_malformed_server_reply(shape) -> None:
    with model_server(*MALFORMED[shape]) as url, http_agent(url) as endpoint:
        status, body = _post(endpoint, json.dumps(REQUEST).encode())
    assert status == 502 and "model server failed: invalid response from local" in body["error"]


def test_http_flavour_answers_400_for_a_deeply_nested_request() -> None:
    with model_server(json.dumps(GOOD)) as url, http_agent(url) as endpoint:
        status, body = _post(endpoint, b"[" * 3000 + b"]" * 3000)
    assert status == 400 and "nested deeper" in body["error"]
