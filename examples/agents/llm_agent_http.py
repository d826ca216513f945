"""The LLM agent of ``llm_agent.py`` served over HTTP for ``aau evaluate --endpoint``.

Same logic, one model call per request; the HTTP handling (keep-alive, body limits, 400/404/405/
411/413, ``GET /healthz``) is the example HTTP agent's (``http_agent.py``)::

    python examples/agents/llm_agent_http.py --base-url http://127.0.0.1:8080/v1 \\
        --model qwen2.5-coder-0.5b-instruct --port 8765
    # listening on http://127.0.0.1:8765/evaluate
    aau evaluate suite.json --endpoint http://127.0.0.1:8765/evaluate --timeout 300

Answers: 200 with the response of ``llm_agent.respond``; 400 for a request the agent does not
understand; 502 ``{"error": "model server failed: ..."}`` when the model server fails (so the
harness records ``adapter-http-502``, a transport failure, not a wrong answer). The backend is
built once and shared by the server's threads; requests to the model are serialised (a local
CPU server answers one at a time anyway).
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
from http.server import ThreadingHTTPServer
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from http_agent import AgentHandler, AgentServer, serve  # noqa: E402
from llm_agent import (  # noqa: E402
    RequestError,
    add_server_options,
    make_llm_backend,
    reply_notes,
    respond,
)


class LLMAgentHandler(AgentHandler):
    """``POST /evaluate`` answered by the LLM agent; everything else as ``AgentHandler``."""

    server_version = "aau-example-llm-agent/1.0"

    def answer(self, body: bytes) -> None:
        """One request, one model call (``AgentHandler`` reads the body and checks the path)."""
        from aau_core import InputError, ProviderError, loads_strict

        server: Any = self.server
        try:
            request = loads_strict(body, source="request")
            with server.model_lock:
                response, parsed = respond(request, server.backend)
        except (RequestError, InputError, ValueError) as error:
            self._error(400, f"bad request: {error}")
            return
        except ProviderError as error:
            self._error(502, f"model server failed: {error}")
            return
        for note in reply_notes(parsed):
            print(f"llm_agent_http: {request.get('scenario_id')}: {note}",
                  file=sys.stderr, flush=True)
        self._send_json(200, response)


class LLMAgentServer(AgentServer):
    """``AgentServer`` with the LLM handler, one shared backend and a lock around model calls."""

    def __init__(self, address: tuple[str, int], backend: Any) -> None:
        super().__init__(address, 0.0)
        self.RequestHandlerClass = LLMAgentHandler
        self.backend = backend
        self.model_lock = threading.Lock()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="LLM agent for `aau evaluate --endpoint URL` (POST /evaluate), asking an "
                    "OpenAI-compatible server.")
    add_server_options(parser)
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=0, help="port to bind; 0 picks a free one")
    args = parser.parse_args(argv)
    from aau_core import AauError

    try:
        backend = make_llm_backend(args.base_url, args.model)
    except AauError as error:
        print(f"llm_agent_http: {error}", file=sys.stderr)
        return 2
    try:
        server: ThreadingHTTPServer = LLMAgentServer((args.host, args.port), backend)
    except OSError as error:
        print(f"llm_agent_http: cannot listen on {args.host}:{args.port}: {error}",
              file=sys.stderr)
        return 2
    return serve(server)


if __name__ == "__main__":
    sys.exit(main())
