"""A bring-your-own agent that acts through MCP: the tools of an ``aau evaluate`` environment case.

For a case that names an environment, ``aau evaluate`` sends a request of protocol 1.1::

    {"protocol_version": "aau-byo-agent-request/1.1", "suite_id": "...", "scenario_id": "...",
     "input": {"messages": [{"role": "system", "content": "..."},
                            {"role": "user", "content": "..."}]},
     "mcp": {"url": "http://127.0.0.1:PORT/units/UNITKEY/mcp", "transport": "streamable-http",
             "bearer_token": "TOKEN", "max_calls": 50}}

This agent connects to ``mcp.url`` with the official ``mcp`` client (streamable HTTP, header
``Authorization: Bearer TOKEN``), lists the unit's tools, and runs aau's tool-using loop
(``aau_core.run_tool_agent``) on one of aau's model backends (``aau_core.make_backend``): every
tool call the model makes goes to the MCP server (``call_tool``), its result text back to the
model. When the model answers without a tool call, that text is the answer::

    {"outcome": "<the model's final text>"}

aau records every call on its side and scores from that record; this agent reports nothing
else unless ``--self-report`` asks it to add ``actions_executed`` and ``tool_calls`` (the calls
the server answered without an error, in order), which aau uses only to measure report fidelity.

The model sees the case's system messages and AgentDojo-style instructions as its system prompt,
the user messages as its first turn, and the tools with names encoded for the model APIs
(``aau_adapters.tool_name_map``: ``a.b`` -> ``a_b``) and decoded back before each call. The agent
never sends more than ``mcp.max_calls`` calls: past the budget the model is told so, nothing is
sent. A tool error (``isError``) or a JSON-RPC error of one call (an unknown tool) goes back to
the model as ``Error: ...`` text and the loop goes on.

Backends: ``--backend`` names any kind of ``aau_core.make_backend`` (``local`` with
``--base-url`` and ``--model``, ``anthropic``, ``openai``, ``groq``, ...; keys from the
environment) or ``mock``: a scripted backend, no network, for tests and dry runs. The mock calls
the tools named in ``--mock-calls`` (a JSON list of ``{"name", "arguments"}``, or ``@FILE``), or
by default every listed tool whose schema requires no argument, once each, in listing order; then
it answers ``--mock-answer`` (default: the last tool result's text).

Two ways to run it:

    # command adapter: one request on stdin, one answer on stdout
    aau evaluate suite.json --command "python examples/agents/mcp_agent.py --backend mock"

    # endpoint: POST /evaluate (the HTTP handling of http_agent.py)
    python examples/agents/mcp_agent.py --backend mock --serve 8765
    # listening on http://127.0.0.1:8765/evaluate
    aau evaluate suite.json --endpoint http://127.0.0.1:8765/evaluate

Exit codes (command mode): 0 answered (or the user ended the conversation); 2 a request this
agent does not read (not JSON, not protocol 1.1 or 1.2 with an ``mcp`` object, no task text) or a
bad option; 3 the MCP server or the model server failed (refused the token, unreachable, the session broke, the provider errored). Every
message goes to stderr, one line; stdout holds only the answer. In ``--serve`` mode the same
cases answer HTTP 400 and 502 (``{"error": "..."}``).

Needs aau-core and aau-adapters (and the ``mcp`` SDK they bring); a hosted backend needs its
extra (``pip install 'aau-core[openai]'`` or ``'aau-core[anthropic]'``).

A case with a simulated user sends request 1.2, one request per turn (``docs/environments.md``).
In command mode the process stays alive for the conversation: the model is offered an
``ask_user`` tool beside the MCP tools; each call to it writes ``{"message_to_user": MESSAGE}``
on stdout and reads the next request line, whose ``conversation.user_message`` is the call's
result. stdin closed instead (the user stopped) is exit 0 without an answer. ``--serve``
answers the first turn with the final answer (it keeps no conversation state between POSTs).

``--mcp-mode``: ``auto`` (default) lets the SDK probe ``server/discover`` (MCP 2026-07-28) and
fall back to the ``initialize`` handshake; ``legacy`` sends the handshake only (for a server
that knows only MCP 2025-11-25 and earlier).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any

PROTOCOL_1_1 = "aau-byo-agent-request/1.1"
"""The request protocol of environment cases."""
PROTOCOL_1_2 = "aau-byo-agent-request/1.2"
"""The request protocol of conversation turns (cases with a simulated user): the user's opening
message is the task; in command mode the model may ask the user (the ``ask_user`` tool), over
``--serve`` it answers the first turn with its final answer."""
ASK_USER = "ask_user"
"""The tool a conversing model calls to write to the user; its result is the user's reply."""
ASK_USER_TOOL = {
    "name": ASK_USER,
    "description": "Send a message to the user (a question, or what you need from them) and "
                   "wait for their reply, which is this tool's result. Use it only when the task "
                   "needs something the user has not told you.",
    "input_schema": {"type": "object", "properties": {"message": {"type": "string"}},
                     "required": ["message"]},
}
"""``ASK_USER``'s declaration, shown to the model beside the MCP tools on a 1.2 request."""
DEFAULT_MAX_TURNS = 20
"""Most model calls per request (``--max-turns``)."""
INSTRUCTIONS = (
    "You are an assistant that completes the user's task with the tools you are given. Call "
    "tools to look things up and to act; do not guess values a tool can tell you. When the task "
    "is done, answer the user in plain text without calling a tool."
)
"""The system prompt's fixed part, after the case's own system messages."""
_NO_SUBMIT = "\x00no-submit-tool"  # the agent ends by answering in text: no tool has this name


class RequestError(ValueError):
    """The request is not one this agent reads (exit 2, HTTP 400)."""


class ServiceError(RuntimeError):
    """The MCP server or the model server failed (exit 3, HTTP 502)."""


class UserStopped(Exception):
    """aau closed stdin instead of sending the user's reply: the user ended the conversation
    (exit 0 with no answer; aau records the unit's ``user-stopped``)."""


# ---------------------------------------------------------------------------------- the request


def read_request(request: Any) -> tuple[dict[str, Any], str, str]:
    """The MCP target and the task of a 1.1 request.

    Args:
        request: the decoded request object.

    Returns:
        ``(mcp, system, user)``: ``mcp`` the request's ``mcp`` object (``url``,
        ``bearer_token``, ``max_calls``), ``system`` the case's system messages joined (may be
        ``""``), ``user`` the user messages joined (the model's first turn).

    Raises:
        RequestError: not a JSON object, not protocol 1.1 or 1.2, no usable ``mcp`` object, or no user
            text in ``input`` (``messages``, or a ``question``/``prompt`` string).
    """
    if not isinstance(request, dict):
        raise RequestError("the request must be a JSON object")
    version = request.get("protocol_version")
    if version not in (PROTOCOL_1_1, PROTOCOL_1_2):
        raise RequestError(f"protocol_version {version!r}: this agent reads {PROTOCOL_1_1!r} "
                           f"and {PROTOCOL_1_2!r} requests (cases that name an environment)")
    mcp = request.get("mcp")
    if not isinstance(mcp, dict):
        raise RequestError("$.mcp must be an object")
    url, token, budget = mcp.get("url"), mcp.get("bearer_token"), mcp.get("max_calls", 50)
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise RequestError("$.mcp.url must be an http(s) URL")
    if not isinstance(token, str) or not token:
        raise RequestError("$.mcp.bearer_token must be a non-empty string")
    if mcp.get("transport", "streamable-http") != "streamable-http":
        raise RequestError(f"$.mcp.transport {mcp.get('transport')!r}: only streamable-http")
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise RequestError("$.mcp.max_calls must be an integer >= 1")
    case_input = request.get("input")
    if not isinstance(case_input, dict):
        raise RequestError("$.input must be an object")
    messages = case_input.get("messages")
    if messages is None:
        text = case_input.get("question", case_input.get("prompt"))
        messages = [{"role": "user", "content": text}] if isinstance(text, str) else []
    if not isinstance(messages, list):
        raise RequestError("$.input.messages must be a list")
    system, user = [], []
    for i, message in enumerate(messages):
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, str):
            raise RequestError(f"$.input.messages[{i}] must be {{role, content: string}}")
        (system if message.get("role") == "system" else user).append(content)
    turn = request.get("conversation") if version == PROTOCOL_1_2 else None
    if isinstance(turn, dict) and isinstance(turn.get("user_message"), str):
        user.append(turn["user_message"])  # the simulated user's message of this turn
    if not any(text.strip() for text in user):
        raise RequestError("$.input has no user message (messages, question or prompt)")
    return ({"url": url, "bearer_token": token, "max_calls": budget},
            "\n\n".join(system), "\n\n".join(user))


# ---------------------------------------------------------------------------------- MCP


def _one_line(error: BaseException) -> str:
    """``Type: message`` of the first leaf of ``error`` (anyio wraps errors in groups)."""
    while getattr(error, "exceptions", None):  # an exception group (3.11+, or anyio's backport)
        error = error.exceptions[0]  # type: ignore[attr-defined]
    text = " ".join(str(error).split()) or repr(error)
    return f"{type(error).__name__}: {text}"


def result_text(result: Any) -> str:
    """The text of an MCP ``CallToolResult``: its text blocks joined by newlines, else its
    structured content as JSON, else ``""``."""
    texts = [getattr(block, "text", "") for block in (result.content or [])
             if getattr(block, "type", None) == "text"]
    if texts:
        return "\n".join(texts)
    if result.structured_content is not None:
        return json.dumps(result.structured_content, sort_keys=True)
    return ""


class McpTools:
    """One unit's MCP session: the tools it lists and a budgeted ``call``.

    Attributes:
        tools: the listed tools, ``{"name", "description", "input_schema"}`` in listing order.
        calls: every call sent, ``{"name", "arguments", "ok", "text"}`` in order (``ok`` false
            for an ``isError`` result or a JSON-RPC error).
        max_calls: the request's ``mcp.max_calls``; ``call`` sends nothing past it.
        protocol_version: the MCP version the connection negotiated (``"2025-11-25"``).
    """

    def __init__(self, client: Any, tools: list[dict[str, Any]], max_calls: int) -> None:
        self._client = client
        self.protocol_version = str(client.protocol_version)
        self.tools = tools
        self.calls: list[dict[str, Any]] = []
        self.max_calls = max_calls

    async def call(self, name: str, arguments: dict[str, Any]) -> tuple[bool, str]:
        """Send one ``tools/call``; returns ``(ok, text)``.

        An ``isError`` result is ``(False, its text)``; a JSON-RPC error answering the call
        (unknown tool) is ``(False, "Error: ...")``; past the budget nothing is sent and the
        answer is ``(False, "Error: call budget ...")``.

        Raises:
            ServiceError: the connection failed (the session cannot go on).
        """
        from mcp import MCPError

        if len(self.calls) >= self.max_calls:
            return False, f"Error: call budget of {self.max_calls} used up; answer now"
        try:
            result = await self._client.call_tool(name, arguments)
        except MCPError as error:
            ok, text = False, f"Error: {error.message}"
        except Exception as error:  # transport failures: this unit cannot go on
            raise ServiceError(f"MCP call {name!r} failed: {_one_line(error)}") from None
        else:
            ok, text = not result.is_error, result_text(result)
            if not ok and not text.startswith("Error"):
                text = f"Error: {text}"
        self.calls.append({"name": name, "arguments": arguments, "ok": ok, "text": text})
        return ok, text


@asynccontextmanager
async def mcp_session(mcp: dict[str, Any], mode: str = "auto") -> AsyncIterator[McpTools]:
    """Connect to ``mcp["url"]`` with the bearer token and list the tools (every page).

    Args:
        mcp: ``read_request``'s ``mcp`` object.
        mode: the SDK's ``Client(mode=...)``: ``"auto"`` (probe ``server/discover``, fall back
            to the ``initialize`` handshake) or ``"legacy"`` (the handshake only).

    Yields:
        the connected ``McpTools``; the session is closed (``DELETE``) on exit.

    Raises:
        ServiceError: the server refused the connection (a wrong token: HTTP 401; an ended
            unit: 404) or could not be reached, or listing the tools failed.
    """
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {mcp['bearer_token']}"}
    timeout = httpx2.Timeout(30.0, read=300.0)
    refused: list[str] = []  # the HTTP status of each refused exchange (the SDK hides it)

    async def note_status(response: Any) -> None:
        if response.status_code >= 400:
            refused.append(f"HTTP {response.status_code} to {response.request.method}")

    entered = False
    try:
        async with httpx2.AsyncClient(headers=headers, timeout=timeout,
                                      event_hooks={"response": [note_status]}) as http:
            transport = streamable_http_client(mcp["url"], http_client=http)
            async with Client(transport, mode=mode, cache=None) as client:
                tools: list[dict[str, Any]] = []
                cursor = None
                while True:
                    page = await client.list_tools(cursor=cursor)
                    tools += [{"name": t.name, "description": t.description or "",
                               "input_schema": dict(t.input_schema)} for t in page.tools]
                    cursor = page.next_cursor
                    if not cursor:
                        break
                entered = True
                yield McpTools(client, tools, mcp["max_calls"])
    except ServiceError:
        raise
    except Exception as error:
        where = "during the session" if entered else "connecting"
        status = f" ({', '.join(dict.fromkeys(refused))})" if refused else ""
        raise ServiceError(f"MCP server {mcp['url']} failed {where}: {_one_line(error)}"
                           f"{status}") from None


# ---------------------------------------------------------------------------------- the model


def _required(schema: Any) -> list[Any]:
    required = schema.get("required") if isinstance(schema, dict) else None
    return list(required) if isinstance(required, list) else []


class ScriptedBackend:
    """The ``--backend mock`` model: scripted tool calls, then a text answer; no network.

    Args:
        calls: ``[{"name", "arguments"}]`` to make, one per turn, with the tools' real names;
            ``None``: every offered tool whose ``input_schema`` requires nothing, with ``{}``.
        answer: the final text; ``None``: the last tool result's text (``"done"`` if none).

    Stateless across conversations (the turn is the number of assistant messages so far), so one
    instance serves concurrent requests. Usage is 0 tokens per turn (a mock costs nothing).
    """

    name = "mock"
    model = "mock"

    def __init__(self, calls: Sequence[dict[str, Any]] | None = None,
                 answer: str | None = None) -> None:
        self._calls = None if calls is None else [dict(c) for c in calls]
        self._answer = answer

    def create(self, system: str, messages: list[dict[str, Any]],
               tools: list[dict[str, Any]]) -> Any:
        """The next scripted turn: one ``tool_use`` block, or the text answer."""
        from aau_adapters import encode_tool_name
        from aau_core import Block, MockUsage

        turn = sum(1 for m in messages if m["role"] == "assistant")
        if self._calls is None:
            script = [{"name": t["name"], "arguments": {}} for t in tools
                      if not _required(t.get("input_schema"))]
        else:  # the script names real tools; the model side sees them encoded
            script = [{"name": encode_tool_name(c["name"]), "arguments": c.get("arguments", {})}
                      for c in self._calls]
        usage = MockUsage(input_tokens=0, output_tokens=0)
        if turn < len(script):
            call = script[turn]
            return Block(content=[Block(type="tool_use", id=f"mock{turn}", name=call["name"],
                                        input=json.loads(json.dumps(call["arguments"])))],
                         stop_reason="tool_use", usage=usage)
        answer = self._answer
        if answer is None:
            answer = "done"
            for block in reversed(messages[-1]["content"] if turn else []):
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    answer = str(block.get("content", ""))
                    break
        return Block(content=[Block(type="text", text=answer)], stop_reason="end_turn",
                     usage=usage)


class _Recorder:
    """Wraps a backend: serialises its calls (one backend, many server threads) and keeps the
    latest reply's text (the answer)."""

    def __init__(self, backend: Any, lock: threading.Lock) -> None:
        self._backend = backend
        self._lock = lock
        self.text = ""

    def create(self, system: str, messages: list[dict[str, Any]],
               tools: list[dict[str, Any]]) -> Any:
        with self._lock:
            response = self._backend.create(system, messages, tools)
        blocks = getattr(response, "content", None) or []
        self.text = "\n".join(str(getattr(b, "text", "") or "") for b in blocks
                              if getattr(b, "type", None) == "text").strip()
        return response


def _model_tools(tools: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The tools as the model sees them (names encoded) and ``{encoded: real}``."""
    from aau_adapters import encode_tool_name, tool_name_map

    try:
        names = tool_name_map(t["name"] for t in tools)
    except ValueError as error:
        raise ServiceError(f"the MCP server's tools cannot be shown to a model: {error}") from None
    shown = [{"name": encode_tool_name(t["name"]), "description": t["description"],
              "input_schema": t["input_schema"] or {"type": "object", "properties": {}}}
             for t in tools]
    return shown, names


class Agent:
    """The model side: one backend (built once) answering requests.

    Args:
        backend: anything with ``create(system, messages, tools)`` (``make_backend``).
        kind: its ``make_backend`` kind (for the price of its tokens).
        max_turns: most model calls per request.
        self_report: add ``actions_executed`` and ``tool_calls`` to answers.
        mcp_mode: ``mcp_session``'s ``mode``.
    """

    def __init__(self, backend: Any, kind: str, *, max_turns: int = DEFAULT_MAX_TURNS,
                 self_report: bool = False, mcp_mode: str = "auto") -> None:
        from aau_core._agents._cost import cost_model_for  # internal to the monorepo

        self.backend = backend
        self.cost_model = cost_model_for(backend, kind)
        self.max_turns = max_turns
        self.self_report = self_report
        self.mcp_mode = mcp_mode
        self._lock = threading.Lock()

    def answer(self, request: Any, log: Callable[[str], None],
               ask: Callable[[str], str] | None = None) -> dict[str, Any]:
        """Answer one request (module docstring); ``log`` gets one-line notes.

        Args:
            request: the decoded request (1.1, or the first turn of a 1.2 conversation).
            log: gets one-line notes.
            ask: on a 1.2 request, writes a message to the user and returns the user's reply
                (``stdin_asker``); the model is then offered the ``ask_user`` tool. ``None``:
                no asking (``--serve``, 1.1).

        Raises:
            RequestError: the request is not understood.
            ServiceError: the MCP server or the model server failed.
            UserStopped: ``ask`` found the conversation ended.
        """
        import anyio

        mcp, system, user = read_request(request)
        if request.get("protocol_version") != PROTOCOL_1_2:
            ask = None
        return anyio.run(self._answer, mcp, system, user, log, ask)

    async def _answer(self, mcp: dict[str, Any], system: str, user: str,
                      log: Callable[[str], None],
                      ask: Callable[[str], str] | None) -> dict[str, Any]:
        import anyio
        import anyio.from_thread
        import anyio.to_thread
        from aau_core import AauError, CostTracker, run_tool_agent

        held: Exception | None = None  # raised by ``ask``, re-raised after the session closes
        async with mcp_session(mcp, self.mcp_mode) as session:
            shown, names = _model_tools(session.tools)
            if ask is not None:
                if ASK_USER in names:
                    raise ServiceError(f"the MCP server lists a tool named {ASK_USER!r}, the "
                                       "name this agent gives its own tool for the user")
                shown.append(ASK_USER_TOOL)
            asked = 0

            def execute(name: str, arguments: Any) -> str:
                nonlocal asked
                if not isinstance(arguments, dict):
                    return "Error: the arguments must be a JSON object"
                if ask is not None and name == ASK_USER:
                    message = arguments.get("message")
                    if not isinstance(message, str) or not message.strip():
                        return "Error: ask_user needs a non-empty 'message' string"
                    asked += 1
                    return ask(message)
                real = names.get(name, name)  # an invented name goes as it is: aau records it
                return anyio.from_thread.run(session.call, real, arguments)[1]

            recorder = _Recorder(self.backend, self._lock)
            cost = CostTracker(model=self.cost_model)
            prompt = "\n\n".join(p for p in (system, INSTRUCTIONS) if p)
            try:
                run = await anyio.to_thread.run_sync(
                    lambda: run_tool_agent(recorder, prompt, shown, user, execute, _NO_SUBMIT,
                                           cost, max_turns=self.max_turns))
            except AauError as error:  # ProviderError and the backends' configuration errors
                raise ServiceError(f"model server failed: {error}") from None
            except (UserStopped, RequestError) as error:  # here: the SDK's task groups wrap errors
                held = error
            made = [c for c in session.calls if c["ok"]]
            if held is not None:
                why = ("the user ended the conversation" if isinstance(held, UserStopped)
                       else f"the next turn was not understood: {held}")
                log(f"{why} after {asked} messages to the user; "
                    f"{len(session.calls)} MCP calls ({len(made)} ok)")
            else:
                talked = f"{asked} messages to the user, " if ask is not None else ""
                log(f"{len(session.calls)} MCP calls ({len(made)} ok), {run.n_turns} model turns, "
                    f"{talked}{cost.input_tokens}+{cost.output_tokens} tokens"
                    + (f"; {run.error}" if run.error and not recorder.text else "")
                    + ("; the model refused" if run.refused else "")
                    + f" (MCP {session.protocol_version})")
        if held is not None:
            raise held
        # an environment case may be answered without an outcome; an empty one is invalid
        response: dict[str, Any] = {"outcome": recorder.text} if recorder.text else {}
        if self.self_report:
            response["actions_executed"] = [c["name"] for c in made]
            response["tool_calls"] = [{"name": c["name"], "arguments": c["arguments"]}
                                      for c in made]
        return response


# ---------------------------------------------------------------------------------- running


def _mock_calls(text: str | None) -> list[dict[str, Any]] | None:
    if text is None:
        return None
    if text.startswith("@"):
        with open(text[1:], encoding="utf-8") as handle:
            text = handle.read()
    calls = json.loads(text)
    if not isinstance(calls, list) or not all(
            isinstance(c, dict) and isinstance(c.get("name"), str)
            and isinstance(c.get("arguments", {}), dict) for c in calls):
        raise ValueError('--mock-calls must be a JSON list of {"name", "arguments"}')
    return calls


def build_agent(args: argparse.Namespace) -> Agent:
    """The ``Agent`` the options name.

    Raises:
        ValueError: bad ``--mock-calls``; aau_core's backend errors (unknown kind, no key,
            missing extra, no model).
    """
    from aau_core import make_backend

    calls = _mock_calls(args.mock_calls)
    backend = make_backend(args.backend, args.model, base_url=args.base_url,
                           max_tokens=args.max_tokens, mock_factory=lambda: ScriptedBackend(calls, args.mock_answer))
    return Agent(backend, args.backend, max_turns=args.max_turns, self_report=args.self_report,
                 mcp_mode=args.mcp_mode)


def add_options(parser: argparse.ArgumentParser) -> None:
    """The options of ``mcp_agent.py`` (the replay agent adds ``--suite`` to the shared ones)."""
    parser.add_argument("--serve", type=int, metavar="PORT", default=None,
                        help="answer POST /evaluate on 127.0.0.1:PORT (0: a free port) instead "
                             "of one request on stdin")
    parser.add_argument("--host", default="127.0.0.1", help="--serve's address (127.0.0.1)")
    parser.add_argument("--mcp-mode", choices=("auto", "legacy"), default="auto",
                        help="auto (default): probe server/discover (MCP 2026-07-28), else the "
                             "initialize handshake; legacy: the handshake only")


def serve_answers(name: str, host: str, port: int,
                  answer: Callable[[Any, Callable[[str], None]], dict[str, Any]]) -> int:
    """Serve ``answer(request, log)`` at ``POST /evaluate`` with ``http_agent.py``'s HTTP
    handling: 400 for ``RequestError`` or a body that is not JSON, 502 for ``ServiceError``.
    Prints ``listening on http://HOST:PORT/evaluate``; returns 0 on SIGTERM / Ctrl-C, 2 when the
    port cannot be bound."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from http_agent import AgentHandler, AgentServer, serve

    class Handler(AgentHandler):
        server_version = f"aau-example-{name}/1.0"

        def answer(self, body: bytes) -> None:
            from aau_core import InputError, loads_strict

            try:
                request = loads_strict(body, source="request")
                scenario = request.get("scenario_id") if isinstance(request, dict) else None
                response = answer(request, lambda line: print(f"{name}: {scenario}: {line}",
                                                              file=sys.stderr, flush=True))
            except (RequestError, InputError, ValueError) as error:
                self._error(400, f"bad request: {error}")
                return
            except ServiceError as error:
                self._error(502, str(error))
                return
            self._send_json(200, response)

    try:
        server = AgentServer((host, port), 0.0)
    except OSError as error:
        print(f"{name}: cannot listen on {host}:{port}: {error}", file=sys.stderr)
        return 2
    server.RequestHandlerClass = Handler
    return serve(server)


def stdin_asker() -> Callable[[str], str]:
    """The ``ask`` of a command-mode conversation (request 1.2's command contract): write
    ``{"message_to_user": MESSAGE}`` as one line on stdout, read the next request line on
    stdin and return its ``conversation.user_message``.

    Raises (from the returned callable):
        UserStopped: stdin closed (aau ended the conversation: the user stopped).
        RequestError: the next line is not a 1.2 request with a ``user_message`` string.
    """
    from aau_core import InputError, loads_strict

    def ask(message: str) -> str:
        sys.stdout.write(json.dumps({"message_to_user": message}) + "\n")
        sys.stdout.flush()
        line = sys.stdin.readline()
        if not line:
            raise UserStopped
        try:
            request = loads_strict(line, source="request")
        except InputError as error:
            raise RequestError(str(error)) from None
        turn = request.get("conversation") if isinstance(request, dict) else None
        reply = turn.get("user_message") if isinstance(turn, dict) else None
        if not isinstance(reply, str):
            raise RequestError("the next turn's $.conversation.user_message must be a string")
        return reply

    return ask


def answer_stdin(name: str, answer: Callable[..., dict[str, Any]],
                 converse: bool = False) -> int:
    """Read one request line on stdin, write ``answer(request, log)`` as one JSON line on stdout;
    notes and errors on stderr. With ``converse``, ``answer`` also gets ``ask=stdin_asker()``
    and may write messages to the user (more lines) before its answer; a conversation the user
    ended is exit 0 with no answer. Returns the exit code (module docstring)."""
    from aau_core import InputError, loads_strict

    def log(line: str) -> None:
        print(f"{name}: {line}", file=sys.stderr, flush=True)

    extra = {"ask": stdin_asker()} if converse else {}
    try:
        response = answer(loads_strict(sys.stdin.readline(), source="request"), log, **extra)
    except (RequestError, InputError, ValueError) as error:
        log(f"bad request: {error}")
        return 2
    except ServiceError as error:
        log(str(error))
        return 3
    except UserStopped:
        return 0
    sys.stdout.write(json.dumps(response) + "\n")
    sys.stdout.flush()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="MCP agent for `aau evaluate` environment cases: one 1.1 request on stdin "
                    "(or --serve PORT), the unit's tools over MCP, aau's agent loop.")
    parser.add_argument("--backend", default="mock",
                        help="a make_backend kind: mock (default, scripted, offline), local, "
                             "anthropic, openai, groq, ...")
    parser.add_argument("--model", default=None, help="the model id (the backend's default)")
    parser.add_argument("--base-url", default=None, help="the API root (local: required, or "
                                                         "$AAU_LOCAL_BASE_URL)")
    parser.add_argument("--max-turns", type=int, default=DEFAULT_MAX_TURNS,
                        help=f"most model calls per request (default {DEFAULT_MAX_TURNS})")
    parser.add_argument("--max-tokens", type=int, default=None,
                        help="most output tokens per model call (default: the backend's; a "
                             "small local model may otherwise repeat itself until its context "
                             "is full)")
    parser.add_argument("--self-report", action="store_true",
                        help="also answer actions_executed and tool_calls (report fidelity)")
    parser.add_argument("--mock-calls", default=None, metavar="JSON|@FILE",
                        help='mock: the calls to make, [{"name", "arguments"}]')
    parser.add_argument("--mock-answer", default=None, help="mock: the final answer text")
    add_options(parser)
    args = parser.parse_args(argv)
    if args.max_turns < 1:
        parser.error("--max-turns must be >= 1")
    from aau_core import AauError

    try:
        agent = build_agent(args)
    except (AauError, ValueError, OSError) as error:
        print(f"mcp_agent: {error}", file=sys.stderr)
        return 2
    if args.serve is not None:
        return serve_answers("mcp_agent", args.host, args.serve, agent.answer)
    return answer_stdin("mcp_agent", agent.answer, converse=True)


if __name__ == "__main__":
    sys.exit(main())
