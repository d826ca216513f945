"""The kinds of HTTP server the example agent runs on, and a launcher for any of them.

One table for everyone who needs "the same agent on several servers": ``benchmarks/
bench_evaluate.py`` (rows b and c) and the endpoint adapter's stall guard
(``packages/aau-adapters/tests/test_endpoint_server_kinds.py``). Each kind answers exactly as
``http_agent.py`` does; only the way the answer goes on the wire differs.

    from server_kinds import SERVER_KINDS, RunningAgent
    with RunningAgent("http1.1-two-writes", delay=0.05) as agent:
        ...  # agent.url is http://127.0.0.1:PORT/evaluate

Standard library only (``uvicorn`` is needed by the ``uvicorn`` kind's process, not here).
"""

from __future__ import annotations

import select
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

AGENTS = Path(__file__).resolve().parent
START_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class ServerKind:
    """How to start one kind: the script in this folder and its options, and what it is."""

    script: str
    options: tuple[str, ...]
    description: str


SERVER_KINDS: dict[str, ServerKind] = {
    "http1.1-nodelay": ServerKind(
        "http_agent.py", ("--wire", "keep-alive"),
        "http.server, HTTP/1.1 keep-alive, TCP_NODELAY (the example agent as shipped)"),
    "http1.1-two-writes": ServerKind(
        "http_agent.py", ("--wire", "two-writes"),
        "http.server, HTTP/1.1 keep-alive, Nagle on, headers and body in two writes"),
    "http1.1-chunked": ServerKind(
        "http_agent.py", ("--wire", "chunked"),
        "http.server, HTTP/1.1 keep-alive, Nagle on, chunked body, a write per chunk"),
    "http1.1-close": ServerKind(
        "http_agent.py", ("--wire", "close"),
        "http.server, HTTP/1.1, Nagle on, two writes, Connection: close"),
    "http1.0": ServerKind(
        "http_agent.py", ("--wire", "http1.0"),
        "http.server, HTTP/1.0 (a connection per answer)"),
    "uvicorn": ServerKind(
        "asgi_agent.py", (), "uvicorn (ASGI), HTTP/1.1 keep-alive"),
}


class AgentNotStarted(RuntimeError):
    """The agent process did not print ``listening on URL`` in time (the message says why)."""


class RunningAgent:
    """One kind's agent process on a free port of 127.0.0.1, for the duration of a ``with``.

    Args:
        kind: a key of ``SERVER_KINDS``.
        delay: seconds the agent sleeps before each answer (>= 0).
        python: the interpreter to run it with (default: this one).

    ``url`` is the agent's ``http://127.0.0.1:PORT/evaluate`` once entered. Raises
    ``AgentNotStarted`` when the process exits or stays silent for ``START_TIMEOUT_S`` seconds;
    ``KeyError`` for an unknown kind.
    """

    def __init__(self, kind: str, delay: float = 0.0, python: str = sys.executable) -> None:
        self.kind = SERVER_KINDS[kind]
        self.name = kind
        self.argv = [python, str(AGENTS / self.kind.script), "--port", "0",
                     "--delay", str(delay), *self.kind.options]
        self.url = ""
        self.process: subprocess.Popen[str] | None = None

    def __enter__(self) -> RunningAgent:
        self._stderr = tempfile.TemporaryFile()  # a file, not a pipe: it never fills up
        self.process = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.PIPE, stderr=self._stderr, text=True)
        assert self.process.stdout is not None
        ready, _, _ = select.select([self.process.stdout], [], [], START_TIMEOUT_S)
        line = self.process.stdout.readline().strip() if ready else ""
        if not line.startswith("listening on "):
            self.__exit__()
            self._stderr.seek(0)
            said = self._stderr.read().decode("utf-8", "replace").strip()[-800:]
            self._stderr.close()
            raise AgentNotStarted(f"{self.name} agent did not start: printed {line!r}; "
                                  f"stderr: {said!r}")
        self._stderr.close()  # the child keeps its own descriptor
        self.url = line.removeprefix("listening on ")
        return self

    def __exit__(self, *exc_info: object) -> None:
        process, self.process = self.process, None
        if process is None:
            return
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if process.stdout is not None:
            process.stdout.close()
