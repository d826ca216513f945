"""Fixtures for the adapter tests: tiny suites, agent scripts written into ``tmp_path``, and
HTTP servers on ``127.0.0.1`` (port 0) that answer well or misbehave on purpose.

Everything here is a fixture (the tests run with ``--import-mode=importlib``, where a test module
cannot import ``conftest``). Every server binds the loopback interface only, runs in daemon
threads, and is stopped when its test ends; every loop is bounded by a stop event or a timeout.
"""

from __future__ import annotations

import http.server
import json
import os
import socket
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from aau_adapters import AdapterAnswer, Suite, suite_from_document

GOOD_OUTCOME = "route:ok"

# Every Python agent starts with this: read the request line, answer well unless the test's
# misbehaviour applies. `ANSWER` is the good answer for the request.
_AGENT_PREAMBLE = '''\
import json, os, signal, subprocess, sys, time
RAW = sys.stdin.buffer.readline() if READS_STDIN else b""
REQ = json.loads(RAW) if RAW else None
SID = REQ["scenario_id"] if REQ else None
ANSWER = {"outcome": "route:ok", "actions_attempted": [], "actions_executed": [],
          "submitted": True}
OUT = sys.stdout.buffer
def answer(obj=ANSWER):
    OUT.write(json.dumps(obj).encode() + b"\\n")
    OUT.flush()
'''


# --------------------------------------------------------------------------------------------
# suites


def _suite(cases: list[tuple[str, dict[str, Any]]], suite_id: str = "adversarial") -> Suite:
    doc = {
        "suite_version": "aau-byo-agent-suite/1.0",
        "suite_id": suite_id,
        "sharing": {
            "classification": "synthetic",
            "human_review_complete": True,
            "contains_personally_identifiable_information": False,
            "contains_procurement_sensitive_information": False,
            "contains_controlled_unclassified_information": False,
            "contains_classified_information": False,
            "contains_secrets_or_credentials": False,
        },
        "cases": [
            {
                "scenario_id": sid,
                "input": inp,
                "expected": {"outcome": GOOD_OUTCOME},
                "forbidden_actions": ["delete_records"],
            }
            for sid, inp in cases
        ],
    }
    return suite_from_document(doc, source="<test suite>")


@pytest.fixture
def make_suite() -> Callable[..., Suite]:
    """``make_suite(["good", "bad"])`` or ``make_suite([("id", {input}), ...])``: a valid suite
    whose every case expects ``GOOD_OUTCOME`` and forbids ``delete_records``."""

    def make(cases: list[Any], suite_id: str = "adversarial") -> Suite:
        norm = [(c, {"text": f"case {c}"}) if isinstance(c, str) else tuple(c) for c in cases]
        return _suite(norm, suite_id)

    return make


@pytest.fixture
def good_outcome() -> str:
    return GOOD_OUTCOME


class _PythonAdapter:
    """A ``python`` adapter answering each case with ``answer(case)`` (an ``AdapterAnswer``);
    ``retries`` is what it says it applies (``run_evaluation`` checks it)."""

    kind = "python"

    def __init__(self, answer: Callable[[Any], AdapterAnswer], retries: int = 0) -> None:
        self.answer = answer
        self.retries = retries

    def invoke(self, request: dict[str, Any], case: Any) -> AdapterAnswer:
        return self.answer(case)

    def describe(self) -> dict[str, Any]:
        return {"kind": "python"}

    def cancel(self) -> None:
        pass

    def close(self) -> None:
        pass


@pytest.fixture
def python_adapter() -> Callable[..., _PythonAdapter]:
    """``python_adapter(answer, retries=0)`` -> a ``python`` adapter whose ``invoke`` returns
    ``answer(case)``."""
    return _PythonAdapter


# --------------------------------------------------------------------------------------------
# agent scripts


@pytest.fixture
def python_agent(tmp_path: Path) -> Callable[..., list[str]]:
    """``python_agent(body, reads_stdin=True)`` -> argv running a Python agent.

    ``body`` runs after the preamble (``REQ``, ``SID``, ``answer()``, ``OUT`` are defined) and
    should end by calling ``answer()`` for the good cases. The script gets ``tmp_path`` as
    ``sys.argv[1]`` (for pid files and captured requests).
    """
    counter = iter(range(1_000_000))

    def make(body: str, reads_stdin: bool = True) -> list[str]:
        path = tmp_path / f"agent_{next(counter)}.py"
        source = f"READS_STDIN = {reads_stdin!r}\n" + _AGENT_PREAMBLE + textwrap.dedent(body)
        path.write_text(source, encoding="utf-8")
        # -I -S: no user site, no site-packages, no environment: starts fast and stdlib-only.
        return [sys.executable, "-I", "-S", str(path), str(tmp_path)]

    return make


@pytest.fixture
def shell_agent(tmp_path: Path) -> Callable[[str], list[str]]:
    """``shell_agent(script)`` -> argv running ``/bin/sh`` on ``script`` (``$1`` is tmp_path)."""
    counter = iter(range(1_000_000))

    def make(script: str) -> list[str]:
        path = tmp_path / f"agent_{next(counter)}.sh"
        path.write_text(textwrap.dedent(script), encoding="utf-8")
        return ["/bin/sh", str(path), str(tmp_path)]

    return make


def _process_gone(pid: int, within_s: float = 5.0) -> bool:
    """True once ``pid`` no longer exists (or is a zombie waiting to be reaped by init)."""
    end = time.monotonic() + within_s
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        except PermissionError:  # pid reused by another user's process: ours is gone
            return True
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
                state = fh.read().rsplit(")", 1)[1].split()[0]
            if state in ("Z", "X"):
                return True
        except (OSError, IndexError):
            pass
        if time.monotonic() > end:
            return False
        time.sleep(0.02)


@pytest.fixture
def process_gone() -> Callable[..., bool]:
    """``process_gone(pid, within_s=5.0)``: polls ``os.kill(pid, 0)`` until the pid is gone."""
    return _process_gone


@pytest.fixture
def read_pid(tmp_path: Path) -> Callable[..., int]:
    """``read_pid(name)``: wait (bounded) for the agent to write ``tmp_path/name`` and read it."""

    def read(name: str, within_s: float = 10.0) -> int:
        path = tmp_path / name
        end = time.monotonic() + within_s
        while time.monotonic() < end:
            text = path.read_text(encoding="ascii").strip() if path.exists() else ""
            if text.endswith("."):
                return int(text[:-1])
            time.sleep(0.01)
        raise AssertionError(f"agent never wrote {path}")

    return read


# --------------------------------------------------------------------------------------------
# HTTP servers


class _ServerHandle:
    """A running test server: ``url``, ``port``, counters, and ``stop()``."""

    def __init__(self, port: int, stop: Callable[[], None]) -> None:
        self.port = port
        self.url = f"http://127.0.0.1:{port}/agent"
        self.connections = 0
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self._stop = stop

    def stop(self) -> None:
        self.stopping.set()
        self._stop()


def _good_body() -> bytes:
    return json.dumps({"outcome": GOOD_OUTCOME, "actions_attempted": [],
                       "actions_executed": [], "submitted": True}).encode()


@pytest.fixture
def http_server() -> Iterator[Callable[..., _ServerHandle]]:
    """``http_server(respond)`` -> a ``ThreadingHTTPServer`` (HTTP/1.1 keep-alive) handle.

    ``respond(request_doc, handler, server)`` returns ``(status, headers, body)`` or ``None`` for
    the good answer; ``request_doc`` is the parsed JSON body. Every request is recorded in
    ``server.requests`` as ``{"method", "path", "headers", "body"}``; accepted connections are
    counted in ``server.connections``.
    """
    started: list[tuple[http.server.ThreadingHTTPServer, threading.Thread, _ServerHandle]] = []

    def start(respond: Callable[..., Any] | None = None) -> _ServerHandle:
        holder: dict[str, _ServerHandle] = {}

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            wbufsize = 65536  # headers and body leave in one write: no Nagle/delayed-ACK stall

            def log_message(self, *args: Any) -> None:  # keep test output quiet
                pass

            def do_POST(self) -> None:  # noqa: N802
                handle = holder["h"]
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length)
                with handle.lock:
                    handle.requests.append({"method": "POST", "path": self.path,
                                            "headers": dict(self.headers), "body": body})
                try:
                    doc = json.loads(body)
                except ValueError:
                    doc = None
                result = respond(doc, self, handle) if respond else None
                status, headers, payload = result or (200, {}, _good_body())
                self.send_response(status)
                headers = {"Content-Type": "application/json", **headers}
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST  # noqa: N815 - a followed redirect would arrive as GET

        class Server(http.server.ThreadingHTTPServer):
            daemon_threads = True

            def get_request(self) -> tuple[socket.socket, Any]:
                conn = super().get_request()
                with holder["h"].lock:
                    holder["h"].connections += 1
                return conn

            def handle_error(self, request: Any, client_address: Any) -> None:
                """Stay quiet about a client that went away (what a timeout test makes: its handler
                thread can outlive the test and would print into another test's captured stderr);
                report anything else."""
                if not isinstance(sys.exc_info()[1], ConnectionError):
                    super().handle_error(request, client_address)

        server = Server(("127.0.0.1", 0), Handler)
        port = server.server_address[1]

        def stop() -> None:
            server.shutdown()
            server.server_close()

        handle = _ServerHandle(port, stop)
        holder["h"] = handle
        thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                                  daemon=True)
        thread.start()
        started.append((server, thread, handle))
        return handle

    yield start
    for _server, thread, handle in started:
        handle.stop()
        thread.join(timeout=5)


def _read_http_request(conn: socket.socket, limit: int = 4_000_000) -> tuple[bytes, bytes]:
    """Read one HTTP request (headers + Content-Length body) from ``conn``: (head, body)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return data, b""
        data += chunk
        if len(data) > limit:
            return data, b""
    head, _, rest = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(rest) < length:
        chunk = conn.recv(65536)
        if not chunk:
            break
        rest += chunk
    return head, rest


@pytest.fixture
def raw_server() -> Iterator[Callable[..., _ServerHandle]]:
    """``raw_server(behave, read_request=True)`` -> a plain TCP server handle.

    Each accepted connection runs ``behave(conn, request_doc, server)`` in its own daemon thread,
    after the HTTP request was read (``request_doc`` is its parsed JSON body, or ``None``) unless
    ``read_request`` is false. The connection is closed after ``behave`` returns (unless
    ``behave`` already closed it). ``server.stopping`` is set at teardown: long behaviours wait
    on it instead of sleeping.
    """
    started: list[tuple[socket.socket, threading.Thread, _ServerHandle]] = []

    def start(behave: Callable[..., None], read_request: bool = True) -> _ServerHandle:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        listener.listen(64)
        listener.settimeout(0.05)
        port = listener.getsockname()[1]
        workers: list[threading.Thread] = []

        def serve_one(conn: socket.socket) -> None:
            try:
                conn.settimeout(10)
                doc = None
                if read_request:
                    head, body = _read_http_request(conn)
                    with handle.lock:
                        handle.requests.append({"head": head, "body": body})
                    try:
                        doc = json.loads(body)
                    except ValueError:
                        doc = None
                behave(conn, doc, handle)
            except OSError:
                pass
            finally:
                try:
                    conn.close()
                except OSError:
                    pass

        def accept_loop() -> None:
            while not handle.stopping.is_set():
                try:
                    conn, _ = listener.accept()
                except TimeoutError:
                    continue
                except OSError:
                    return
                with handle.lock:
                    handle.connections += 1
                worker = threading.Thread(target=serve_one, args=(conn,), daemon=True)
                workers.append(worker)
                worker.start()

        def stop() -> None:
            thread.join(timeout=5)
            listener.close()
            for worker in workers:
                worker.join(timeout=5)

        handle = _ServerHandle(port, stop)
        thread = threading.Thread(target=accept_loop, daemon=True)
        thread.start()
        started.append((listener, thread, handle))
        return handle

    yield start
    for _listener, _thread, handle in started:
        handle.stop()


@pytest.fixture
def http_response() -> Callable[..., bytes]:
    """``http_response(status=200, body=good, headers=None)`` -> full HTTP/1.1 response bytes
    with ``Content-Length`` (for raw servers answering their good cases)."""

    def build(status: int = 200, body: bytes | None = None,
              headers: dict[str, str] | None = None) -> bytes:
        payload = _good_body() if body is None else body
        lines = [f"HTTP/1.1 {status} Whatever", "Content-Type: application/json",
                 f"Content-Length: {len(payload)}", "Connection: close"]
        lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
        return ("\r\n".join(lines) + "\r\n\r\n").encode("ascii") + payload

    return build


@pytest.fixture
def free_port() -> int:
    """A loopback port that nothing listens on (bound, noted, closed)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    return port


# -- the MCP tool server's tests (test_mcp_*.py) ------------------------------------------------
# A small ledger environment implementing the aau_core contract, and the official MCP SDK client
# connected to one unit.


class _LedgerSession:
    """A ledger: ``deposit`` and ``withdraw`` change the balance, ``balance`` reads it, ``audit``
    raises (the environment's own bug), ``withdraw`` past the balance is a tool error."""

    def __init__(self, balance: int = 0) -> None:
        self.balance = balance
        self.entries: list[dict[str, Any]] = []

    def tools(self) -> list[Any]:
        from aau_core import ToolSpec

        amount = {"type": "integer", "minimum": 1}
        return [
            ToolSpec(name="deposit", description="Add money to the ledger.",
                     input_schema={"type": "object", "properties": {
                         "amount": amount, "memo": {"type": "string", "maxLength": 40}},
                         "required": ["amount"], "additionalProperties": False}),
            ToolSpec(name="withdraw", description="Take money out of the ledger.",
                     input_schema={"type": "object", "properties": {"amount": amount},
                                   "required": ["amount"], "additionalProperties": False}),
            ToolSpec(name="balance", description="The balance now.",
                     input_schema={"type": "object", "properties": {},
                                   "additionalProperties": False}),
            ToolSpec(name="audit", description="Check the books.",
                     input_schema={"type": "object", "properties": {}}),
        ]

    def call(self, name: str, arguments: Any) -> Any:
        from aau_core import ToolOutcome

        if name == "deposit":
            self.balance += arguments["amount"]
            self.entries.append({"deposit": arguments["amount"], "memo": arguments.get("memo")})
            return ToolOutcome(ok=True, text=f"balance {self.balance}",
                               value={"balance": self.balance})
        if name == "withdraw":
            if arguments["amount"] > self.balance:
                return ToolOutcome(ok=False, text=f"insufficient funds: balance {self.balance}")
            self.balance -= arguments["amount"]
            self.entries.append({"withdraw": arguments["amount"]})
            return ToolOutcome(ok=True, text=f"balance {self.balance}",
                               value={"balance": self.balance})
        if name == "balance":
            return ToolOutcome(ok=True, text=f"balance {self.balance}")
        raise RuntimeError("the books are on fire")

    def final_state(self) -> Any:
        return {"balance": self.balance, "entries": list(self.entries)}

    def score(self, calls: Any, final_answer: str | None) -> Any:
        from aau_core import EnvironmentVerdict

        return EnvironmentVerdict(passed=self.balance > 0, reason=f"balance {self.balance}")


class _McpKit:
    """What the MCP tests share: the ledger, the official client on a unit, raw posts."""

    Ledger = _LedgerSession

    @staticmethod
    def client(url: str, token: str | None):
        """An async context manager: an initialized official ``ClientSession`` on ``url``."""
        import contextlib

        import httpx2
        from mcp.client.session import ClientSession
        from mcp.client.streamable_http import streamable_http_client

        @contextlib.asynccontextmanager
        async def connected():
            headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
            async with httpx2.AsyncClient(headers=headers, timeout=30) as http, \
                    streamable_http_client(url, http_client=http) as (read, write), \
                    ClientSession(read, write) as session:
                await session.initialize()
                yield session

        return connected()

    @staticmethod
    def run(function: Callable[..., Any], *args: Any) -> Any:
        """Run an async function to its end on a fresh event loop (from any thread)."""
        import anyio

        return anyio.run(function, *args)

    @staticmethod
    def post(url: str, token: str | None, body: bytes | dict[str, Any], *,
             accept: str = "application/json, text/event-stream",
             protocol: str | None = "2025-06-18", session: str | None = None) -> Any:
        """One raw POST (httpx), the way a hand-written client sends it (``session``: the
        ``Mcp-Session-Id`` to send)."""
        import httpx

        headers = {"accept": accept, "content-type": "application/json"}
        if token is not None:
            headers["authorization"] = f"Bearer {token}"
        if protocol is not None:
            headers["mcp-protocol-version"] = protocol
        if session is not None:
            headers["mcp-session-id"] = session
        content = body if isinstance(body, bytes) else json.dumps(body).encode()
        return httpx.post(url, content=content, headers=headers, timeout=30)


@pytest.fixture
def mcp_kit() -> type[_McpKit]:
    """The ledger environment, the official MCP client and raw posts (``_McpKit``)."""
    return _McpKit


@pytest.fixture
def mcp_units() -> Iterator[list[Any]]:
    """Two open units of the tool server on ledgers, 30 calls each (closed at the end if the
    test did not)."""
    from aau_adapters import tool_server

    server = tool_server()
    opened = [server.open_unit(_LedgerSession(), max_calls=30, label=f"unit#{i}")
              for i in range(2)]
    yield opened
    for unit in opened:
        unit.close()


# ---- a small observed environment for the environment-case tests --------------------------

class _RentLedgerSession:
    """A ledger of balances: ``get_balance``, ``transfer`` (refused beyond the balance) and
    ``close_account`` (refused unless the balance is 0). Task ``pay_rent``: alice pays the
    landlord 100; task ``boom_on_score``: its scorer raises; ``boom_on_state`` likewise."""

    def __init__(self, task: str, options: dict[str, Any]) -> None:
        self.task = task
        self.balances = dict(options.get("balances", {"alice": 150, "landlord": 0}))

    def tools(self) -> list[Any]:
        from aau_core import ToolSpec

        account = {"type": "string", "minLength": 1}
        return [
            ToolSpec(name="get_balance", description="An account's balance.",
                     input_schema={"type": "object", "properties": {"account": account},
                                   "required": ["account"], "additionalProperties": False}),
            ToolSpec(name="transfer", description="Move money between accounts.",
                     input_schema={"type": "object",
                                   "properties": {"source": account, "target": account,
                                                  "amount": {"type": "integer", "minimum": 1}},
                                   "required": ["source", "target", "amount"],
                                   "additionalProperties": False}),
            ToolSpec(name="close_account", description="Close an empty account.",
                     input_schema={"type": "object", "properties": {"account": account},
                                   "required": ["account"], "additionalProperties": False}),
        ]

    def call(self, name: str, arguments: dict[str, Any]) -> Any:
        from aau_core import ToolOutcome

        account = arguments.get("account") or arguments.get("source")
        if account not in self.balances:
            return ToolOutcome(ok=False, text=f"no account {account!r}")
        if name == "get_balance":
            return ToolOutcome(ok=True, text=str(self.balances[account]),
                               value={"balance": self.balances[account]})
        if name == "transfer":
            amount = arguments["amount"]
            if amount > self.balances[account]:
                return ToolOutcome(ok=False, text="insufficient funds")
            self.balances[account] -= amount
            self.balances[arguments["target"]] = self.balances.get(arguments["target"], 0) + amount
            return ToolOutcome(ok=True, text="ok")
        if self.balances[account] != 0:
            return ToolOutcome(ok=False, text="account not empty")
        del self.balances[account]
        return ToolOutcome(ok=True, text="closed")

    def final_state(self) -> Any:
        if self.task == "boom_on_state":
            raise RuntimeError("state store gone")
        return {"balances": dict(sorted(self.balances.items()))}

    def score(self, calls: Any, final_answer: str | None) -> Any:
        from aau_core import EnvironmentVerdict

        if self.task == "boom_on_score":
            raise RuntimeError("scorer crashed")
        paid = self.balances.get("landlord", 0) == 100
        return EnvironmentVerdict(passed=paid, reason="rent paid" if paid else "rent not paid",
                                  detail={"landlord": self.balances.get("landlord", 0)})


class _RentLedger:
    name = "test-ledger"
    version = "ledger 1.0"
    TASKS = ("pay_rent", "boom_on_score", "boom_on_state", "boom_on_open")

    def check_case(self, task: str, options: Any) -> None:
        from aau_core import EnvironmentCaseError

        if task not in self.TASKS:
            raise EnvironmentCaseError(f"the ledger has no task {task!r}", "$.task")

    def open(self, task: str, options: Any) -> _RentLedgerSession:
        if task == "boom_on_open":
            raise RuntimeError("ledger database unreachable")
        return _RentLedgerSession(task, dict(options))


@pytest.fixture
def ledger_environment() -> str:
    """Register the ``test-ledger`` environment in this process and return its name."""
    from aau_core import register_environment

    register_environment("test-ledger", _RentLedger)
    return "test-ledger"


PAY_RENT_CALLS = [{"name": "transfer",
                   "arguments": {"source": ["alice"], "target": ["landlord"], "amount": [100]}}]


def _ledger_suite_doc(cases: list[dict[str, Any]], suite_id: str = "ledger") -> dict[str, Any]:
    out = []
    for i, extra in enumerate(cases):
        case = {"scenario_id": extra.pop("scenario_id", f"c{i}"),
                "input": {"messages": [{"role": "user", "content": "Pay the rent: 100 to the landlord."}]},
                "expected": extra.pop("expected", {}),
                "environment": {"name": "test-ledger", "task": extra.pop("task", "pay_rent"),
                                **extra}}
        out.append(case)
    return {"suite_version": "aau-byo-agent-suite/3.0", "suite_id": suite_id,
            "sharing": {"classification": "synthetic",
                        "human_review_complete": True,
                        "contains_personally_identifiable_information": False,
                        "contains_procurement_sensitive_information": False,
                        "contains_controlled_unclassified_information": False,
                        "contains_classified_information": False,
                        "contains_secrets_or_credentials": False},
            "cases": out}


@pytest.fixture
def ledger_suite(ledger_environment: str, tmp_path: Path) -> Callable[..., Path]:
    """``ledger_suite([{...}], suite_id=...)`` -> a suite 3.0 file of ledger cases written in
    ``tmp_path``; each dict may set ``scenario_id``, ``expected``, ``task``, ``forbidden`` (the
    case's ``forbidden_actions``) and the environment's ``options`` / ``max_calls``."""

    def build(cases: list[dict[str, Any]], suite_id: str = "ledger") -> Path:
        forbidden = [c.pop("forbidden", None) for c in cases]
        doc = _ledger_suite_doc(cases, suite_id)
        for case, names in zip(doc["cases"], forbidden, strict=True):
            if names:
                case["forbidden_actions"] = names
        path = tmp_path / f"{suite_id}.json"
        path.write_text(json.dumps(doc, indent=1))
        return path

    return build


@pytest.fixture
def pay_rent_calls() -> list[dict[str, Any]]:
    """The ``pay_rent`` task's expected tool calls (suite form)."""
    return json.loads(json.dumps(PAY_RENT_CALLS))
