"""An agent on a mainstream framework, the OpenAI Agents SDK, calls aau's MCP tool server with
its own MCP client (``MCPServerStreamableHttp`` with a bearer header); the model is a fake
OpenAI-compatible chat-completions server scripted here. aau records what the agent did."""

from __future__ import annotations

import http.server
import json
import threading

import pytest
from aau_adapters import tool_server

agents = pytest.importorskip("agents", reason="openai-agents is a dev dependency of the workspace")

# the model's turns, chosen by how many tool results the request already carries
SCRIPT = [
    [("deposit", {"amount": 5, "memo": "salary"})],
    [("withdraw", {"amount": 9})],
    [("deposit", {"amount": 0}), ("balance", {})],
]
FINAL = "Done: the balance is 5."


class _FakeChatModel(http.server.ThreadingHTTPServer):
    """POST /v1/chat/completions: the next turn of SCRIPT as tool calls, then FINAL."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _ChatHandler)
        self.requests: list[dict] = []


class _ChatHandler(http.server.BaseHTTPRequestHandler):
    server: _FakeChatModel

    def log_message(self, *args) -> None:  # quiet
        pass

    def do_POST(self) -> None:  # noqa: N802 - the http.server API
        request = json.loads(self.rfile.read(int(self.headers["content-length"])))
        self.server.requests.append(request)
        turn = sum(1 for message in request["messages"] if message["role"] == "assistant")
        if turn < len(SCRIPT):
            calls = [{"id": f"call_{turn}_{k}", "type": "function",
                      "function": {"name": name, "arguments": json.dumps(arguments)}}
                     for k, (name, arguments) in enumerate(SCRIPT[turn])]
            message = {"role": "assistant", "content": None, "tool_calls": calls}
            finish = "tool_calls"
        else:
            message, finish = {"role": "assistant", "content": FINAL}, "stop"
        body = json.dumps({
            "id": f"chatcmpl-{turn}", "object": "chat.completion", "created": 0,
            "model": request["model"],
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        }).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def fake_model():
    server = _FakeChatModel()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def test_an_openai_agents_sdk_agent_is_observed_by_aau(mcp_kit, fake_model, monkeypatch):
    from agents import Agent, OpenAIChatCompletionsModel, Runner, set_tracing_disabled
    from agents.mcp import MCPServerStreamableHttp
    from openai import AsyncOpenAI

    monkeypatch.setenv("OPENAI_API_KEY", "test")
    set_tracing_disabled(True)
    ledger = mcp_kit.Ledger()
    unit = tool_server().open_unit(ledger, max_calls=10, label="agents-sdk#0")

    async def run_agent() -> str:
        client = AsyncOpenAI(base_url=f"http://127.0.0.1:{fake_model.server_address[1]}/v1",
                             api_key="test")
        async with MCPServerStreamableHttp(
                params={"url": unit.url, "headers": {"Authorization": f"Bearer {unit.token}"}},
                name="aau-ledger", client_session_timeout_seconds=30) as mcp_server:
            agent = Agent(name="clerk", instructions="Keep the ledger.",
                          model=OpenAIChatCompletionsModel(model="fake-model",
                                                           openai_client=client),
                          mcp_servers=[mcp_server])
            result = await Runner.run(agent, "Deposit my salary.", max_turns=6)
            return result.final_output

    final = mcp_kit.run(run_agent)
    record = unit.close()

    assert final == FINAL
    assert [(c.name, c.arguments, c.ok, c.code) for c in record.calls] == [
        ("deposit", {"amount": 5, "memo": "salary"}, True, None),
        ("withdraw", {"amount": 9}, False, "tool-error"),
        ("deposit", {"amount": 0}, False, "mcp-invalid-arguments"),
        ("balance", {}, True, None),
    ]
    assert record.rejected == ()
    assert ledger.balance == 5
    # the model saw aau's tools, and the results aau answered
    offered = {tool["function"]["name"] for tool in fake_model.requests[0]["tools"]}
    assert offered == {"deposit", "withdraw", "balance", "audit"}
    tool_results = [str(message["content"]) for message in fake_model.requests[-1]["messages"]
                    if message["role"] == "tool"]
    assert "balance 5" in tool_results[0]
    assert "insufficient funds: balance 5" in tool_results[1]
    assert "$.amount: 0 is less than the minimum of 1" in tool_results[2]
