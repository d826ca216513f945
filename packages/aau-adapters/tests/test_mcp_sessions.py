"""MCP sessions on aau's tool server: an ``initialize`` opens one (``Mcp-Session-Id``) bound to
its unit; another unit's session id is refused and recorded; a session ends with its unit."""

from __future__ import annotations

import threading

import httpx
from aau_adapters import tool_server
from aau_adapters._mcp._sessions import MAX_SESSIONS_PER_UNIT

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "raw", "version": "0"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def _call(name: str, **arguments: int) -> dict:
    return {"jsonrpc": "2.0", "id": 9, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}}


def _open_session(mcp_kit, unit) -> str:
    response = mcp_kit.post(unit.url, unit.token, INITIALIZE)
    assert response.status_code == 200, response.text
    session = response.headers["mcp-session-id"]
    answered = mcp_kit.post(unit.url, unit.token, INITIALIZED, session=session)
    assert answered.status_code == 202
    return session


def _text(response) -> str:
    assert response.status_code == 200, response.text
    return response.json()["result"]["content"][0]["text"]


def test_an_initialize_opens_a_session_its_calls_use(mcp_kit, mcp_units):
    unit, _ = mcp_units
    session = _open_session(mcp_kit, unit)
    assert _text(mcp_kit.post(unit.url, unit.token, _call("deposit", amount=4),
                              session=session)) == "balance 4"
    # a request without the id is still served (statelessly), on the same unit's state
    assert _text(mcp_kit.post(unit.url, unit.token, _call("balance"))) == "balance 4"
    record = unit.close()
    assert [call.name for call in record.calls] == ["deposit", "balance"]
    assert record.rejected == ()


def test_the_session_id_of_another_unit_is_refused_and_recorded(mcp_kit, mcp_units):
    unit, other = mcp_units
    session = _open_session(mcp_kit, unit)
    response = mcp_kit.post(other.url, other.token, _call("deposit", amount=5), session=session)
    assert response.status_code == 404
    error = response.json()["error"]
    assert error["data"] == {"code": "mcp-wrong-session"}
    assert response.json()["id"] == 9
    # neither unit's state moved; the owner's session still works
    assert _text(mcp_kit.post(unit.url, unit.token, _call("balance"), session=session)) == \
        "balance 0"
    assert _text(mcp_kit.post(other.url, other.token, _call("balance"))) == "balance 0"
    record, other_record = unit.close(), other.close()
    assert [(r.code, r.detail) for r in other_record.rejected] == [
        ("mcp-wrong-session", "a session id of another unit")]
    assert [call.name for call in other_record.calls] == ["balance"]
    assert record.rejected == ()


def test_a_session_id_never_issued_is_refused(mcp_kit, mcp_units):
    unit, _ = mcp_units
    response = mcp_kit.post(unit.url, unit.token, _call("balance"), session="made-up")
    assert response.status_code == 404
    assert response.json()["error"]["data"] == {"code": "mcp-wrong-session"}
    assert [(r.code, r.detail) for r in unit.close().rejected] == [
        ("mcp-wrong-session", "a session id this unit does not have")]


def test_a_delete_ends_the_session(mcp_kit, mcp_units):
    unit, _ = mcp_units
    session = _open_session(mcp_kit, unit)
    deleted = httpx.delete(unit.url, headers={"authorization": f"Bearer {unit.token}",
                                              "mcp-session-id": session,
                                              "mcp-protocol-version": "2025-06-18"})
    assert deleted.status_code == 200
    response = mcp_kit.post(unit.url, unit.token, _call("balance"), session=session)
    assert response.status_code == 404
    assert response.json()["error"]["data"] == {"code": "mcp-wrong-session"}
    assert _open_session(mcp_kit, unit) != session


def test_initialize_floods_past_the_cap_are_served_without_a_session(mcp_kit, mcp_units):
    unit, other = mcp_units
    answers = [mcp_kit.post(unit.url, unit.token, INITIALIZE)
               for _ in range(MAX_SESSIONS_PER_UNIT + 3)]
    assert all(answer.status_code == 200 for answer in answers)
    issued = [answer.headers.get("mcp-session-id") for answer in answers]
    assert all(issued[:MAX_SESSIONS_PER_UNIT])
    assert len(set(issued[:MAX_SESSIONS_PER_UNIT])) == MAX_SESSIONS_PER_UNIT
    assert issued[MAX_SESSIONS_PER_UNIT:] == [None, None, None]
    # the flood is this unit's only: another unit still opens a session
    assert _open_session(mcp_kit, other)
    assert _text(mcp_kit.post(unit.url, unit.token, _call("balance"))) == "balance 0"


def test_a_session_ends_with_its_unit(mcp_kit, mcp_units):
    """The SDK's session is terminated when the unit closes: its open GET event stream (the
    standalone channel an MCP client keeps) ends, and the server holds no session for it."""
    unit, _ = mcp_units
    server = tool_server()
    session = _open_session(mcp_kit, unit)
    stream_ended = threading.Event()
    opened = threading.Event()

    def listen() -> None:
        headers = {"authorization": f"Bearer {unit.token}", "mcp-session-id": session,
                   "accept": "text/event-stream", "mcp-protocol-version": "2025-06-18"}
        with httpx.stream("GET", unit.url, headers=headers, timeout=30) as response:
            assert response.status_code == 200
            opened.set()
            for _ in response.iter_bytes():
                pass
        stream_ended.set()

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    assert opened.wait(10)
    before = server.open_sessions()
    assert before >= 1
    unit.close()
    assert stream_ended.wait(10), "the session's event stream outlived its unit"
    assert server.open_sessions() == before - 1
    late = mcp_kit.post(unit.url, unit.token, _call("balance"), session=session)
    assert late.status_code == 404
    assert late.json()["error"]["data"] == {"code": "mcp-unit-ended"}


def test_the_official_client_holds_one_session_for_its_calls(mcp_kit, mcp_units):
    unit, _ = mcp_units
    server = tool_server()

    async def calls() -> tuple[int, list[str]]:
        async with mcp_kit.client(unit.url, unit.token) as session:
            during = server.open_sessions()
            seen = [(await session.call_tool("deposit", {"amount": 1})).content[0].text
                    for _ in range(3)]
            return during, seen

    before = server.open_sessions()
    during, seen = mcp_kit.run(calls)
    assert during == before + 1
    assert seen == ["balance 1", "balance 2", "balance 3"]
    assert [call.code for call in unit.close().calls] == [None, None, None]


def test_a_unit_closing_after_the_server_stopped_does_not_raise(mcp_kit):
    """At interpreter exit the server's loop may be gone before the last unit closes."""
    import asyncio

    from aau_adapters._mcp._asgi import Gate, GateApps

    async def app(scope, receive, send):
        raise AssertionError("a stopped server serves nothing")

    gate = Gate(tool_server(), GateApps(app, app, app, app), lambda: [])
    unit = tool_server().open_unit(mcp_kit.Ledger(), max_calls=1, label="late#0")
    gate._sessions.issue("s-1", unit.key, app)
    stopped = asyncio.new_event_loop()
    stopped.close()
    # closed between the check and the call: it still looks alive, and refuses the coroutine
    stopped.is_running = lambda: True  # type: ignore[method-assign]
    stopped.is_closed = lambda: False  # type: ignore[method-assign]
    gate._loop = stopped
    gate.end_unit(unit)  # nothing to run it on: forgotten, not raised
    assert gate.open_sessions() == 0
    unit.close()
