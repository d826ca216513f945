"""The process's one MCP tool server: ``tool_server()``, units opened on it, the SDK behind it.

``tool_server()`` starts, on first use, a uvicorn server in a daemon thread on one free port of
127.0.0.1, serving the ``_asgi.Gate`` in front of the official ``mcp`` SDK (a low-level
``mcp.server.lowlevel.Server`` with ``tools/list`` and ``tools/call`` handlers, and four
``StreamableHTTPSessionManager`` instances: stateful (``Mcp-Session-Id``, ``_sessions``) and
stateless, each answering in JSON or in SSE). It stops at interpreter exit. Each unit (``ToolServer.open_unit``) is reached at ``/units/<unitkey>/mcp`` with its own
bearer token; the handlers find the unit in the request's ASGI scope (put there by the gate
after the token check), so one unit never sees another's tools, state or record.

Unit keys are ``<sequence>-<random>``: a key whose sequence number was handed out but whose unit
is no longer open is a closed unit's (HTTP 404 ``mcp-unit-ended``, counted in
``late_requests``), so the server keeps nothing per closed unit.
"""

from __future__ import annotations

import atexit
import os
import secrets
import socket
import threading
import time
from typing import Any

import anyio.to_thread
import mcp_types
import uvicorn
from aau_core import EnvironmentSession
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.shared.exceptions import MCPError

from aau_adapters._mcp import _codes
from aau_adapters._mcp._asgi import SCOPE_ARRIVED, SCOPE_REFUSAL, SCOPE_UNIT, Gate, GateApps
from aau_adapters._mcp._tools import unit_tools
from aau_adapters._mcp._units import UnitChannel

HOST = "127.0.0.1"
_START_TIMEOUT_S = 20.0
_STOP_TIMEOUT_S = 5.0
CALLS_IN_THREAD = True
"""Environment calls run on a worker thread (``anyio.to_thread``), so a slow environment never
holds up the server's event loop (and the other units); benchmarks/bench_mcp.py measures both."""


class ToolServer:
    """The tool server of this process (use ``tool_server()``; one per process).

    Attributes:
        port: the TCP port on 127.0.0.1 it listens on.
        base_url: ``http://127.0.0.1:PORT``.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._units: dict[str, UnitChannel] = {}
        self._tokens: dict[str, str] = {}
        self._next_sequence = 0
        self._late = 0
        self._uvicorn: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._gate: Gate | None = None
        self.port = 0
        self.base_url = ""

    def __repr__(self) -> str:
        return f"ToolServer({self.base_url!r}, open_units={len(self._units)})"

    # -- the public API ------------------------------------------------------------------------

    def open_unit(self, session: EnvironmentSession, *, max_calls: int, label: str) -> UnitChannel:
        """Serve one unit's environment session; its agent connects to the channel's ``url``.

        Args:
            session: the unit's ``EnvironmentSession`` (fresh, used by this unit only); its
                ``tools()`` is read once, now.
            max_calls: the unit's call budget, 1..10000 (suite v3's ``environment.max_calls``).
            label: who the unit is, for logs (``"case-7#0"``).

        Returns:
            the open ``UnitChannel``; ``close()`` it when the unit is over.

        Raises:
            ValueError: ``max_calls`` out of range, or the session's tools are not valid
                (``_tools.unit_tools``).
        """
        if isinstance(max_calls, bool) or not isinstance(max_calls, int) or not (
                1 <= max_calls <= _codes.MAX_CALLS_LIMIT):
            raise ValueError(f"max_calls must be an integer in 1..{_codes.MAX_CALLS_LIMIT}, "
                             f"not {max_calls!r}")
        tools = unit_tools(session.tools())
        token = secrets.token_urlsafe(32)
        with self._lock:
            key = f"{self._next_sequence}-{secrets.token_urlsafe(9)}"
            self._next_sequence += 1
            unit = UnitChannel(session=session, tools=tools, key=key, token=token,
                               url=f"{self.base_url}/units/{key}/mcp", max_calls=max_calls,
                               label=label, on_close=self._forget)
            self._units[key] = unit
            self._tokens[token] = key
        return unit

    def late_requests(self) -> int:
        """Requests that reached a unit after it closed (HTTP 404 ``mcp-unit-ended``), since the
        server started."""
        with self._lock:
            return self._late

    def open_units(self) -> int:
        """How many units are open now."""
        with self._lock:
            return len(self._units)

    def open_sessions(self) -> int:
        """How many MCP sessions (``Mcp-Session-Id``) are open now, on every unit."""
        return self._gate.open_sessions() if self._gate is not None else 0

    # -- the gate's directory (``_asgi.UnitDirectory``) ------------------------------------------

    def live_unit(self, key: str) -> UnitChannel | None:
        return self._units.get(key)

    def ended_unit(self, key: str) -> bool:
        sequence, _, _ = key.partition("-")
        if not sequence.isdigit() or key in self._units:
            return False
        return int(sequence) < self._next_sequence

    def count_late_request(self) -> None:
        with self._lock:
            self._late += 1

    def token_owner(self, token: str) -> str | None:
        return self._tokens.get(token)

    def _forget(self, unit: UnitChannel) -> None:
        with self._lock:
            self._units.pop(unit.key, None)
            self._tokens.pop(unit.token, None)
        if self._gate is not None:
            self._gate.end_unit(unit)

    # -- start and stop --------------------------------------------------------------------------

    def _start(self) -> None:
        sdk = Server("aau", version="aau-adapters", on_list_tools=_list_tools,
                     on_call_tool=_call_tool)
        # the SDK wraps every message in an OpenTelemetry span by default and documents dropping
        # it from ``Server.middleware`` to opt out; aau records calls itself and exports no spans
        # from here, and the wrapper was ~30 % of the server's time a call (bench_mcp.py)
        sdk.middleware = [layer for layer in sdk.middleware
                          if type(layer).__name__ != "OpenTelemetryMiddleware"]
        # stateful managers: no idle timeout and no global cap, because a session ends with its
        # unit (``Gate.end_unit``) and a unit holds at most ``MAX_SESSIONS_PER_UNIT``
        managers = [StreamableHTTPSessionManager(app=sdk, json_response=answer_json,
                                                 stateless=stateless, session_idle_timeout=None,
                                                 max_sessions=None)
                    for stateless in (True, False) for answer_json in (True, False)]
        apps = GateApps(*(manager.handle_request for manager in managers))
        self._gate = gate = Gate(self, apps, lambda: [manager.run() for manager in managers])
        # proto IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY on an accepted connection only when
        # its socket says TCP, and without it every answer after a connection's first waits
        # ~40 ms for the client's delayed ACK (measured: 44 ms vs 2 ms a call)
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        listener.bind((HOST, 0))
        self.port = listener.getsockname()[1]
        self.base_url = f"http://{HOST}:{self.port}"
        config = uvicorn.Config(gate, log_level="warning", access_log=False, lifespan="on",
                                timeout_graceful_shutdown=1, backlog=1024)
        self._uvicorn = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._uvicorn.run, kwargs={"sockets": [listener]},
                                        name="aau-mcp-server", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + _START_TIMEOUT_S
        while not self._uvicorn.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"aau's MCP tool server did not start on {self.base_url}")
            time.sleep(0.005)

    def _stop(self) -> None:
        if self._uvicorn is not None and self._thread is not None:
            self._uvicorn.should_exit = True
            self._thread.join(_STOP_TIMEOUT_S)


def _unit_of(ctx: Any) -> tuple[UnitChannel, dict[str, Any]]:
    scope = getattr(ctx.request, "scope", None)
    unit = scope.get(SCOPE_UNIT) if isinstance(scope, dict) else None
    if unit is None:  # not through the gate: cannot happen on the server's own socket
        raise MCPError(code=_codes.INVALID_REQUEST, message="no unit for this request")
    return unit, scope


async def _list_tools(ctx: Any, params: Any) -> mcp_types.ListToolsResult:
    unit, _ = _unit_of(ctx)
    return mcp_types.ListToolsResult(tools=list(unit.listing))


async def _call_tool(ctx: Any, params: mcp_types.CallToolRequestParams) -> mcp_types.CallToolResult:
    unit, scope = _unit_of(ctx)
    refusal = scope.get(SCOPE_REFUSAL)
    arguments = params.arguments
    if arguments is None and refusal is None:
        arguments = {}
    arrived = scope.get(SCOPE_ARRIVED, time.perf_counter())
    if CALLS_IN_THREAD:
        answer = await anyio.to_thread.run_sync(unit.answer, params.name, arguments, arrived,
                                                refusal)
    else:
        answer = unit.answer(params.name, arguments, arrived, refusal)
    if answer.protocol_error is not None:
        raise MCPError(code=answer.protocol_error, message=answer.text)
    structured = answer.value if isinstance(answer.value, dict) and not answer.is_error else None
    return mcp_types.CallToolResult(content=[mcp_types.TextContent(text=answer.text)],
                                    structured_content=structured, is_error=answer.is_error)


_SERVER: ToolServer | None = None
_SERVER_PID = 0
_SERVER_LOCK = threading.Lock()


def tool_server() -> ToolServer:
    """The process's one ``ToolServer``, started on first use (a uvicorn thread on
    127.0.0.1:<free port>) and stopped at interpreter exit.

    A forked child (a Ray worker) gets a server of its own on first use.

    Returns:
        the running ``ToolServer``.

    Raises:
        RuntimeError: the server did not start within 20 s.
    """
    global _SERVER, _SERVER_PID
    with _SERVER_LOCK:
        if _SERVER is None or _SERVER_PID != os.getpid():
            server = ToolServer()
            server._start()
            atexit.register(server._stop)
            _SERVER, _SERVER_PID = server, os.getpid()
        return _SERVER
