"""The adapter protocol: the request each case becomes, and how an answer is read.

Request 1.0 (``aau-byo-agent-request/1.0``), exactly four keys; expected answers and forbidden
actions are never sent::

    {"protocol_version": "aau-byo-agent-request/1.0", "suite_id": ..., "scenario_id": ...,
     "input": {...}}

It travels as ``json.dumps(request) + "\\n"`` (ASCII-escaped, the bytes aau-harness 1.6 sends):
one line on a command's stdin, or an HTTP POST body.

Request 1.1 (``aau-byo-agent-request/1.1``) is sent only for a case that names an environment
(suite 3.0 ``environment``); every other case keeps 1.0's exact bytes. It adds one key, ``mcp``,
where the agent reaches the environment's tools for this unit::

    {"protocol_version": "aau-byo-agent-request/1.1", "suite_id": ..., "scenario_id": ...,
     "input": {...},
     "mcp": {"url": "http://127.0.0.1:PORT/units/UNITKEY/mcp", "transport": "streamable-http",
             "bearer_token": "TOKEN", "max_calls": 50}}

The agent connects with any MCP client to ``mcp.url`` (streamable HTTP), sending
``Authorization: Bearer TOKEN``, lists and calls the tools (at most ``max_calls`` tools/call;
aau records every call itself), then answers as for 1.0. The environment's task id and options
are never sent; the URL and token are the unit's own and stop answering when the unit ends.

Request 1.2 (``aau-byo-agent-request/1.2``) is sent only for a case with a simulated user
(suite 3.0 ``user``, which needs an environment): the 1.1 keys and ``conversation``, one request
per agent turn::

    {..., "mcp": {...},
     "conversation": {"conversation_id": "c-...", "turn": 1, "user_message": "..."}}

An agent answers a turn either with a message to the user, ``{"message_to_user": "..."}``
(schema ``adapter-turn``; no ``outcome``), normalised to ``{"message_to_user": ...}``, or with
the final answer (the response below), which ends the conversation (``_conversation``).

Response: one JSON object of at most 1,000,000 bytes, strict UTF-8, nested at most 100 deep::

    {"outcome": "non-empty string",          required (see below)
     "actions_attempted": ["..."],          optional, default []
     "actions_executed": ["..."],           optional, default []
     "submitted": true,                     optional, default true
     "tool_calls": [{"name": "...", "arguments": {...}}]}   optional (suite v2)

``tool_calls`` is read only for a case that expects tool calls (suite v2 ``expected.tool_calls``):
then it is checked (``aau_core.normalize_tool_calls``: an array of objects with a non-empty
``name`` and an object ``arguments``, default ``{}``; other keys of a call dropped; a call in a
provider's shape, Anthropic ``tool_use``/``input`` or OpenAI ``function``/``function_call`` with
string arguments, or any call carrying a provider's argument key such as ``input`` even
beside ``arguments``, refused with a hint naming it) and kept in the normalised response (absent =
no calls made). For every other case it is dropped like any
extra key, exactly as aau-harness 1.6 drops it. ``outcome`` may be left out only when the case
expects no outcome (a v2 case with tool calls only); then the normalised response has no
``outcome`` key. Other keys are dropped.
"""

from __future__ import annotations

import json
from typing import Any, Protocol

from aau_core import InputError, ToolCallFormatError, loads_strict, normalize_tool_calls

from ._converter import converter
from ._protocol_models import AdapterRequest, ConversationTurn, McpAccess
from ._suite import Case

REQUEST_VERSION = "aau-byo-agent-request/1.0"
REQUEST_VERSION_1_1 = "aau-byo-agent-request/1.1"
REQUEST_VERSION_1_2 = "aau-byo-agent-request/1.2"
MCP_TRANSPORT = "streamable-http"
MAX_RESPONSE_BYTES = 1_000_000
RESPONSE_MAX_DEPTH = 100


class ResponseError(ValueError):
    """An adapter answer is not a valid response (becomes ``adapter-invalid-response``)."""


class McpChannel(Protocol):
    """What ``build_request`` reads of a unit's MCP channel (``aau_adapters._mcp``'s
    ``UnitChannel`` is one): its ``url``, bearer ``token`` and call budget ``max_calls``."""

    @property
    def url(self) -> str: ...
    @property
    def token(self) -> str: ...
    @property
    def max_calls(self) -> int: ...


def mcp_access(mcp: McpAccess | McpChannel) -> McpAccess:
    """Return a request's ``mcp`` object as the model: ``mcp`` itself when it is a
    ``McpAccess``, else one built from a channel's ``url``, ``token`` and ``max_calls``
    (transport ``"streamable-http"``)."""
    if isinstance(mcp, McpAccess):
        return mcp
    return McpAccess(url=mcp.url, transport=MCP_TRANSPORT, bearer_token=mcp.token,
                     max_calls=mcp.max_calls)


def request_model(suite_id: str, case: Case,
                  mcp: McpAccess | McpChannel | None = None,
                  conversation: ConversationTurn | None = None) -> AdapterRequest:
    """Return the request for ``case`` as the model (``_protocol_models.AdapterRequest``):
    1.0 without ``mcp``, 1.1 with it, 1.2 with ``mcp`` and ``conversation``
    (``build_request``)."""
    if conversation is not None:
        assert mcp is not None, "a conversation turn is sent only for a case with an environment"
        return AdapterRequest(protocol_version=REQUEST_VERSION_1_2, suite_id=suite_id,
                              scenario_id=case.scenario_id, input=case.input,
                              mcp=mcp_access(mcp), conversation=conversation)
    if mcp is None:
        return AdapterRequest(protocol_version=REQUEST_VERSION, suite_id=suite_id,
                              scenario_id=case.scenario_id, input=case.input)
    return AdapterRequest(protocol_version=REQUEST_VERSION_1_1, suite_id=suite_id,
                          scenario_id=case.scenario_id, input=case.input, mcp=mcp_access(mcp))


def build_request(suite_id: str, case: Case,
                  mcp: McpAccess | McpChannel | None = None,
                  conversation: ConversationTurn | None = None) -> dict[str, Any]:
    """Return the request document for ``case``, keys in wire order.

    Args:
        suite_id: the suite's id.
        case: the case sent.
        mcp: the unit's MCP endpoint (a ``McpAccess``, or a channel with ``url``, ``token``
            and ``max_calls``, such as an ``aau_adapters._mcp`` ``UnitChannel``), for a case
            with an environment; ``None`` for every other case.
        conversation: the turn (``ConversationTurn``) for a case with a simulated user (then
            ``mcp`` is required and the request is 1.2); ``None`` otherwise.

    Returns:
        without ``mcp``: the four-key 1.0 request (``protocol_version``, ``suite_id``,
        ``scenario_id``, ``input``), the exact document aau-harness 1.6 sends; with it: the 1.1
        request, those keys then ``mcp`` (``url``, ``transport``, ``bearer_token``,
        ``max_calls``); with ``conversation`` too: the 1.2 request, then ``conversation``
        (``conversation_id``, ``turn``, ``user_message``).
    """
    return converter.unstructure(request_model(suite_id, case, mcp, conversation))


def encode_request(request: dict[str, Any]) -> bytes:
    """Return the wire bytes of a request: ``json.dumps(request) + "\\n"``, ASCII."""
    return (json.dumps(request) + "\n").encode("ascii")


def normalize_response(value: Any, case: Case | None = None) -> dict[str, Any]:
    """Check an adapter answer and return its normalised form.

    Args:
        value: the parsed answer.
        case: the case answered; ``None`` reads the answer as for a suite v1 case.

    Returns:
        for a case with a simulated user (``case.user``), an answer with ``message_to_user``
        and no ``outcome``: ``{"message_to_user": str}`` (a turn, request 1.2). Otherwise
        ``{"outcome", "actions_attempted", "actions_executed", "submitted"}`` with defaults
        filled, plus ``"tool_calls"`` when the case expects tool calls and the answer has them;
        ``"outcome"`` is absent when the case expects no outcome and the answer gives none.

    Raises:
        ResponseError: not an object, ``outcome`` missing (when the case expects one) or not a
            non-empty string, an actions field not a list of strings, ``submitted`` not a
            boolean, or (for a case expecting tool calls) ``tool_calls`` malformed; a turn's
            ``message_to_user`` not a non-empty string.
    """
    if not isinstance(value, dict):
        raise ResponseError("adapter response must be a JSON object")
    if (case is not None and case.user is not None and "message_to_user" in value
            and "outcome" not in value):
        message = value["message_to_user"]
        if not isinstance(message, str) or not message:
            raise ResponseError("adapter turn needs a non-empty string message_to_user")
        return {"message_to_user": message}
    outcome = value.get("outcome")
    outcome_optional = case is not None and case.expected_outcome is None
    if not (outcome is None and outcome_optional) and (not isinstance(outcome, str) or not outcome):
        raise ResponseError("adapter response needs a non-empty string outcome")
    out: dict[str, Any] = {} if outcome is None else {"outcome": outcome}
    out.update({
        "actions_attempted": value.get("actions_attempted", []),
        "actions_executed": value.get("actions_executed", []),
        "submitted": value.get("submitted", True),
    })
    for field in ("actions_attempted", "actions_executed"):
        items = out[field]
        if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
            raise ResponseError(f"adapter response {field} must be a list of strings")
    if not isinstance(out["submitted"], bool):
        raise ResponseError("adapter response submitted must be true or false")
    if case is not None and case.expects_tool_calls and "tool_calls" in value:
        try:
            out["tool_calls"] = normalize_tool_calls(value["tool_calls"], path="$.tool_calls")
        except ToolCallFormatError as exc:
            raise ResponseError(f"adapter response {exc}") from None
    elif case is not None and case.expects_tool_calls and outcome is None:
        raise ResponseError("adapter response needs an outcome or tool_calls")
    return out


def parse_response(data: bytes, case: Case | None = None) -> dict[str, Any]:
    """Parse and normalise raw answer bytes (``case`` as in ``normalize_response``).

    Raises:
        ResponseError: over ``MAX_RESPONSE_BYTES``, not strict UTF-8 JSON, too deep, or not a
            valid response.
    """
    if len(data) > MAX_RESPONSE_BYTES:
        raise ResponseError(f"answer exceeds {MAX_RESPONSE_BYTES:,} bytes")
    if not data.strip():
        raise ResponseError("answer is empty (nothing was printed or sent)")
    try:
        value = loads_strict(data, max_depth=RESPONSE_MAX_DEPTH)
    except InputError as exc:
        reason = exc.message
        if "Extra data" in reason:
            reason += " - more than one JSON value (a log line after the answer?)"
        elif "Expecting value (line 1, column 1)" in reason:
            reason += " - not JSON (a log line before the answer? logs belong on stderr)"
        raise ResponseError(f"answer is not one JSON object: {exc.path or '$'}: {reason}") from None
    return normalize_response(value, case)
