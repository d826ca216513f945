"""Conversations with a simulated user (suite v3 ``user``, request 1.2), end to end over real
MCP: a command agent kept alive across turns and an endpoint agent answering one POST per turn,
on the in-process ledger environment (conftest ``ledger_environment``); every failure code of
a conversation; receipts validated against their schemas."""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from aau_adapters import CommandAdapter, EndpointAdapter, check_receipt, run_evaluation
from aau_schemas import validate

pytest.importorskip("mcp")

# The agent: per MODE (argv[1]) it converses, then pays the rent over MCP, or misbehaves.
AGENT = '''\
import asyncio, json, sys
import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

MODE = sys.argv[1]


def read():
    line = sys.stdin.readline()
    return json.loads(line) if line else None


def say(obj):
    sys.stdout.write(json.dumps(obj) + "\\n")
    sys.stdout.flush()


async def pay(mcp, amount):
    headers = {"Authorization": "Bearer " + mcp["bearer_token"]}
    async with httpx2.AsyncClient(headers=headers, timeout=20) as http, \\
            streamable_http_client(mcp["url"], http_client=http) as (r, w), \\
            ClientSession(r, w) as session:
        await session.initialize()
        await session.call_tool("transfer", {"source": "alice", "target": "landlord",
                                             "amount": amount})


req = read()
log = [req["protocol_version"], req["conversation"]["turn"], req["conversation"]["user_message"]]
if MODE == "good":  # asks how much, pays it, answers
    say({"message_to_user": "How much is the rent?"})
    req = read()
    log.append(req["conversation"]["user_message"])
    assert req["conversation"]["turn"] == 2
    asyncio.run(pay(req["mcp"], int(req["conversation"]["user_message"])))
    say({"outcome": "paid " + "|".join(map(str, log))})
elif MODE == "chatty":  # never gives a final answer
    while req is not None:
        say({"message_to_user": "Anything else?"})
        req = read()
elif MODE == "leaves":  # one message, then exits 0
    say({"message_to_user": "Bye."})
elif MODE == "one-shot":  # a 1.0-style agent: the final answer on turn 1, then exits
    asyncio.run(pay(req["mcp"], 100))
    say({"outcome": "paid"})
'''

RENT = "Pay my rent to the landlord, please."


@pytest.fixture
def agent(tmp_path: Path) -> Any:
    path = tmp_path / "talking_agent.py"
    path.write_text(AGENT, encoding="utf-8")
    return lambda mode: [sys.executable, str(path), mode]


def _with_user(suite: Path, user: dict[str, Any]) -> Path:
    doc = json.loads(suite.read_text())
    for case in doc["cases"]:
        case["user"] = user
    suite.write_text(json.dumps(doc))
    return suite


def _run(suite: Path, adapter: Any, tmp_path: Path) -> tuple[Any, dict[str, Any], dict[str, Any]]:
    result = run_evaluation(str(suite), adapter, timeout_s=30.0, out=str(tmp_path / "r.json"),
                            private_out=str(tmp_path / "p.json"), no_store=True, force=True)
    public = json.loads((tmp_path / "r.json").read_text())
    private = json.loads((tmp_path / "p.json").read_text())
    validate("receipt-v2", public, source="r.json")
    validate("private-receipt-v2", private, source="p.json")
    assert check_receipt(public) == []
    return result, public, private


SCRIPT = {"kind": "scripted", "messages": [RENT, "100"], "max_turns": 4}


def test_a_command_agent_converses_in_one_process(ledger_suite: Any, agent: Any,
                                                  tmp_path: Path) -> None:
    suite = _with_user(ledger_suite([{}]), SCRIPT)
    _, public, private = _run(suite, CommandAdapter(agent("good"), 30.0), tmp_path)
    row, prow = public["results"][0], private["results"][0]
    assert row["environment_passed"] is True and row["failure_codes"] == []
    # one process saw both turns: its answer quotes the 1.2 request and both user messages
    assert prow["response"]["outcome"] == f"paid aau-byo-agent-request/1.2|1|{RENT}|100"
    assert prow["conversation"] == {
        "user_kind": "scripted",
        "turns": [{"role": "user", "content": RENT},
                  {"role": "agent", "content": "How much is the rent?"},
                  {"role": "user", "content": "100"},
                  {"role": "agent", "content": prow["response"]["outcome"], "final": True}],
        "user_usage": {"input_tokens": 0, "output_tokens": 0, "cost_usd": 0.0}}
    assert [c["name"] for c in prow["trajectory"]] == ["transfer"]


def test_a_final_answer_on_the_first_turn_ends_the_conversation(ledger_suite: Any, agent: Any,
                                                                tmp_path: Path) -> None:
    suite = _with_user(ledger_suite([{}]), SCRIPT)
    _, public, private = _run(suite, CommandAdapter(agent("one-shot"), 30.0), tmp_path)
    assert public["results"][0]["failure_codes"] == []
    assert len(private["results"][0]["conversation"]["turns"]) == 2


@pytest.mark.parametrize(("mode", "user", "code"), [
    ("chatty", {"kind": "scripted", "messages": [RENT, "100", "yes", "no"], "max_turns": 3},
     "conversation-turn-limit"),
    ("chatty", {"kind": "scripted", "messages": [RENT], "max_turns": 5}, "user-stopped"),
    ("leaves", SCRIPT, "conversation-no-final-answer"),
])
def test_each_way_a_conversation_ends_without_an_answer(ledger_suite: Any, agent: Any,
                                                        tmp_path: Path, mode: str,
                                                        user: dict[str, Any], code: str) -> None:
    suite = _with_user(ledger_suite([{}]), user)
    _, public, private = _run(suite, CommandAdapter(agent(mode), 30.0), tmp_path)
    row, prow = public["results"][0], private["results"][0]
    assert row["failure_codes"][0] == code
    assert row["measured"] is True  # the agent's failure, measured
    assert prow["error"] == code and prow["response"] == {}
    agent_turns = [t for t in prow["conversation"]["turns"] if t["role"] == "agent"]
    assert agent_turns and not any(t.get("final") for t in agent_turns)
    if code == "conversation-turn-limit":
        assert len(agent_turns) == 3


class _Endpoint(BaseHTTPRequestHandler):
    """One POST per turn; remembers each conversation by its id."""

    seen: dict[str, list[int]] = {}

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        req = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        conv = req["conversation"]
        turns = self.seen.setdefault(conv["conversation_id"], [])
        turns.append(conv["turn"])
        if conv["turn"] == 1:
            body: dict[str, Any] = {"message_to_user": "How much is the rent?"}
        else:
            asyncio.run(_pay(req["mcp"], int(conv["user_message"])))
            body = {"outcome": "paid"}
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


async def _pay(mcp: dict[str, Any], amount: int) -> None:
    import httpx2
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": "Bearer " + mcp["bearer_token"]}
    async with httpx2.AsyncClient(headers=headers, timeout=20) as http, \
            streamable_http_client(mcp["url"], http_client=http) as (r, w), \
            ClientSession(r, w) as session:
        await session.initialize()
        await session.call_tool("transfer", {"source": "alice", "target": "landlord",
                                             "amount": amount})


@pytest.fixture
def endpoint() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Endpoint)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/evaluate"
    finally:
        server.shutdown()
        server.server_close()


def test_an_endpoint_agent_gets_the_same_conversation_id(ledger_suite: Any, endpoint: str,
                                                         tmp_path: Path) -> None:
    _Endpoint.seen.clear()
    suite = _with_user(ledger_suite([{}]), SCRIPT)
    _, public, private = _run(suite, EndpointAdapter(endpoint, 30.0), tmp_path)
    assert public["results"][0]["environment_passed"] is True
    assert list(_Endpoint.seen.values()) == [[1, 2]]  # one id, two POSTs
    assert [t["role"] for t in private["results"][0]["conversation"]["turns"]] == [
        "user", "agent", "user", "agent"]
