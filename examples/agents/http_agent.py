"""Example HTTP agent: answers adapter requests POSTed to /evaluate.

Run it, then point the harness at the URL it prints:

    python examples/agents/http_agent.py --port 8765
    # listening on http://127.0.0.1:8765/evaluate
    aau evaluate examples/suites/public-service-routing.json \
        --endpoint http://127.0.0.1:8765/evaluate

Protocol: ``POST /evaluate`` with an ``aau-byo-agent-request/1.0`` JSON body; the answer is one JSON
response object (see routing_policy.py). Errors are JSON too, ``{"error": "..."}``:

    400  body is not JSON, or not a request the policy understands
    404  any other path               405  another method on /evaluate
    411  no Content-Length (and not chunked)      413  body over 1 MB

``GET /healthz`` answers ``{"status": "ok"}`` for readiness checks.

Options: ``--host`` (default 127.0.0.1), ``--port`` (default 0: the OS picks a free port; read it
from the ``listening on ...`` line, printed and flushed once the socket is bound), ``--delay
SECONDS`` (sleep before each answer, to stand in for a slow model in benchmarks).

The server is the standard library's ThreadingHTTPServer speaking HTTP/1.1 with keep-alive: every
answer carries Content-Length, so a client may send many requests over one connection. It is quiet
(no access log) and exits with status 0 on SIGTERM or Ctrl-C.

``--wire`` picks how answers go on the wire, to stand in for the ways real agent servers write
(the benchmarks and the endpoint adapter's tests run every one; ``asgi_agent.py`` is uvicorn):

    keep-alive   (default) HTTP/1.1 keep-alive, TCP_NODELAY: headers and body leave at once
    two-writes   HTTP/1.1 keep-alive with the standard library's defaults: Nagle on, the headers
                 and the body as two unbuffered writes (the body waits for the client's ACK)
    chunked      HTTP/1.1 keep-alive, Nagle on, the body in chunked transfer encoding, one
                 write per chunk (several chunks per answer)
    close        HTTP/1.1, Nagle on, two writes, ``Connection: close`` on every answer
    http1.0      an HTTP/1.0 server (the standard library's defaults): one connection per answer
"""

import argparse
import json
import os
import signal
import socket
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from routing_policy import RequestError, respond  # noqa: E402

EVALUATE_PATH = "/evaluate"
MAX_BODY_BYTES = 1_000_000
WIRES = ("keep-alive", "two-writes", "chunked", "close", "http1.0")
_CHUNKS = 4  # --wire chunked: chunks per answer


class _BodyError(Exception):
    """The request body could not be read; carries the HTTP status to answer with."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class AgentHandler(BaseHTTPRequestHandler):
    """One connection. HTTP/1.1, keep-alive, JSON in and out."""

    protocol_version = "HTTP/1.1"
    server_version = "aau-example-http-agent/1.0"
    # Answers are written as headers + body; without TCP_NODELAY the body segment can wait for the
    # client's delayed ACK (tens of milliseconds per request on Linux).
    disable_nagle_algorithm = True

    # -- responses -------------------------------------------------------------------------------

    def _send_json(self, status: int, payload: dict, *, close: bool = False) -> None:
        body = (json.dumps(payload) + "\n").encode("utf-8")
        chunked = self.server.wire == "chunked"  # type: ignore[attr-defined]
        close = close or self.server.wire == "close"  # type: ignore[attr-defined]
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Content-Length", str(len(body)))
        if status == 405:
            self.send_header("Allow", "POST")
        if close:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        if self.command == "HEAD":
            return
        if not chunked:
            self.wfile.write(body)
            return
        step = max(1, -(-len(body) // _CHUNKS))
        for start in range(0, len(body), step):
            piece = body[start:start + step]
            self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
        self.wfile.write(b"0\r\n\r\n")

    def _error(self, status: int, message: str, *, close: bool = False) -> None:
        self._send_json(status, {"error": message}, close=close)

    # -- request body ----------------------------------------------------------------------------

    def _read_body(self) -> bytes:
        """Read the whole body (Content-Length or chunked), at most MAX_BODY_BYTES."""
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            return self._read_chunked()
        length_header = self.headers.get("Content-Length")
        if length_header is None:
            raise _BodyError(411, "Content-Length required")
        try:
            length = int(length_header)
        except ValueError:
            raise _BodyError(400, f"bad Content-Length {length_header!r}") from None
        if length < 0:
            raise _BodyError(400, f"bad Content-Length {length_header!r}")
        if length > MAX_BODY_BYTES:
            raise _BodyError(413, f"body over {MAX_BODY_BYTES} bytes")
        body = self.rfile.read(length)
        if len(body) != length:
            raise _BodyError(400, "body shorter than Content-Length")
        return body

    def _read_chunked(self) -> bytes:
        parts: list[bytes] = []
        total = 0
        while True:
            size_line = self.rfile.readline(1024)
            try:
                size = int(size_line.split(b";", 1)[0].strip(), 16)
            except ValueError:
                raise _BodyError(400, "bad chunk size") from None
            if size == 0:
                # Skip any trailer lines up to the blank line that ends the body.
                while self.rfile.readline(1024) not in (b"\r\n", b"\n", b""):
                    pass
                return b"".join(parts)
            total += size
            if total > MAX_BODY_BYTES:
                raise _BodyError(413, f"body over {MAX_BODY_BYTES} bytes")
            parts.append(self.rfile.read(size))
            self.rfile.readline(3)  # the CRLF after each chunk

    # -- methods ---------------------------------------------------------------------------------

    def do_POST(self) -> None:  # noqa: N802 (name fixed by BaseHTTPRequestHandler)
        try:
            body = self._read_body()
        except _BodyError as error:
            # The rest of the stream cannot be trusted; answer and close.
            self._error(error.status, str(error), close=True)
            return
        if urlsplit(self.path).path != EVALUATE_PATH:
            self._error(404, f"no such path; POST requests to {EVALUATE_PATH}")
            return
        self.answer(body)

    def answer(self, body: bytes) -> None:
        """Answer the body of one ``POST /evaluate`` (``llm_agent_http.py`` replaces this)."""
        try:
            request = json.loads(body)
            response = respond(request)
        except RequestError as error:
            self._error(400, f"bad request: {error}")
            return
        except (ValueError, RecursionError) as error:  # includes UnicodeDecodeError
            self._error(400, f"body is not JSON: {error}")
            return
        delay = self.server.delay  # type: ignore[attr-defined]
        if delay > 0:
            time.sleep(delay)
        self._send_json(200, response)

    def do_GET(self) -> None:  # noqa: N802
        path = urlsplit(self.path).path
        if path == "/healthz":
            self._send_json(200, {"status": "ok"})
        elif path == EVALUATE_PATH:
            self._error(405, f"use POST for {EVALUATE_PATH}")
        else:
            self._error(404, "no such path")

    do_HEAD = do_GET

    def do_PUT(self) -> None:  # noqa: N802
        self._other_method()

    do_DELETE = do_PATCH = do_PUT

    def _other_method(self) -> None:
        # Drain a declared body so the connection stays usable, then refuse.
        try:
            if self.headers.get("Content-Length") or self.headers.get("Transfer-Encoding"):
                self._read_body()
        except _BodyError as error:
            self._error(error.status, str(error), close=True)
            return
        if urlsplit(self.path).path == EVALUATE_PATH:
            self._error(405, f"use POST for {EVALUATE_PATH}")
        else:
            self._error(404, "no such path")

    def version_string(self) -> str:
        return self.server_version

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        """Stay quiet: no access log on stderr."""


class AgentServer(ThreadingHTTPServer):
    """ThreadingHTTPServer with a deeper accept queue (benchmarks open dozens of connections at
    once; the default backlog of 5 makes the kernel drop SYNs and clients wait a second)."""

    daemon_threads = True
    request_queue_size = 128

    def __init__(self, address: tuple[str, int], delay: float, wire: str = "keep-alive") -> None:
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        super().__init__(address, _HANDLERS[wire])
        self.delay = delay
        self.wire = wire


class _StdlibDefaultsHandler(AgentHandler):
    """The standard library's defaults: Nagle on (headers and body are two unbuffered writes)."""

    disable_nagle_algorithm = False


class _Http10Handler(_StdlibDefaultsHandler):
    """An HTTP/1.0 server: the connection closes after every answer."""

    protocol_version = "HTTP/1.0"


_HANDLERS: dict[str, type[AgentHandler]] = {
    "keep-alive": AgentHandler, "two-writes": _StdlibDefaultsHandler,
    "chunked": _StdlibDefaultsHandler, "close": _StdlibDefaultsHandler, "http1.0": _Http10Handler,
}


def _non_negative_float(text: str) -> float:
    value = float(text)
    if not value >= 0:  # also rejects nan
        raise argparse.ArgumentTypeError(f"must be a number >= 0, got {text!r}")
    return value


def _stop(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def serve(server: ThreadingHTTPServer) -> int:
    """Announce ``listening on http://HOST:PORT/evaluate`` (flushed) and serve until SIGTERM or
    Ctrl-C; then close the socket and return 0. Shared by ``llm_agent_http.py``."""
    host, port = server.server_address[:2]
    shown_host = f"[{host}]" if ":" in host else host
    # the handler is in place before we announce, and the announcement is inside the try: a
    # caller may stop us the moment it reads the line
    signal.signal(signal.SIGTERM, _stop)
    try:
        print(f"listening on http://{shown_host}:{port}{EVALUATE_PATH}", flush=True)
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Example HTTP agent for `aau evaluate --endpoint URL` (POST /evaluate).",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=0, help="port to bind; 0 picks a free one")
    parser.add_argument(
        "--delay",
        type=_non_negative_float,
        default=0.0,
        metavar="SECONDS",
        help="sleep this long before each answer (default 0)",
    )
    parser.add_argument(
        "--wire",
        choices=WIRES,
        default="keep-alive",
        help="how answers are written (default keep-alive; see the module docstring)",
    )
    args = parser.parse_args(argv)

    try:
        server = AgentServer((args.host, args.port), args.delay, args.wire)
    except OSError as error:
        print(f"http_agent: cannot listen on {args.host}:{args.port}: {error}", file=sys.stderr)
        return 2
    return serve(server)


if __name__ == "__main__":
    sys.exit(main())
