"""A local HTTP server that answers with recorded chat completions (tests/fixtures/llm/).

``tools/demo_llm.py --record`` saves every raw exchange between an example agent and
``llama_cpp.server``. :class:`ReplayServer` answers ``POST /v1/chat/completions`` with the recorded
response body for the identical request body (the request is the lookup key: a change in what the
agent sends the model shows up in ``unknown`` and as HTTP 400 "no recorded reply").
"""

from __future__ import annotations

import json
from collections import Counter
from contextlib import AbstractContextManager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests._helpers import serving


def request_key(body: Any) -> str:
    """The lookup key of a request body: its JSON with sorted keys, no spaces."""
    return json.dumps(body, sort_keys=True, separators=(",", ":"))


class ReplayServer(ThreadingHTTPServer):
    """Serves recorded ``llama_cpp.server`` answers, looked up by the exact request body."""

    daemon_threads = True

    def __init__(self, exchanges: list[dict[str, Any]]) -> None:
        self.answers = {request_key(x["request"]): (x["status"], x["response_body"])
                        for x in exchanges}
        self.served: Counter[str] = Counter()
        self.unknown: list[Any] = []
        super().__init__(("127.0.0.1", 0), _ReplayHandler)

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible base URL, ``http://127.0.0.1:PORT/v1``."""
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _ReplayHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:  # noqa: N802
        server: Any = self.server
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        key = request_key(body)
        if self.path == "/v1/chat/completions" and key in server.answers:
            server.served[key] += 1
            status, text = server.answers[key]
        else:
            server.unknown.append(body)
            status, text = 400, json.dumps({"error": "no recorded reply for this request"})
        data = text.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        """Quiet."""


def serve_replies(exchanges: list[dict[str, Any]]) -> AbstractContextManager[ReplayServer]:
    """Run a :class:`ReplayServer` of ``exchanges`` in a thread for the ``with`` block."""
    return serving(ReplayServer(exchanges))
