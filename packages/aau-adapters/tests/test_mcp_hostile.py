"""Hostile requests to aau's MCP tool server: each answered as issue 19's spec §3 says, recorded
with its code on the URL's unit, and the unit (and every other unit) goes on working."""

from __future__ import annotations

import json

import pytest
from aau_adapters import tool_server

CALL = {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "deposit", "arguments": {"amount": 3}}}


def _error(response) -> dict:
    document = response.json()
    assert document["jsonrpc"] == "2.0"
    return document["error"]


def _still_works(mcp_kit, unit, expected_balance: int) -> None:
    response = mcp_kit.post(unit.url, unit.token, dict(CALL, params={"name": "balance"}))
    assert response.status_code == 200
    assert response.json()["result"]["content"][0]["text"] == f"balance {expected_balance}"


def test_a_raw_call_is_answered_in_json(mcp_kit, mcp_units):
    unit, _ = mcp_units
    response = mcp_kit.post(unit.url, unit.token, CALL)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    assert response.json() == {"jsonrpc": "2.0", "id": 7, "result": {
        "content": [{"type": "text", "text": "balance 3"}], "isError": False,
        "structuredContent": {"balance": 3}}}


def test_a_client_preferring_sse_gets_an_event_stream(mcp_kit, mcp_units):
    unit, _ = mcp_units
    response = mcp_kit.post(unit.url, unit.token, CALL,
                            accept="text/event-stream, application/json")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    data = [line[len("data:"):] for line in response.text.splitlines()
            if line.startswith("data:")]
    message = json.loads(data[-1])
    assert message["id"] == 7 and message["result"]["content"][0]["text"] == "balance 3"
    assert [call.code for call in unit.close().calls] == [None]


def test_the_token_of_another_unit_is_refused_on_the_urls_unit(mcp_kit, mcp_units):
    unit, other = mcp_units
    response = mcp_kit.post(unit.url, other.token, CALL)
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer")
    error = _error(response)
    assert error["data"] == {"code": "mcp-wrong-token"}
    assert error["message"] == "unauthorized: the bearer token of another unit"
    _still_works(mcp_kit, unit, 0)
    _still_works(mcp_kit, other, 0)
    record, other_record = unit.close(), other.close()
    assert [(r.code, r.detail) for r in record.rejected] == [
        ("mcp-wrong-token", "the bearer token of another unit")]
    assert record.rejected[0].at_s >= 0
    assert other.token not in record.rejected[0].detail
    assert other_record.rejected == ()
    assert [c.name for c in record.calls] == ["balance"]  # the refused call never became one


@pytest.mark.parametrize("token, detail", [
    (None, "no bearer token"),
    ("made-up-token", "not this unit's bearer token"),
])
def test_a_missing_or_unknown_token_is_refused(mcp_kit, mcp_units, token, detail):
    unit, _ = mcp_units
    response = mcp_kit.post(unit.url, token, CALL)
    assert response.status_code == 401
    assert _error(response)["data"] == {"code": "mcp-wrong-token"}
    _still_works(mcp_kit, unit, 0)
    assert [(r.code, r.detail) for r in unit.close().rejected] == [("mcp-wrong-token", detail)]


@pytest.mark.parametrize("header", ["Basic {token}", "Bearer", "{token}"])
def test_an_authorization_header_without_a_bearer_token_is_refused(mcp_kit, mcp_units, header):
    import httpx

    unit, _ = mcp_units
    response = httpx.post(unit.url, json=CALL, headers={
        "authorization": header.format(token=unit.token), "accept": "application/json"})
    assert response.status_code == 401
    assert [r.detail for r in unit.close().rejected] == ["no bearer token"]


def test_every_request_after_close_is_ended_and_counted_late(mcp_kit, mcp_units):
    unit, other = mcp_units
    server = tool_server()
    record = unit.close()
    late_before = server.late_requests()
    for token in (unit.token, other.token, None):
        response = mcp_kit.post(unit.url, token, CALL)
        assert response.status_code == 404
        assert _error(response)["data"] == {"code": "mcp-unit-ended"}
    assert server.late_requests() == late_before + 3
    assert unit.close() is record and record.calls == () and record.rejected == ()
    _still_works(mcp_kit, other, 0)


def test_a_key_that_never_was_a_unit_is_not_found_and_not_late(mcp_kit, mcp_units):
    unit, _ = mcp_units
    server = tool_server()
    late_before = server.late_requests()
    for path in ("/units/999999999-nope/mcp", "/units/nope/mcp", "/mcp", "/"):
        response = mcp_kit.post(server.base_url + path, unit.token, CALL)
        assert response.status_code == 404
    assert server.late_requests() == late_before
    assert unit.close().rejected == ()


def test_an_oversized_body_is_refused_unread(mcp_kit, mcp_units):
    unit, _ = mcp_units
    padding = "x" * 1_000_000
    body = dict(CALL, params={"name": "deposit", "arguments": {"amount": 3, "memo": padding}})
    response = mcp_kit.post(unit.url, unit.token, body)
    assert response.status_code == 413
    assert _error(response)["data"] == {"code": "mcp-oversized-request"}
    _still_works(mcp_kit, unit, 0)
    record = unit.close()
    assert [(r.code, r.detail) for r in record.rejected] == [
        ("mcp-oversized-request", "request body over 1000000 bytes")]
    assert [c.name for c in record.calls] == ["balance"]


def test_a_body_of_exactly_the_limit_is_read(mcp_kit, mcp_units):
    unit, _ = mcp_units
    body = json.dumps(CALL).encode()
    body = body[:-1] + b" " * (1_000_000 - len(body)) + b"}"
    assert len(body) == 1_000_000
    response = mcp_kit.post(unit.url, unit.token, body)
    assert response.status_code == 200
    assert unit.close().rejected == ()


def test_an_oversized_chunked_body_is_refused(mcp_kit, mcp_units):
    import httpx

    unit, _ = mcp_units

    def chunks():
        for _ in range(11):
            yield b"x" * 100_000

    response = httpx.post(unit.url, content=chunks(), headers={
        "authorization": f"Bearer {unit.token}", "accept": "application/json",
        "content-type": "application/json"})
    assert response.status_code == 413
    assert [r.code for r in unit.close().rejected] == ["mcp-oversized-request"]


@pytest.mark.parametrize("body, jsonrpc_code, detail", [
    (b"{not json", -32700, "parse error: the body is not JSON"),
    (b"", -32700, "parse error: the body is not JSON"),
    (b"\xff\xfe", -32700, "parse error: the body is not JSON"),
    (b'[{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}]', -32600,
     "invalid request: JSON-RPC batches are not accepted (one message a POST)"),
    (b'"tools/list"', -32600, "invalid request: a JSON-RPC message is an object, not a string"),
    (b'{"jsonrpc": "1.0", "id": 1, "method": "tools/list"}', -32600,
     'invalid request: $.jsonrpc is not "2.0"'),
    (b'{"jsonrpc": "2.0", "id": 1, "method": 5}', -32600,
     "invalid request: $.method is not a non-empty string"),
    (b'{"jsonrpc": "2.0", "id": {"a": 1}, "method": "tools/list"}', -32600,
     "invalid request: $.id is not a string or an integer"),
    (b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": [1]}', -32600,
     "invalid request: $.params is not an object"),
    (b'{"jsonrpc": "2.0", "id": 1}', -32600,
     "invalid request: neither a request (method) nor a response (id with result or error)"),
])
def test_malformed_jsonrpc_is_refused(mcp_kit, mcp_units, body, jsonrpc_code, detail):
    unit, other = mcp_units
    response = mcp_kit.post(unit.url, unit.token, body)
    assert response.status_code == 400
    error = _error(response)
    assert error["code"] == jsonrpc_code and error["data"] == {"code": "mcp-malformed-jsonrpc"}
    assert error["message"].startswith(detail)
    _still_works(mcp_kit, unit, 0)
    _still_works(mcp_kit, other, 0)
    record = unit.close()
    assert len(record.rejected) == 1 and record.rejected[0].code == "mcp-malformed-jsonrpc"
    assert record.rejected[0].detail.startswith(detail)


def test_malformed_jsonrpc_keeps_a_readable_id(mcp_kit, mcp_units):
    unit, _ = mcp_units
    response = mcp_kit.post(unit.url, unit.token,
                            b'{"jsonrpc": "2.1", "id": 41, "method": "tools/list"}')
    assert response.status_code == 400 and response.json()["id"] == 41


def test_a_call_whose_arguments_are_not_an_object_is_an_invalid_arguments_call(mcp_kit, mcp_units):
    unit, _ = mcp_units
    body = dict(CALL, params={"name": "deposit", "arguments": [3]})
    response = mcp_kit.post(unit.url, unit.token, body)
    assert response.status_code == 200
    result = response.json()["result"]
    assert result["isError"] is True
    assert result["content"][0]["text"] == (
        "invalid arguments for 'deposit': $: arguments must be an object, not an array")
    call, = unit.close().calls
    assert (call.name, call.arguments, call.ok, call.code) == (
        "deposit", None, False, "mcp-invalid-arguments")


def test_a_call_without_a_readable_name_is_an_unknown_tool_call(mcp_kit, mcp_units):
    unit, _ = mcp_units
    body = dict(CALL, params={"name": 12, "arguments": {"amount": 3}})
    response = mcp_kit.post(unit.url, unit.token, body)
    assert response.status_code == 200
    assert response.json() == {"jsonrpc": "2.0", "id": 7,
                               "error": {"code": -32602, "message": "unknown tool ''"}}
    call, = unit.close().calls
    assert (call.name, call.arguments, call.code, call.attempted) == (
        "", {"amount": 3}, "mcp-unknown-tool", False)


def test_an_unknown_method_is_the_sdks_answer_and_no_call(mcp_kit, mcp_units):
    unit, _ = mcp_units
    response = mcp_kit.post(unit.url, unit.token,
                            {"jsonrpc": "2.0", "id": 3, "method": "resources/list"})
    assert response.status_code == 200
    assert response.json()["error"]["code"] == -32601
    assert unit.close().calls == ()


def test_a_unit_refused_everything_still_counts_its_budget_only_in_calls(mcp_kit, mcp_units):
    unit, _ = mcp_units
    for _ in range(3):
        mcp_kit.post(unit.url, "wrong", CALL)
        mcp_kit.post(unit.url, unit.token, b"nonsense")
    for _ in range(unit.max_calls):
        assert mcp_kit.post(unit.url, unit.token, CALL).json()["result"]["isError"] is False
    over = mcp_kit.post(unit.url, unit.token, CALL).json()["result"]
    assert over["isError"] is True and "budget" in over["content"][0]["text"]
    record = unit.close()
    assert len(record.rejected) == 6 and len(record.calls) == unit.max_calls + 1
    assert record.calls[-1].code == "mcp-call-budget-exceeded"
