"""A fake OpenAI-compatible (and Anthropic Messages) HTTP server for offline backend tests.

Real HTTP on 127.0.0.1, port 0 (the OS picks). Speaks:

- ``POST /v1/chat/completions``: answers with a tool call. Before any tool result is in the
  conversation it calls the first tool offered with ``{"q": "first"}``; after one it calls the tool
  named ``submit`` (if offered) with ``{"answer": "<the last tool result>"}``, else answers in text.
  The ``model`` it reports is the requested id + ``SERVED_SUFFIX`` (a redirect, for provenance).
  With ``stream_only`` set, a request without ``"stream": true`` gets the 400 that streaming-only
  models give; a streaming request gets the same answer as SSE chunks (tool arguments split
  across chunks, usage in a final chunk, then ``data: [DONE]``).
- ``POST /v1/messages``: the same logic in Anthropic's shape (``tool_use`` blocks).

``answer`` replaces that logic: a function of the request body returning ``(text, calls)`` with
calls as ``{"id", "name", "arguments" (JSON text)}``; ``anthropic_answer`` does the same for
``/v1/messages`` (the request body -> the ``content`` blocks). ``text_calls`` set (as llama.cpp's server
does) writes the calls into ``content`` as a fenced ```` ```json ```` block (``"fenced"``),
``<tool_call>`` tags (``"tags"``) or bare JSON (``"json"``) instead of ``tool_calls``.

``plan`` is a list of canned failures served first, one per request, e.g.
``{"status": 429, "headers": {"Retry-After": "0"}}`` or ``{"status": 500}`` or
``{"status": 400, "body": {"error": {"code": "tool_use_failed", ...}}}``; ``"raw"`` (text) sends
that body as it is (``"content_type"``, default ``application/json``), for malformed replies. Every request is
recorded in ``requests`` as ``{"path", "headers" (names lower-cased), "body"}``.
"""

from __future__ import annotations

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

SERVED_SUFFIX = "-2026-07-31"
USAGE = {
    "prompt_tokens": 100,
    "completion_tokens": 20,
    "total_tokens": 120,
    "prompt_tokens_details": {"cached_tokens": 40},
}


def _answer_openai(body: dict[str, Any]) -> tuple[str | None, list[dict[str, Any]]]:
    tools = [t["function"]["name"] for t in body.get("tools") or []]
    results = [m for m in body.get("messages", []) if m.get("role") == "tool"]
    if not results:
        return None, [
            {"id": "call_1", "name": tools[0], "arguments": '{"q": "first"}'}
        ] if tools else []
    if "submit" in tools:
        args = json.dumps({"answer": results[-1]["content"]})
        return None, [{"id": f"call_{len(results) + 1}", "name": "submit", "arguments": args}]
    return "done", []


def _as_text(calls: list[dict[str, Any]], style: str, prose: str | None) -> str:
    """The calls written as text, the way models served by llama.cpp write them."""
    objs = [{"name": c["name"], "arguments": json.loads(c["arguments"])} for c in calls]
    if style == "tags":
        body = "".join(f"<tool_call>{json.dumps(o)}</tool_call>" for o in objs)
    elif style == "json":
        body = json.dumps(objs if len(objs) > 1 else objs[0])
    else:
        body = "```json\n" + json.dumps(objs if len(objs) > 1 else objs[0], indent=2) + "\n```"
    return f"{prose}\n{body}" if prose and style != "json" else body


def _answer_anthropic(body: dict[str, Any]) -> list[dict[str, Any]]:
    tools = [t["name"] for t in body.get("tools") or []]
    results = [
        block
        for m in body.get("messages", [])
        if m["role"] == "user" and isinstance(m["content"], list)
        for block in m["content"]
        if block.get("type") == "tool_result"
    ]
    if not results and tools:
        return [{"type": "tool_use", "id": "toolu_1", "name": tools[0], "input": {"q": "first"}}]
    if "submit" in tools:
        answer = {"answer": results[-1]["content"]}
        return [{"type": "tool_use", "id": "toolu_2", "name": "submit", "input": answer}]
    return [{"type": "text", "text": "done"}]


def one_call(name: str, arguments: str) -> Any:
    """An ``answer`` that always calls ``name`` with ``arguments`` exactly as written (the raw
    JSON text a provider sends: ``NaN``, duplicate keys and stray quotes reach the client)."""
    return lambda body: (None, [{"id": "call_1", "name": name, "arguments": arguments}])


class _Handler(BaseHTTPRequestHandler):
    server: FakeServer  # type: ignore[assignment]
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:  # keep test output quiet
        pass

    def _send(
        self,
        status: int,
        body: Any,
        headers: dict[str, str] | None = None,
        *,
        raw: str | None = None,
        content_type: str = "application/json",
    ) -> None:
        data = raw.encode() if raw is not None else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        srv = self.server
        with srv.lock:
            srv.requests.append({"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body})
            step = srv.plan.pop(0) if srv.plan else None
        if step is not None:
            default = {"error": {"message": f"canned HTTP {step['status']}"}}
            self._send(
                step["status"],
                step.get("body", default),
                step.get("headers"),
                raw=step.get("raw"),
                content_type=step.get("content_type", "application/json"),
            )
            return
        if self.path.endswith("/chat/completions"):
            self._chat(body)
        elif self.path.endswith("/messages"):
            self._messages(body)
        else:
            self._send(404, {"error": {"message": f"no route {self.path}"}})

    def _chat(self, body: dict[str, Any]) -> None:
        served = body["model"] + SERVED_SUFFIX
        text, calls = (self.server.answer or _answer_openai)(body)
        if calls and self.server.text_calls:
            text, calls = _as_text(calls, self.server.text_calls, text), []
        if self.server.stream_only and not body.get("stream"):
            msg = "This model only supports streaming requests; set stream to true"
            self._send(400, {"error": {"message": msg, "type": "invalid_request_error"}})
            return
        if body.get("stream"):
            self._stream(served, text, calls, body)
            return
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if calls:
            message["tool_calls"] = [
                {
                    "id": c["id"],
                    "type": "function",
                    "function": {"name": c["name"], "arguments": c["arguments"]},
                }
                for c in calls
            ]
        usage = self.server.usage or USAGE
        self._send(
            200,
            {
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "created": 1_700_000_000,
                "model": served,
                "choices": [
                    {
                        "index": 0,
                        "message": message,
                        "finish_reason": self.server.stop_reason
                        or ("tool_calls" if calls else "stop"),
                    }
                ],
                "usage": usage,
            },
        )

    def _stream(
        self, served: str, text: str | None, calls: list[dict[str, Any]], body: Any
    ) -> None:
        def chunk(delta: dict[str, Any], finish: str | None = None, usage: Any = None) -> bytes:
            doc = {
                "id": "chatcmpl-s",
                "object": "chat.completion.chunk",
                "created": 1_700_000_000,
                "model": served,
                "choices": [] if usage else [{"index": 0, "delta": delta, "finish_reason": finish}],
            }
            if usage:
                doc["usage"] = usage
            return b"data: " + json.dumps(doc).encode() + b"\n\n"

        parts = [chunk({"role": "assistant"})]
        if text:
            parts += [chunk({"content": text[:2]}), chunk({"content": text[2:]})]
        for i, c in enumerate(calls):
            half = len(c["arguments"]) // 2
            parts.append(
                chunk(
                    {
                        "tool_calls": [
                            {
                                "index": i,
                                "id": c["id"],
                                "type": "function",
                                "function": {"name": c["name"], "arguments": c["arguments"][:half]},
                            }
                        ]
                    }
                )
            )
            parts.append(
                chunk(
                    {"tool_calls": [{"index": i, "function": {"arguments": c["arguments"][half:]}}]}
                )
            )
        parts.append(chunk({}, self.server.stop_reason or ("tool_calls" if calls else "stop")))
        if (body.get("stream_options") or {}).get("include_usage"):
            parts.append(chunk({}, usage=USAGE))
        parts.append(b"data: [DONE]\n\n")
        data = b"".join(parts)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _messages(self, body: dict[str, Any]) -> None:
        content = (self.server.anthropic_answer or _answer_anthropic)(body)
        self._send(
            200,
            {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": body["model"] + SERVED_SUFFIX,
                "content": content,
                "stop_reason": self.server.stop_reason
                or ("tool_use" if content[0]["type"] == "tool_use" else "end_turn"),
                "stop_sequence": None,
                "usage": {
                    "input_tokens": 50,
                    "output_tokens": 10,
                    "cache_creation_input_tokens": 200,
                    "cache_read_input_tokens": 300,
                },
            },
        )


class FakeServer(ThreadingHTTPServer):
    """The fake server; use as a context manager. ``url`` is ``http://127.0.0.1:<port>``."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.lock = threading.Lock()
        self.requests: list[dict[str, Any]] = []
        self.plan: list[dict[str, Any]] = []
        self.stream_only = False
        self.usage: dict[str, Any] | None = None
        self.answer: Any = None  # body -> (text, calls); None: the default logic
        self.anthropic_answer: Any = None  # body -> content blocks; None: the default logic
        self.text_calls: str | None = None  # "fenced", "tags", "json": calls as text
        self.stop_reason: str | None = None  # finish_reason / stop_reason sent; None: by content
        self._thread = threading.Thread(target=self.serve_forever, args=(0.02,), daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Stay quiet about a client that went away (what a timeout test makes: its handler
        thread can outlive the test and would print into another test's captured stderr);
        report anything else."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)

    def __enter__(self) -> FakeServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.shutdown()
        self.server_close()
        self._thread.join(5)
