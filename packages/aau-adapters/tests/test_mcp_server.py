"""aau's MCP tool server through the official MCP SDK client: tools listed from the environment,
calls answered by it, and every call recorded exactly as the client sent it."""

from __future__ import annotations

import mcp_types
import pytest
from aau_adapters import MCP_FAILURE_CODES, ToolServer, UnitRecord, tool_server
from aau_core import ObservedCall
from mcp.shared.exceptions import MCPError


def test_tool_server_is_one_per_process_on_loopback():
    server = tool_server()
    assert isinstance(server, ToolServer)
    assert tool_server() is server
    assert server.base_url == f"http://127.0.0.1:{server.port}"


def test_open_unit_gives_a_url_and_a_token_of_its_own(mcp_kit):
    server = tool_server()
    first = server.open_unit(mcp_kit.Ledger(), max_calls=5, label="case-a#0")
    second = server.open_unit(mcp_kit.Ledger(), max_calls=50, label="case-a#1")
    try:
        assert first.url.startswith(f"{server.base_url}/units/") and first.url.endswith("/mcp")
        assert first.url != second.url and first.token != second.token
        assert len(first.token) >= 40  # secrets.token_urlsafe(32)
        assert (first.max_calls, second.max_calls) == (5, 50)
    finally:
        assert first.close() == UnitRecord(calls=(), rejected=())
        second.close()


@pytest.mark.parametrize("max_calls", [0, 10_001, 2.5, True])
def test_open_unit_refuses_a_budget_out_of_range(mcp_kit, max_calls):
    with pytest.raises(ValueError, match="max_calls"):
        tool_server().open_unit(mcp_kit.Ledger(), max_calls=max_calls, label="x")


def test_the_official_client_lists_and_calls_and_aau_records_it_all(mcp_kit):
    ledger = mcp_kit.Ledger()
    unit = tool_server().open_unit(ledger, max_calls=50, label="ledger#0")

    async def agent():
        async with mcp_kit.client(unit.url, unit.token) as session:
            listed = await session.list_tools()
            answers = [
                await session.call_tool("deposit", {"amount": 5, "memo": "rent"}),
                await session.call_tool("withdraw", {"amount": 9}),
                await session.call_tool("withdraw", {"amount": 2}),
                await session.call_tool("audit", {}),
                await session.call_tool("balance"),
            ]
            return listed, answers

    listed, answers = mcp_kit.run(agent)
    record = unit.close()

    assert [tool.name for tool in listed.tools] == ["deposit", "withdraw", "balance", "audit"]
    assert [tool.input_schema for tool in listed.tools] == [
        dict(spec.input_schema) for spec in mcp_kit.Ledger().tools()]
    assert listed.tools[0].description == "Add money to the ledger."

    texts = [answer.content[0].text for answer in answers]
    assert texts == ["balance 5", "insufficient funds: balance 5", "balance 3",
                     "the environment failed: RuntimeError: the books are on fire", "balance 3"]
    assert [answer.is_error for answer in answers] == [False, True, False, True, False]
    assert answers[0].structured_content == {"balance": 5}
    assert answers[1].structured_content is None

    assert [(c.index, c.name, c.arguments, c.ok, c.code, c.result) for c in record.calls] == [
        (0, "deposit", {"amount": 5, "memo": "rent"}, True, None, "balance 5"),
        (1, "withdraw", {"amount": 9}, False, "tool-error", "insufficient funds: balance 5"),
        (2, "withdraw", {"amount": 2}, True, None, "balance 3"),
        (3, "audit", {}, False, "environment-error",
         "the environment failed: RuntimeError: the books are on fire"),
        (4, "balance", {}, True, None, "balance 3"),
    ]
    assert all(isinstance(call, ObservedCall) and call.attempted for call in record.calls)
    starts = [call.started_s for call in record.calls]
    assert starts == sorted(starts) and starts[0] >= 0
    assert all(call.duration_s >= 0 for call in record.calls)
    assert record.rejected == ()
    assert ledger.final_state() == {"balance": 3, "entries": [
        {"deposit": 5, "memo": "rent"}, {"withdraw": 2}]}


def test_unknown_tools_and_bad_arguments_are_recorded_calls(mcp_kit):
    ledger = mcp_kit.Ledger()
    unit = tool_server().open_unit(ledger, max_calls=50, label="ledger#1")

    async def agent():
        async with mcp_kit.client(unit.url, unit.token) as session:
            with pytest.raises(MCPError) as unknown:
                await session.call_tool("transfer", {"to": "mallory"})
            bad = [await session.call_tool("deposit", {"amount": 0}),
                   await session.call_tool("deposit", {"amount": "ten"}),
                   await session.call_tool("deposit", {"amount": 1, "memo": "x" * 41}),
                   await session.call_tool("deposit", {})]
            good = await session.call_tool("deposit", {"amount": 4})
            return unknown.value, bad, good

    unknown, bad, good = mcp_kit.run(agent)
    record = unit.close()

    assert unknown.code == -32602 and unknown.message == "unknown tool 'transfer'"
    messages = [answer.content[0].text for answer in bad]
    assert messages == [
        "invalid arguments for 'deposit': $.amount: 0 is less than the minimum of 1",
        "invalid arguments for 'deposit': $.amount: 'ten' is not of type 'integer'",
        "invalid arguments for 'deposit': $.memo: '" + "x" * 41 + "' is too long",
        "invalid arguments for 'deposit': $: 'amount' is a required property",
    ]
    assert all(answer.is_error for answer in bad)
    assert good.content[0].text == "balance 4" and not good.is_error
    assert [(c.name, c.ok, c.code) for c in record.calls] == [
        ("transfer", False, "mcp-unknown-tool"),
        *[("deposit", False, "mcp-invalid-arguments")] * 4,
        ("deposit", True, None),
    ]
    assert record.calls[0].arguments == {"to": "mallory"}
    assert record.calls[0].result == "unknown tool 'transfer'"
    assert ledger.balance == 4  # nothing refused reached the environment


def test_the_call_budget_refuses_every_call_past_it(mcp_kit):
    ledger = mcp_kit.Ledger()
    unit = tool_server().open_unit(ledger, max_calls=2, label="ledger#2")

    async def agent():
        async with mcp_kit.client(unit.url, unit.token) as session:
            return [await session.call_tool("deposit", {"amount": 1}) for _ in range(4)]

    answers = mcp_kit.run(agent)
    record = unit.close()
    assert [answer.is_error for answer in answers] == [False, False, True, True]
    assert answers[2].content[0].text == (
        "call budget exceeded: this unit allows 2 tool calls")
    assert [c.code for c in record.calls] == [
        None, None, "mcp-call-budget-exceeded", "mcp-call-budget-exceeded"]
    assert ledger.balance == 2


def test_close_is_idempotent_and_the_record_stops_changing(mcp_kit):
    unit = tool_server().open_unit(mcp_kit.Ledger(), max_calls=5, label="ledger#3")

    async def one_call():
        async with mcp_kit.client(unit.url, unit.token) as session:
            await session.call_tool("balance")

    mcp_kit.run(one_call)
    first = unit.close()
    assert unit.close() is first
    assert [call.name for call in first.calls] == ["balance"]


def test_the_failure_codes_are_the_spec_table():
    assert MCP_FAILURE_CODES == (
        "mcp-wrong-token", "mcp-unit-ended", "mcp-wrong-session", "mcp-malformed-jsonrpc",
        "mcp-oversized-request",
        "mcp-unknown-tool", "mcp-invalid-arguments", "mcp-call-budget-exceeded", "tool-error",
        "environment-error")


def test_tool_results_are_mcp_models(mcp_kit):
    unit = tool_server().open_unit(mcp_kit.Ledger(), max_calls=5, label="ledger#4")

    async def one_call():
        async with mcp_kit.client(unit.url, unit.token) as session:
            return await session.call_tool("deposit", {"amount": 2})

    answer = mcp_kit.run(one_call)
    unit.close()
    assert isinstance(answer, mcp_types.CallToolResult)
    assert isinstance(answer.content[0], mcp_types.TextContent)
