"""MCP sessions on the tool server: which unit issued each ``Mcp-Session-Id``, and ending them.

An agent that sends ``initialize`` without a session id gets a session of the SDK's stateful
``StreamableHTTPSessionManager`` (the answer carries ``Mcp-Session-Id``); its later requests
with that id are served by the session's one transport and server loop instead of a fresh
stateless server per request (the stateless path rebuilt the transport, streams, task group
and server on every request: ~85 % of the server's time per call, measured in
``benchmarks/bench_mcp.py``). An agent that sends no session id keeps the stateless path, as
MCP allows.

A session belongs to the unit whose URL and token opened it, and to nothing else:

- the gate hands every request the unit's principal (``principal(key)``, an SDK
  ``AuthenticatedUser`` whose ``client_id`` is the unit key), so the SDK itself refuses a session
  id presented by another unit's credentials;
- ``SessionBook.owner`` is checked before the SDK sees the request, so a session id of another
  unit (or one never issued) is refused by aau and recorded (``mcp-wrong-session``);
- a unit opens at most ``MAX_SESSIONS_PER_UNIT`` sessions; past that, ``initialize`` is served
  statelessly (no session id), so a flood of ``initialize`` costs its own unit time only;
- when the unit closes, its sessions are terminated (an ``HTTP DELETE`` through the SDK, the
  protocol's own way), so the server holds nothing per closed unit.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken

ASGIApp = Callable[[MutableMapping[str, Any], Any, Any], Awaitable[None]]

MAX_SESSIONS_PER_UNIT = 8
"""The most MCP sessions one unit may hold open; further ``initialize`` requests are served
without a session."""

SESSION_HEADER = b"mcp-session-id"


def principal(unit_key: str) -> AuthenticatedUser:
    """The SDK principal of a unit (``scope["user"]``): the SDK binds a session to the principal
    that opened it and answers 404 to any other.

    Args:
        unit_key: the unit's key (``<sequence>-<random>``).

    Returns:
        an ``AuthenticatedUser`` whose ``client_id`` is ``unit_key`` (no token inside).
    """
    return AuthenticatedUser(AccessToken(token="aau-unit", client_id=unit_key, scopes=[]))


class SessionBook:
    """The sessions issued on the server: session id -> (unit key, the manager serving it).

    Thread-safe: sessions are issued and used on the server's thread, and taken away by
    ``take_unit`` from the thread that closes a unit.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._owner: dict[str, tuple[str, ASGIApp]] = {}
        self._of_unit: dict[str, set[str]] = {}

    def __len__(self) -> int:
        with self._lock:
            return len(self._owner)

    def can_open(self, unit_key: str) -> bool:
        """The unit holds fewer than ``MAX_SESSIONS_PER_UNIT`` sessions."""
        with self._lock:
            return len(self._of_unit.get(unit_key, ())) < MAX_SESSIONS_PER_UNIT

    def issue(self, session_id: str, unit_key: str, app: ASGIApp) -> None:
        """Record that ``app`` opened ``session_id`` for the unit ``unit_key``."""
        with self._lock:
            self._owner[session_id] = (unit_key, app)
            self._of_unit.setdefault(unit_key, set()).add(session_id)

    def owner(self, session_id: str) -> tuple[str, ASGIApp] | None:
        """``(unit key, app)`` of a live session, or ``None`` (never issued, or ended)."""
        with self._lock:
            return self._owner.get(session_id)

    def forget(self, session_id: str) -> None:
        """The session ended (the agent sent ``DELETE``)."""
        with self._lock:
            entry = self._owner.pop(session_id, None)
            if entry is not None:
                sessions = self._of_unit.get(entry[0])
                if sessions is not None:
                    sessions.discard(session_id)
                    if not sessions:
                        del self._of_unit[entry[0]]

    def take_unit(self, unit_key: str) -> list[tuple[str, ASGIApp]]:
        """Forget every session of a unit and return ``[(session id, app), ...]`` to end them."""
        with self._lock:
            taken = [(session_id, self._owner.pop(session_id)[1])
                     for session_id in self._of_unit.pop(unit_key, ())]
        return taken


async def end_session(app: ASGIApp, session_id: str, unit_key: str, path: str) -> None:
    """Terminate one session through the SDK as an agent would: an ``HTTP DELETE`` with its id.

    Args:
        app: the session manager's ASGI app that issued the session.
        session_id: the ``Mcp-Session-Id``.
        unit_key: the unit that owns it (its principal goes with the request).
        path: the unit's path (``/units/<key>/mcp``).

    The SDK's answer is discarded; a session the SDK already ended answers 404, which is fine.
    """
    scope: dict[str, Any] = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "DELETE",
        "scheme": "http", "path": path, "raw_path": path.encode("ascii"), "query_string": b"",
        "root_path": "", "server": ("127.0.0.1", 0), "client": ("127.0.0.1", 0),
        "headers": [(SESSION_HEADER, session_id.encode("latin-1"))],
        "user": principal(unit_key),
    }

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: MutableMapping[str, Any]) -> None:
        return None

    await app(scope, receive, send)
