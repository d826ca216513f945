"""A real LLM agent for tool-call suites: one request on stdin, one response on stdout.

It shows a chat model the case's tools, asks it once, reads the tool calls out of its reply
strictly (``aau_core.parse_tool_call_reply``) and answers ``aau evaluate`` with the four response fields plus
``tool_calls``. It works against any OpenAI-compatible server (llama.cpp's ``llama_cpp.server``
and ``llama-server``, vLLM, Ollama, a hosted provider) through aau's backend layer
(``aau_core.make_backend("local", model=..., base_url=..., text_tool_calls="off")``:
``temperature: 0``, retries on 429/5xx and connection failures, transport errors named so the
guards recognise them; the backend leaves the text alone so that this agent reads it itself and
can say why a reply has no call).

Input (``request["input"]``, as ``aau import bfcl`` and ``aau import tau2`` write it):

- ``tools``: OpenAI-style function tools (``{"type": "function", "function": {...}}``) or bare
  function objects; names are encoded for the model API (``math.factorial`` ->
  ``math_factorial``, ``aau_adapters.encode_tools``) and the model's calls decoded back.
- ``messages``: the conversation (``[{"role": "user", "content": "..."}, ...]``); ``system``
  messages in it join the system prompt. A plain ``question`` / ``prompt`` string also works.
- ``system`` or ``policy`` (optional): text placed before the default instructions.

Output (one JSON object and a newline on stdout)::

    {"outcome": "called_tools", "actions_attempted": ["math.factorial"], "actions_executed": [],
     "submitted": true, "tool_calls": [{"name": "math.factorial", "arguments": {"number": 5}}]}

``outcome`` says what the reply was: ``called_tools``, ``no_tool_call`` (the model answered in
words; right for BFCL's irrelevance cases) or ``malformed_tool_call`` (call markup that could not
be read; no call is taken). ``actions_attempted`` lists the called names; nothing is executed
(``actions_executed`` is empty: the agent answers in one turn and runs no tool). The parser's note
(why there is no call) goes to stderr, which ``aau evaluate`` keeps in the private receipt.

Every JSON the model writes is read by aau's one strict decoder (docs/backends.md, "Decoding what
models send"): arguments with ``NaN``, an infinity or a duplicate key
(``{"city": "Paris", "city": "Rome"}``) are refused, so the reply is ``malformed_tool_call`` with the
reason on stderr; arguments followed by stray ``"`` are recovered, and stderr says so
(``call 1 (get_weather): recovered: dropped stray '""' after the object``).

Exit codes: 0 answered; 2 the request was not understood (not strict JSON, nested deeper than
``aau_core.loads_strict`` allows, or not a request this agent reads; message on stderr); 3 the
model server failed (transport error on stderr, e.g. ``ConnectionError talking to local ...``,
a refused connection at once, or ``invalid response from local: ...`` for a reply that is not a
chat completion: not JSON, no ``choices``, wrong types).

Usage::

    aau evaluate suite.json --timeout 300 \\
        --command "python examples/agents/llm_agent.py --base-url http://127.0.0.1:8080/v1 \\
                   --model qwen2.5-coder-0.5b-instruct"

``--base-url`` and ``--model`` default to ``AAU_LOCAL_BASE_URL`` and ``AAU_LOCAL_MODEL``.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from aau_core import ParsedReply, parse_tool_call_reply

DEFAULT_INSTRUCTIONS = (
    "You are a function-calling assistant. When the user's request can be done with the "
    "functions you are given, call them, with every argument the request gives, as JSON. "
    "Make one call per action: several calls when the request asks for several things. When no "
    "function fits the request, say so in words and call nothing."
)
"""The system prompt's fixed part (after the case's own ``system`` / ``policy`` text)."""

_BFCL_TYPES = {"dict": "object", "float": "number", "tuple": "array"}


class RequestError(ValueError):
    """The request is not one this agent understands (exit 2)."""


def _json_schema(value: Any) -> Any:
    """A copy of a parameters schema with BFCL's Python type words mapped to JSON Schema
    (``dict`` -> ``object``, ``float`` -> ``number``, ``tuple`` -> ``array``; ``any`` -> no
    ``type``). Suites from ``aau import bfcl`` are mapped already; raw BFCL functions are not."""
    if isinstance(value, list):
        return [_json_schema(item) for item in value]
    if not isinstance(value, dict):
        return value
    out = {key: _json_schema(item) for key, item in value.items()}
    kind = out.get("type")
    if kind == "any":
        del out["type"]
    elif isinstance(kind, str) and kind in _BFCL_TYPES:
        out["type"] = _BFCL_TYPES[kind]
    return out


def _functions(case_input: dict[str, Any]) -> list[dict[str, Any]]:
    tools = case_input.get("tools", case_input.get("functions"))
    if not isinstance(tools, list) or not all(isinstance(t, dict) for t in tools):
        raise RequestError("input.tools must be a list of function tools")
    functions = []
    for i, tool in enumerate(tools):
        function = tool.get("function") if isinstance(tool.get("function"), dict) else tool
        if not isinstance(function.get("name"), str) or not function["name"]:
            raise RequestError(f"input.tools[{i}]: a function needs a name")
        functions.append(function)
    return functions


def _conversation(case_input: dict[str, Any]) -> tuple[list[str], list[dict[str, str]]]:
    """``(system texts, user/assistant messages)`` from the case input."""
    messages = case_input.get("messages")
    if messages is None:
        text = case_input.get("question", case_input.get("prompt"))
        if not isinstance(text, str) or not text.strip():
            raise RequestError("input needs messages (or a question string)")
        messages = [{"role": "user", "content": text}]
    if not isinstance(messages, list) or not messages:
        raise RequestError("input.messages must be a non-empty list")
    system: list[str] = []
    chat: list[dict[str, str]] = []
    for i, message in enumerate(messages):
        if not isinstance(message, dict) or not isinstance(message.get("content"), str):
            raise RequestError(f"input.messages[{i}] must be {{role, content: string}}")
        role = message.get("role")
        if role == "system":
            system.append(message["content"])
        elif role in ("user", "assistant"):
            chat.append({"role": role, "content": message["content"]})
        else:
            raise RequestError(f"input.messages[{i}].role {role!r} is not system/user/assistant")
    if not chat or chat[-1]["role"] != "user":
        raise RequestError("input.messages must end with a user message")
    return system, chat


def build_prompt(case_input: dict[str, Any]) -> tuple[str, list[dict[str, str]],
                                                        list[dict[str, Any]], dict[str, str]]:
    """What the model is shown for one case.

    Args:
        case_input: the request's ``input`` (module docstring).

    Returns:
        ``(system prompt, messages, tools, names)``: ``tools`` in the backend layer's shape
        (``{"name", "description", "input_schema"}``, names encoded), ``names`` the
        ``{encoded: real}`` table that decodes the model's calls.

    Raises:
        RequestError: the input lacks tools or messages, or two tool names share an encoding.
    """
    from aau_adapters import encode_tools, tool_name_map

    if not isinstance(case_input, dict):
        raise RequestError("input must be an object")
    functions = _functions(case_input)
    try:
        names = tool_name_map(f["name"] for f in functions)
        encoded = encode_tools(functions)
    except ValueError as error:
        raise RequestError(str(error)) from None
    tools = [
        {
            "name": function["name"],
            "description": str(function.get("description", "")),
            "input_schema": _json_schema(function.get("parameters"))
            or {"type": "object", "properties": {}},
        }
        for function in encoded
    ]
    system, messages = _conversation(case_input)
    extra = case_input.get("system", case_input.get("policy"))
    if isinstance(extra, str) and extra.strip():
        system.insert(0, extra.strip())
    return "\n\n".join([*system, DEFAULT_INSTRUCTIONS]), messages, tools, names


def read_reply(response: Any) -> tuple[str, list[dict[str, Any]]]:
    """``(text, structured calls)`` from a backend response (``content`` blocks).

    A call carries the backend's verdict on its arguments (aau's one strict decoder) as
    ``arguments_error`` (refused: no call is taken) or ``arguments_recovered`` (taken, noted).
    """
    texts, calls = [], []
    for block in getattr(response, "content", None) or []:
        kind = getattr(block, "type", None)
        if kind == "text":
            texts.append(getattr(block, "text", "") or "")
        elif kind == "tool_use":
            call = {"name": getattr(block, "name", None),
                    "arguments": getattr(block, "input", None)}
            for flag, key in (("input_error", "arguments_error"),
                              ("input_recovered", "arguments_recovered")):
                if getattr(block, flag, None):
                    call[key] = getattr(block, flag)
            calls.append(call)
    return "\n".join(texts), calls


def reply_notes(parsed: ParsedReply) -> list[str]:
    """What to say on stderr about a parsed reply: why there is no call, and each call read
    with the decoder's one recovery (``call 1 (get_weather): recovered: dropped stray ...``)."""
    notes = [parsed.note] if parsed.note else []
    notes += [f"call {n + 1} ({parsed.calls[n]['name']}): recovered: {what}"
              for n, what in parsed.recovered]
    return notes


def respond(request: dict[str, Any], backend: Any) -> tuple[dict[str, Any], ParsedReply]:
    """Answer one ``aau-byo-agent-request/1.0`` with one model call.

    Args:
        request: the request object (its ``input`` as in the module docstring).
        backend: anything with ``create(system, messages, tools)`` (``aau_core.make_backend``).

    Returns:
        ``(response, parsed)``: the adapter response (4 fields + ``tool_calls``, names decoded)
        and the parser's verdict (``parsed.note`` says why there is no call).

    Raises:
        RequestError: the request is not understood.
        aau_core.ProviderError: the model server failed (HTTP error, retries used up).
    """
    from aau_adapters import decode_tool_calls

    if not isinstance(request, dict):
        raise RequestError("the request must be a JSON object")
    system, messages, tools, names = build_prompt(request.get("input"))
    text, structured = read_reply(backend.create(system, messages, tools))
    parsed = parse_tool_call_reply(text, structured)
    calls = decode_tool_calls(parsed.calls, names)
    if calls:
        outcome = "called_tools"
    else:
        outcome = "malformed_tool_call" if parsed.malformed else "no_tool_call"
    response = {
        "outcome": outcome,
        "actions_attempted": [call["name"] for call in calls],
        "actions_executed": [],
        "submitted": True,
        "tool_calls": calls,
    }
    return response, parsed


def make_llm_backend(base_url: str | None, model: str | None) -> Any:
    """``aau_core.make_backend("local", model=model, base_url=base_url, text_tool_calls="off")``
    (this agent parses the text itself); ``None`` values fall back to ``AAU_LOCAL_BASE_URL`` /
    ``AAU_LOCAL_MODEL``. Raises aau_core's backend errors."""
    from aau_core import make_backend

    return make_backend("local", model=model, base_url=base_url, text_tool_calls="off")


def add_server_options(parser: argparse.ArgumentParser) -> None:
    """The ``--base-url`` / ``--model`` options both flavours share."""
    parser.add_argument("--base-url", default=None,
                        help="the server's API root, e.g. http://127.0.0.1:8080/v1 "
                             "(default: $AAU_LOCAL_BASE_URL)")
    parser.add_argument("--model", default=None,
                        help="the model id to request (default: $AAU_LOCAL_MODEL)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="LLM agent for `aau evaluate --command`: one request on stdin, one answer "
                    "on stdout, asking an OpenAI-compatible server.")
    add_server_options(parser)
    args = parser.parse_args(argv)
    from aau_core import AauError, InputError, ProviderError, loads_strict

    try:
        backend = make_llm_backend(args.base_url, args.model)
        request = loads_strict(sys.stdin.readline(), source="request")
        response, parsed = respond(request, backend)
    except (RequestError, InputError, ValueError) as error:
        print(f"llm_agent: bad request: {error}", file=sys.stderr)
        return 2
    except ProviderError as error:
        print(f"llm_agent: model server failed: {error}", file=sys.stderr)
        return 3
    except AauError as error:  # backend configuration (no URL, no model, no openai package)
        print(f"llm_agent: {error}", file=sys.stderr)
        return 2
    for note in reply_notes(parsed):
        print(f"llm_agent: {note}", file=sys.stderr)
    sys.stdout.write(json.dumps(response) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
