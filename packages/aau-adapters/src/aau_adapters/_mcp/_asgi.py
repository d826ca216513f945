"""The HTTP gate in front of the MCP SDK: which unit a request is for, and whether it may reach it.

Every request to ``/units/<unitkey>/mcp`` goes through, in order:

1. the unit: a live unit's key goes on; the key of a closed unit answers HTTP 404
   ``mcp-unit-ended`` (counted in ``ToolServer.late_requests``); anything else HTTP 404;
2. the bearer token (``Authorization: Bearer TOKEN``), compared in constant time with the
   unit's: missing or not this unit's -> HTTP 401 ``mcp-wrong-token``, recorded on the URL's unit;
3. for a POST, the body, read up to ``MAX_REQUEST_BYTES`` (more -> HTTP 413
   ``mcp-oversized-request``) and checked as one JSON-RPC 2.0 message (not JSON -> HTTP 400 and
   JSON-RPC -32700; not a JSON-RPC 2.0 message -> HTTP 400 and -32600; both
   ``mcp-malformed-jsonrpc``). A ``tools/call`` whose name is not a string is recorded as a call
   (``mcp-unknown-tool``, JSON-RPC -32602); one whose arguments are not an object reaches the
   unit with that refusal (``mcp-invalid-arguments``, a tool result with ``isError``);
4. the MCP session (``_sessions``): a request with an ``Mcp-Session-Id`` goes to the session's
   manager when this unit opened it, else HTTP 404 ``mcp-wrong-session``; an ``initialize``
   without one opens a session (up to ``MAX_SESSIONS_PER_UNIT``); anything else is served
   statelessly;
5. the SDK's session manager (``mcp.server.streamable_http_manager``), stateful or stateless,
   answering in JSON or as an SSE stream as the request's ``Accept`` header prefers (the first
   listed of ``application/json`` and ``text/event-stream`` at the highest ``q``; JSON on a tie).

The gate leaves its findings in the ASGI scope for the tool handlers (``SCOPE_UNIT``,
``SCOPE_ARRIVED``, ``SCOPE_REFUSAL``) and the unit's principal for the SDK (``user``): a handler
reads the unit from the request's scope, never from anything the agent sent.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import re
import time
from collections.abc import Awaitable, Callable, MutableMapping
from contextlib import AsyncExitStack
from typing import Any, Protocol

import attrs

from aau_adapters._mcp import _codes
from aau_adapters._mcp._sessions import SESSION_HEADER, SessionBook, end_session, principal
from aau_adapters._mcp._units import UnitChannel

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

SCOPE_UNIT = "aau.unit"
SCOPE_ARRIVED = "aau.arrived"
SCOPE_REFUSAL = "aau.refusal"

_PATH = re.compile(r"^/units/([A-Za-z0-9_-]{1,128})/mcp/?$")


class UnitDirectory(Protocol):
    """What the gate asks the server (``ToolServer`` implements it)."""

    def live_unit(self, key: str) -> UnitChannel | None:
        """The open unit with this key, or ``None``."""

    def ended_unit(self, key: str) -> bool:
        """This key was a unit's that has closed."""

    def count_late_request(self) -> None:
        """Count one request to a closed unit."""

    def token_owner(self, token: str) -> str | None:
        """The key of the live unit holding this token, or ``None``."""


@attrs.frozen
class GateApps:
    """The SDK session managers' ASGI apps behind the gate.

    Attributes:
        json: stateless, answering in JSON.
        sse: stateless, answering as SSE streams.
        session_json: stateful (``Mcp-Session-Id``), answering in JSON.
        session_sse: stateful, answering as SSE streams.
    """

    json: ASGIApp
    sse: ASGIApp
    session_json: ASGIApp
    session_sse: ASGIApp


class Gate:
    """The ASGI application of the tool server (module docstring).

    Args:
        units: the server's ``UnitDirectory``.
        apps: the SDK session managers' apps (``GateApps``).
        lifespans: async context managers entered at ASGI start-up (the session managers'
            ``run()``) and left at shutdown.
    """

    def __init__(self, units: UnitDirectory, apps: GateApps,
                 lifespans: Callable[[], list[Any]]) -> None:
        self._units = units
        self._apps = apps
        self._lifespans = lifespans
        self._sessions = SessionBook()
        self._loop: asyncio.AbstractEventLoop | None = None

    def open_sessions(self) -> int:
        """How many MCP sessions are open (on every unit)."""
        return len(self._sessions)

    def end_unit(self, unit: UnitChannel) -> None:
        """Terminate the MCP sessions a closing unit opened (callable from any thread; the
        DELETEs run on the server's loop, not awaited here)."""
        taken = self._sessions.take_unit(unit.key)
        loop = self._loop
        if taken and loop is not None and loop.is_running():
            path = f"/units/{unit.key}/mcp"
            for session_id, app in taken:
                ending = end_session(app, session_id, unit.key, path)
                try:
                    asyncio.run_coroutine_threadsafe(ending, loop)
                except RuntimeError:  # the server stopped meanwhile (interpreter exit): its
                    ending.close()    # sessions went with it
                    return

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        arrived = time.perf_counter()
        match = _PATH.match(scope.get("path", ""))
        if match is None:
            await _answer(send, 404, -32600, "not found: aau serves /units/<unitkey>/mcp")
            return
        key = match.group(1)
        unit = self._units.live_unit(key)
        if unit is None or unit.closed:
            if unit is not None or self._units.ended_unit(key):
                self._units.count_late_request()
                await _answer(send, 404, _codes.INVALID_REQUEST, "this unit has ended",
                              _codes.UNIT_ENDED)
            else:
                await _answer(send, 404, _codes.INVALID_REQUEST, "no such unit")
            return
        problem = self._token_problem(scope, unit)
        if problem is not None:
            unit.reject(_codes.WRONG_TOKEN, problem, arrived)
            await _answer(send, 401, _codes.INVALID_REQUEST, f"unauthorized: {problem}",
                          _codes.WRONG_TOKEN,
                          extra_headers=[(b"www-authenticate", b'Bearer error="invalid_token"')])
            return
        scope[SCOPE_UNIT] = unit
        scope[SCOPE_ARRIVED] = arrived
        scope["user"] = principal(unit.key)
        checked: dict[str, Any] | None = None
        if scope.get("method") == "POST":
            body = await _read_body(scope, receive)
            arrived = scope[SCOPE_ARRIVED] = time.perf_counter()  # a call arrives when it is read
            if body is None:
                detail = f"request body over {_codes.MAX_REQUEST_BYTES} bytes"
                unit.reject(_codes.OVERSIZED_REQUEST, detail, arrived)
                await _answer(send, 413, _codes.INVALID_REQUEST, detail, _codes.OVERSIZED_REQUEST)
                return
            checked = _check_message(body)
            if isinstance(checked, _Malformed):
                unit.reject(_codes.MALFORMED_JSONRPC, checked.detail, arrived)
                await _answer(send, 400, checked.jsonrpc_code, checked.detail,
                              _codes.MALFORMED_JSONRPC, request_id=checked.request_id)
                return
            body = await self._call_shape(checked, body, unit, arrived, scope, send)
            if body is None:
                return
            receive = _replay(body, receive)
        await self._serve(scope, receive, send, unit, checked)

    async def _serve(self, scope: Scope, receive: Receive, send: Send, unit: UnitChannel,
                     message: dict[str, Any] | None) -> None:
        """Hand the request to its session's manager, a new session's, or a stateless one."""
        session_id = _header(scope, SESSION_HEADER)
        if session_id is not None:
            owner = self._sessions.owner(session_id)
            if owner is None or owner[0] != unit.key:
                detail = ("a session id of another unit" if owner is not None
                          else "a session id this unit does not have")
                unit.reject(_codes.WRONG_SESSION, detail, scope[SCOPE_ARRIVED])
                await _answer(send, 404, _codes.INVALID_REQUEST, f"session not found: {detail}",
                              _codes.WRONG_SESSION, request_id=_request_id(message))
                return
            await owner[1](scope, receive, send)
            if scope.get("method") == "DELETE":
                self._sessions.forget(session_id)
            return
        sse = _prefers_sse(scope)
        if (message is not None and message.get("method") == "initialize"
                and self._sessions.can_open(unit.key)):
            app = self._apps.session_sse if sse else self._apps.session_json
            await app(scope, receive, self._issuing(send, unit, app))
            return
        await (self._apps.sse if sse else self._apps.json)(scope, receive, send)

    def _issuing(self, send: Send, unit: UnitChannel, app: ASGIApp) -> Send:
        """``send``, noting the session id the SDK issues before the agent can read it."""

        async def noting(message: Message) -> None:
            if message["type"] == "http.response.start" and message.get("status", 500) < 400:
                for key, value in message.get("headers", ()):
                    if key.lower() == SESSION_HEADER:
                        self._sessions.issue(value.decode("latin-1"), unit.key, app)
            await send(message)

        return noting

    def _token_problem(self, scope: Scope, unit: UnitChannel) -> str | None:
        header = _header(scope, b"authorization")
        if header is None:
            return "no bearer token"
        scheme, _, token = header.strip().partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            return "no bearer token"
        if hmac.compare_digest(token.encode("utf-8", "replace"), unit.token.encode("ascii")):
            return None
        if self._units.token_owner(token) is not None:
            return "the bearer token of another unit"
        return "not this unit's bearer token"

    async def _call_shape(self, message: dict[str, Any], body: bytes, unit: UnitChannel,
                          arrived: float, scope: Scope, send: Send) -> bytes | None:
        """A ``tools/call`` the SDK could not read as one is still the agent's call: record it."""
        if message.get("method") != "tools/call" or "id" not in message:
            return body
        params = message.get("params")
        params = params if isinstance(params, dict) else {}
        name = params.get("name")
        arguments = params.get("arguments")
        if not isinstance(name, str):
            answer = unit.answer("", arguments, arrived)
            await _answer(send, 200, _codes.INVALID_PARAMS, answer.text,
                          request_id=message["id"])
            return None
        if arguments is None or isinstance(arguments, dict):
            return body
        scope[SCOPE_REFUSAL] = (f"$: arguments must be an object, not "
                                f"{_json_type(arguments)}")
        message = dict(message, params={k: v for k, v in params.items() if k != "arguments"})
        return json.dumps(message).encode("utf-8")

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        stack = AsyncExitStack()
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                self._loop = asyncio.get_running_loop()
                try:
                    for context in self._lifespans():
                        await stack.enter_async_context(context)
                except Exception as error:  # noqa: BLE001 - reported to uvicorn, which stops
                    await send({"type": "lifespan.startup.failed", "message": repr(error)})
                    return
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await stack.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return


class _Malformed:
    def __init__(self, jsonrpc_code: int, detail: str, request_id: Any = None) -> None:
        self.jsonrpc_code = jsonrpc_code
        self.detail = detail
        self.request_id = request_id


def _check_message(body: bytes) -> dict[str, Any] | _Malformed:
    """The body as one JSON-RPC 2.0 message (request, notification or response), or why not."""
    try:
        message = json.loads(body)
    except (ValueError, UnicodeDecodeError) as error:
        return _Malformed(_codes.PARSE_ERROR, f"parse error: the body is not JSON ({error})")
    if isinstance(message, list):
        return _Malformed(_codes.INVALID_REQUEST,
                          "invalid request: JSON-RPC batches are not accepted (one message a POST)")
    if not isinstance(message, dict):
        return _Malformed(_codes.INVALID_REQUEST,
                          f"invalid request: a JSON-RPC message is an object, not "
                          f"{_json_type(message)}")
    request_id = message.get("id")
    if not _valid_id(request_id):
        request_id = None
    if message.get("jsonrpc") != "2.0":
        return _Malformed(_codes.INVALID_REQUEST, 'invalid request: $.jsonrpc is not "2.0"',
                          request_id)
    if "method" in message:
        if not isinstance(message["method"], str) or not message["method"]:
            return _Malformed(_codes.INVALID_REQUEST,
                              "invalid request: $.method is not a non-empty string", request_id)
        if "id" in message and not _valid_id(message["id"]):
            return _Malformed(_codes.INVALID_REQUEST,
                              "invalid request: $.id is not a string or an integer")
        if "params" in message and not isinstance(message["params"], dict):
            return _Malformed(_codes.INVALID_REQUEST, "invalid request: $.params is not an object",
                              request_id)
        return message
    if ("result" in message) == ("error" in message) or not _valid_id(message.get("id")):
        return _Malformed(_codes.INVALID_REQUEST,
                          "invalid request: neither a request (method) nor a response "
                          "(id with result or error)", request_id)
    return message


def _request_id(message: dict[str, Any] | None) -> Any:
    request_id = message.get("id") if message is not None else None
    return request_id if _valid_id(request_id) else None


def _valid_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    for kind, name in ((dict, "an object"), (list, "an array"), (str, "a string"),
                       (int, "a number"), (float, "a number")):
        if isinstance(value, kind):
            return name
    return "null"


async def _read_body(scope: Scope, receive: Receive) -> bytes | None:
    """The whole body, or ``None`` when it is over ``MAX_REQUEST_BYTES`` (not read further)."""
    declared = _header(scope, b"content-length")
    if declared is not None and declared.strip().isdigit() and int(declared) > _codes.MAX_REQUEST_BYTES:
        return None
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > _codes.MAX_REQUEST_BYTES:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replayed() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replayed


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return value.decode("latin-1")
    return None


def _prefers_sse(scope: Scope) -> bool:
    """The client's ``Accept`` ranks ``text/event-stream`` above ``application/json``."""
    accept = _header(scope, b"accept")
    if not accept:
        return False
    ranks: dict[str, tuple[float, int]] = {}
    for position, item in enumerate(accept.split(",")):
        media, *parameters = (part.strip() for part in item.split(";"))
        quality = 1.0
        for parameter in parameters:
            label, _, value = parameter.partition("=")
            if label.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        media = media.lower()
        if media in ("application/json", "text/event-stream") and media not in ranks:
            ranks[media] = (quality, -position)
    json_rank = ranks.get("application/json")
    sse_rank = ranks.get("text/event-stream")
    if sse_rank is None or sse_rank[0] <= 0:
        return False
    if json_rank is None or json_rank[0] <= 0:
        return True
    return sse_rank > json_rank


async def _answer(send: Send, status: int, jsonrpc_code: int, message: str,
                  aau_code: str | None = None, *, request_id: Any = None,
                  extra_headers: list[tuple[bytes, bytes]] | None = None) -> None:
    """Send one JSON-RPC error (``data.code`` is aau's failure code when there is one)."""
    error: dict[str, Any] = {"code": jsonrpc_code, "message": message}
    if aau_code is not None:
        error["data"] = {"code": aau_code}
    body = json.dumps({"jsonrpc": "2.0", "id": request_id, "error": error}).encode("utf-8")
    headers = [(b"content-type", b"application/json"),
               (b"content-length", str(len(body)).encode("ascii")), *(extra_headers or [])]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
