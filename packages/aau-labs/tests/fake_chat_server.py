"""A fake OpenAI-compatible chat server for lab runs with ``--backend local`` (tests only).

Each conversation's first turn calls the lab's first non-submit tool once per entry of
``first_turn_arguments`` (each the raw ``function.arguments`` string sent, decoded by aau's
strict decoder); the next turn calls the submit tool with ``{}``. Every reply reports 1 prompt
and 1 completion token. Written after the trial's ``fakeloop.py`` (issue 17).
"""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager


def _reply(body: dict, first_turn_arguments: Sequence[str]) -> dict:
    names = [t["function"]["name"] for t in body.get("tools", [])]
    submit = [n for n in names if "submit" in n] or names[-1:]
    other = [n for n in names if n not in submit]
    turn = sum(1 for m in body["messages"] if m["role"] == "assistant")
    if turn == 0 and first_turn_arguments:
        calls = [{"id": f"call_{i}", "type": "function",
                  "function": {"name": other[0], "arguments": raw}}
                 for i, raw in enumerate(first_turn_arguments)]
    else:
        calls = [{"id": "call_s", "type": "function",
                  "function": {"name": submit[0], "arguments": "{}"}}]
    return {"id": "x", "object": "chat.completion", "model": body.get("model", "m"), "created": 0,
            "choices": [{"index": 0, "finish_reason": "tool_calls",
                         "message": {"role": "assistant", "content": None, "tool_calls": calls}}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}


@contextmanager
def chat_server(first_turn_arguments: Sequence[str] = ()) -> Iterator[str]:
    """Serve on 127.0.0.1 (a free port) and yield the API root (``http://127.0.0.1:N/v1``)."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            data = json.dumps(_reply(body, first_turn_arguments)).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
