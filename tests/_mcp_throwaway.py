"""A throwaway MCP server for the example MCP agents' tests (imported by tests, not a conftest).

It is the official ``mcp`` SDK's low-level ``Server`` behind its streamable HTTP app, on uvicorn
in a thread on 127.0.0.1, with a bearer-token guard in front (HTTP 401 for a wrong or missing
token), serving one small tool world at ``/units/<key>/mcp``: a bank account with a balance, a
payee list and a transfer that checks the payee. It records every ``tools/call`` it receives, so
the tests compare what the agent did with what the server observed, the way ``aau evaluate``'s
own server does (spec §2 is all the agents may assume).
"""

from __future__ import annotations

import json
import secrets
import socket
import threading
import time
from typing import Any

TOOLS: list[dict[str, Any]] = [
    {"name": "get_balance", "description": "The account balance in EUR.",
     "input_schema": {"type": "object", "properties": {}}},
    {"name": "list_payees", "description": "The saved payees (name -> IBAN).",
     "input_schema": {"type": "object", "properties": {}}},
    {"name": "bank.send_money", "description": "Send EUR to a saved payee's IBAN.",
     "input_schema": {"type": "object",
                      "properties": {"iban": {"type": "string"}, "amount": {"type": "number"}},
                      "required": ["iban", "amount"]}},
]
PAYEES = {"Rosa": "DE001", "Imre": "HU002"}


class ThrowawayServer:
    """Start with ``with ThrowawayServer() as server:``; ``server.request(prompt)`` is a 1.1
    request for its one unit; ``server.calls`` holds ``(name, arguments)`` of every call.

    Args:
        json_response: answer POSTs with ``application/json`` instead of an SSE stream.
        max_calls: the budget the request announces (the server does not enforce it).
        tools, run: another tool world: ``[{"name", "description", "input_schema"}]`` and
            ``run(name, arguments) -> (ok, text)`` (raises ``KeyError`` for an unknown name);
            default the bank above.
    """

    def __init__(self, *, json_response: bool = False, max_calls: int = 50,
                 tools: list[dict[str, Any]] | None = None,
                 run: Any = None) -> None:
        self.json_response = json_response
        self.tools = TOOLS if tools is None else tools
        self.run = self._run if run is None else run
        self.max_calls = max_calls
        self.token = secrets.token_urlsafe(16)
        self.key = secrets.token_hex(4)
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.unauthorised = 0
        self.balance = 100.0
        self._server: Any = None
        self._thread: threading.Thread | None = None
        self.port = 0

    # -- the tool world ---------------------------------------------------------------------------

    def _run(self, name: str, arguments: dict[str, Any]) -> tuple[bool, str]:
        if name == "get_balance":
            return True, json.dumps({"balance": self.balance})
        if name == "list_payees":
            return True, json.dumps(PAYEES, sort_keys=True)
        if name == "bank.send_money":
            if arguments.get("iban") not in PAYEES.values():
                return False, f"unknown IBAN {arguments.get('iban')!r}"
            amount = arguments.get("amount")
            if not isinstance(amount, (int, float)) or amount <= 0 or amount > self.balance:
                return False, f"bad amount {amount!r}"
            self.balance -= amount
            return True, json.dumps({"sent": amount, "balance": self.balance})
        raise KeyError(name)

    def _app(self) -> Any:
        import mcp_types as types
        from mcp import MCPError
        from mcp.server.lowlevel import Server

        tools = [types.Tool(name=t["name"], description=t["description"],
                            input_schema=t["input_schema"]) for t in self.tools]

        async def list_tools(ctx: Any, params: Any) -> Any:
            return types.ListToolsResult(tools=tools)

        async def call_tool(ctx: Any, params: Any) -> Any:
            arguments = dict(params.arguments or {})
            self.calls.append((params.name, arguments))
            try:
                ok, text = self.run(params.name, arguments)
            except KeyError:
                raise MCPError(-32602, f"unknown tool {params.name!r}") from None
            return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                        is_error=not ok)

        server = Server("throwaway-bank", on_list_tools=list_tools, on_call_tool=call_tool)
        inner = server.streamable_http_app(streamable_http_path=f"/units/{self.key}/mcp",
                                           json_response=self.json_response)
        wanted = f"Bearer {self.token}".encode()

        async def guarded(scope: dict, receive: Any, send: Any) -> None:
            if scope["type"] == "http" and dict(scope["headers"]).get(b"authorization") != wanted:
                self.unauthorised += 1
                await send({"type": "http.response.start", "status": 401,
                            "headers": [(b"content-type", b"application/json")]})
                await send({"type": "http.response.body", "body": b'{"error": "wrong token"}'})
                return
            await inner(scope, receive, send)

        return guarded

    # -- lifecycle --------------------------------------------------------------------------------

    def __enter__(self) -> ThrowawayServer:
        import uvicorn

        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        config = uvicorn.Config(self._app(), host="127.0.0.1", port=self.port,
                                log_level="warning", lifespan="on")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 20
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the throwaway MCP server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(10)

    @property
    def url(self) -> str:
        """The unit's MCP URL."""
        return f"http://127.0.0.1:{self.port}/units/{self.key}/mcp"

    def request(self, prompt: str, *, token: str | None = None,
                scenario_id: str = "t-1") -> dict[str, Any]:
        """A protocol 1.1 request for this unit (``token`` overrides the right one)."""
        return {"protocol_version": "aau-byo-agent-request/1.1", "suite_id": "throwaway",
                "scenario_id": scenario_id,
                "input": {"messages": [{"role": "system", "content": "You are a bank assistant."},
                                       {"role": "user", "content": prompt}]},
                "mcp": {"url": self.url, "transport": "streamable-http",
                        "bearer_token": self.token if token is None else token,
                        "max_calls": self.max_calls}}
