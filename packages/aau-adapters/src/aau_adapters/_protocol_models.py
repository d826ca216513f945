"""The adapter protocol's documents as models: the request aau sends for one case
(``aau-byo-agent-request/1.0``, or ``/1.1`` with the ``mcp`` endpoint of a case with an
environment; schema ``adapter-request``) and the response an agent sends
back, before normalisation (schema ``adapter-response``; open: unknown keys are kept).

``_protocol.build_request`` builds an ``AdapterRequest`` and sends its unstructured form (field
order = the wire's key order, which aau-harness 1.6 fixed). Responses are checked and normalised
by ``_protocol.normalize_response`` (its messages name each problem); ``AdapterResponse`` is the
schema's view of a raw answer, for Python users and the drift tests.
"""

from __future__ import annotations

from typing import Any

import attrs
from aau_core._files._converter import open_extra, optional_field  # internal to the monorepo


@attrs.frozen(kw_only=True)
class McpAccess:
    """A 1.1 request's ``mcp`` (``$defs/mcp``): the unit's MCP endpoint ``url``, its
    ``transport`` (``"streamable-http"``), the ``bearer_token`` the agent sends as
    ``Authorization: Bearer <token>``, and the unit's tool-call budget ``max_calls``."""

    url: str
    transport: str
    bearer_token: str
    max_calls: int


@attrs.frozen(kw_only=True)
class ConversationTurn:
    """A 1.2 request's ``conversation`` (``$defs/conversation``): the unit's
    ``conversation_id`` (the same on every turn), the agent ``turn`` asked for (1, 2, ...) and
    the simulated user's ``user_message`` (the opening one, then the reply)."""

    conversation_id: str
    turn: int
    user_message: str


@attrs.frozen(kw_only=True)
class AdapterRequest:
    """The request: ``protocol_version``, ``suite_id``, ``scenario_id``, the case's ``input``
    and (1.1 only, for a case with an environment) ``mcp``; ``None`` = not sent (1.0).
    Expected answers, forbidden actions and an environment's task and options are never
    sent."""

    protocol_version: str
    suite_id: str
    scenario_id: str
    input: dict[str, Any]
    mcp: McpAccess | None = optional_field()
    conversation: ConversationTurn | None = optional_field()


@attrs.frozen(kw_only=True)
class ResponseToolCall:
    """One call an agent reports: ``name`` and ``arguments`` (``None`` = not given; other keys
    kept)."""

    name: str
    arguments: dict[str, Any] | None = optional_field()
    extra: dict[str, Any] = open_extra()


@attrs.frozen(kw_only=True)
class AdapterResponse:
    """A raw adapter answer: ``outcome`` and/or ``tool_calls``, the actions attempted and
    executed, and ``submitted``; ``None`` = not given (normalisation fills ``[]``, ``[]``,
    ``true``); other keys kept."""

    outcome: str | None = optional_field()
    actions_attempted: tuple[str, ...] | None = optional_field()
    actions_executed: tuple[str, ...] | None = optional_field()
    submitted: bool | None = optional_field()
    tool_calls: tuple[ResponseToolCall, ...] | None = optional_field()
    extra: dict[str, Any] = open_extra()
