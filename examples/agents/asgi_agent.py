"""Example HTTP agent as an ASGI application, served by uvicorn (a production ASGI server).

Same protocol, paths and answers as ``http_agent.py`` (``POST /evaluate``, ``GET /healthz``; 400
for a body that is not a request, 404 another path, 405 another method on /evaluate, 413 a body
over 1 MB), so the benchmarks and the endpoint adapter's tests can run one agent on every kind of
server. Needs ``pip install uvicorn`` (a dev dependency of the workspace).

    python examples/agents/asgi_agent.py --port 0 [--delay SECONDS]
    # listening on http://127.0.0.1:PORT/evaluate

The socket is bound and listening before the line is printed, so a client may connect at once.
uvicorn runs with its defaults (HTTP/1.1 keep-alive) and no access log; SIGTERM or Ctrl-C stops
it with status 0.
"""

import argparse
import asyncio
import json
import os
import socket
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from http_agent import EVALUATE_PATH, MAX_BODY_BYTES, _non_negative_float  # noqa: E402
from routing_policy import RequestError, respond  # noqa: E402


class AgentApp:
    """The ASGI application: one routing-policy answer per ``POST /evaluate``."""

    def __init__(self, delay: float) -> None:
        self.delay = delay

    async def __call__(self, scope: dict, receive, send) -> None:  # noqa: ANN001
        """Answer one HTTP request (uvicorn runs with ``lifespan="off"``)."""
        status, payload = await self._answer(scope, receive)
        body = (json.dumps(payload) + "\n").encode("utf-8")
        headers = [(b"content-type", b"application/json"),
                   (b"content-length", str(len(body)).encode("ascii"))]
        if status == 405:
            headers.append((b"allow", b"POST"))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    async def _answer(self, scope: dict, receive) -> tuple[int, dict]:  # noqa: ANN001
        body = bytearray()
        while True:
            message = await receive()
            body += message.get("body", b"")
            if len(body) > MAX_BODY_BYTES:
                return 413, {"error": f"body over {MAX_BODY_BYTES} bytes"}
            if not message.get("more_body"):
                break
        path, method = scope["path"], scope["method"]
        if path == "/healthz" and method in ("GET", "HEAD"):
            return 200, {"status": "ok"}
        if path != EVALUATE_PATH:
            return 404, {"error": "no such path"}
        if method != "POST":
            return 405, {"error": f"use POST for {EVALUATE_PATH}"}
        try:
            response = respond(json.loads(body))
        except RequestError as error:
            return 400, {"error": f"bad request: {error}"}
        except (ValueError, RecursionError) as error:
            return 400, {"error": f"body is not JSON: {error}"}
        if self.delay > 0:
            await asyncio.sleep(self.delay)
        return 200, response


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Example ASGI agent on uvicorn for `aau evaluate --endpoint URL`.")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=0, help="port to bind; 0 picks a free one")
    parser.add_argument("--delay", type=_non_negative_float, default=0.0, metavar="SECONDS",
                        help="sleep this long before each answer (default 0)")
    args = parser.parse_args(argv)
    try:
        import uvicorn
    except ImportError:
        print("asgi_agent: uvicorn is not installed (pip install uvicorn)", file=sys.stderr)
        return 2
    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((args.host, args.port))
        sock.listen(128)
    except OSError as error:
        sock.close()
        print(f"asgi_agent: cannot listen on {args.host}:{args.port}: {error}", file=sys.stderr)
        return 2
    host, port = sock.getsockname()[:2]
    shown_host = f"[{host}]" if ":" in host else host
    config = uvicorn.Config(AgentApp(args.delay), log_level="warning", access_log=False,
                            lifespan="off")
    print(f"listening on http://{shown_host}:{port}{EVALUATE_PATH}", flush=True)
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
