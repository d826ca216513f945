"""Units of aau's MCP tool server are isolated: many at once from threads, each on its own state
and record; and a client that hangs holds up neither its unit's close() nor any other unit."""

from __future__ import annotations

import socket
import threading
from concurrent.futures import ThreadPoolExecutor

from aau_adapters import tool_server

UNITS = 16
CALLS = 10


def test_sixteen_units_at_once_never_see_each_other(mcp_kit):
    server = tool_server()
    ledgers = [mcp_kit.Ledger() for _ in range(UNITS)]
    units = [server.open_unit(ledger, max_calls=CALLS + 1, label=f"iso#{i}")
             for i, ledger in enumerate(ledgers)]
    start = threading.Barrier(UNITS)

    def agent(position: int) -> list[str]:
        unit = units[position]

        async def calls() -> list[str]:
            async with mcp_kit.client(unit.url, unit.token) as session:
                start.wait(timeout=30)
                seen = []
                for _ in range(CALLS):
                    answer = await session.call_tool("deposit", {"amount": position + 1,
                                                                 "memo": unit.label})
                    seen.append(answer.content[0].text)
                return seen

        return mcp_kit.run(calls)

    with ThreadPoolExecutor(UNITS) as pool:
        seen = list(pool.map(agent, range(UNITS)))
    records = [unit.close() for unit in units]

    for position, (ledger, record, texts) in enumerate(zip(ledgers, records, seen, strict=True)):
        amount = position + 1
        assert texts == [f"balance {amount * (k + 1)}" for k in range(CALLS)]
        assert ledger.balance == amount * CALLS
        assert {entry["memo"] for entry in ledger.entries} == {f"iso#{position}"}
        assert [call.index for call in record.calls] == list(range(CALLS))
        assert all(call.arguments == {"amount": amount, "memo": f"iso#{position}"} and call.ok
                   for call in record.calls)
        assert record.rejected == ()


def test_calls_of_one_unit_from_many_clients_are_serialised(mcp_kit):
    ledger = mcp_kit.Ledger()
    unit = tool_server().open_unit(ledger, max_calls=200, label="busy#0")

    def agent(_: int) -> None:
        async def calls() -> None:
            async with mcp_kit.client(unit.url, unit.token) as session:
                for _ in range(10):
                    await session.call_tool("deposit", {"amount": 1})
        mcp_kit.run(calls)

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(agent, range(8)))
    record = unit.close()
    assert ledger.balance == 80
    assert sorted(int(call.result.split()[1]) for call in record.calls) == list(range(1, 81))
    assert [call.index for call in record.calls] == list(range(80))


def _hang_on(url: str, token: str, *, body_sent: bytes, declared: int) -> socket.socket:
    """Open a connection, send the headers and part of the body, and never send the rest."""
    host_port, _, path = url.removeprefix("http://").partition("/")
    host, _, port = host_port.partition(":")
    connection = socket.create_connection((host, int(port)), timeout=10)
    head = (f"POST /{path} HTTP/1.1\r\nHost: {host_port}\r\nAuthorization: Bearer {token}\r\n"
            "Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n"
            f"Content-Length: {declared}\r\n\r\n").encode()
    connection.sendall(head + body_sent)
    return connection


def test_a_hung_client_blocks_neither_close_nor_other_units(mcp_kit):
    server = tool_server()
    hung_unit = server.open_unit(mcp_kit.Ledger(), max_calls=5, label="hang#0")
    other = server.open_unit(mcp_kit.Ledger(), max_calls=5, label="hang#1")

    async def initialize_only() -> None:
        async with mcp_kit.client(hung_unit.url, hung_unit.token) as session:
            await session.list_tools()

    mcp_kit.run(initialize_only)
    connections = [
        _hang_on(hung_unit.url, hung_unit.token, body_sent=b'{"jsonrpc": "2.0", "id"',
                 declared=200),
        _hang_on(hung_unit.url, hung_unit.token, body_sent=b"", declared=50),
    ]
    try:
        async def calls() -> str:
            async with mcp_kit.client(other.url, other.token) as session:
                answer = await session.call_tool("deposit", {"amount": 2})
                return answer.content[0].text

        assert mcp_kit.run(calls) == "balance 2"  # another unit works while the client hangs

        closed: list = []
        closer = threading.Thread(target=lambda: closed.append(hung_unit.close()), daemon=True)
        closer.start()
        closer.join(10)
        assert not closer.is_alive(), "close() waited for a hung client"
        assert closed[0].calls == ()
        assert mcp_kit.post(hung_unit.url, hung_unit.token, {"jsonrpc": "2.0", "id": 1,
                                                            "method": "tools/list"}
                            ).status_code == 404
        assert mcp_kit.run(calls) == "balance 4"
    finally:
        for connection in connections:
            connection.close()
    assert other.close().calls[-1].result == "balance 4"
    assert server.live_unit(hung_unit.key) is None


def test_a_client_that_never_reads_its_answer_blocks_nothing(mcp_kit):
    server = tool_server()
    unit = server.open_unit(mcp_kit.Ledger(), max_calls=5, label="deaf#0")
    body = (b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": '
            b'{"name": "deposit", "arguments": {"amount": 1}}}')
    connection = _hang_on(unit.url, unit.token, body_sent=body, declared=len(body))
    try:
        closed: list = []
        closer = threading.Thread(target=lambda: closed.append(unit.close()), daemon=True)
        closer.start()
        closer.join(10)
        assert not closer.is_alive()
        assert len(closed[0].calls) <= 1
    finally:
        connection.close()
