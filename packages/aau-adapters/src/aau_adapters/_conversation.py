"""A conversation between the agent and a case's simulated user (suite 3.0 ``user``, request 1.2).

``run_conversation`` drives one unit:

1. the user's opening message (``_simulated_user``);
2. turn ``t`` = 1, 2, ...: request 1.2 with ``conversation = {conversation_id, turn: t,
   user_message}``; the agent answers with ``{"message_to_user": ...}`` or its final answer;
3. a final answer ends the conversation (the unit is scored on it, as a one-turn unit);
   a message to the user gets the user's reply as the next turn's ``user_message``.

A command agent is one live child for the whole conversation (``CommandAdapter
.open_conversation``: one request line per turn on stdin, one answer line per turn on stdout);
every other adapter (endpoint, mock, python) gets one ``invoke`` per turn, each with the same
``conversation_id`` (an endpoint: one POST per turn).

How a conversation without a final answer ends (the failure code, ``_failure_codes``):

- turn ``max_turns`` was a message to the user: ``conversation-turn-limit``;
- the user stopped (scripted messages used up; a model user wrote ``###STOP###``):
  ``user-stopped``;
- the agent ended after a message to the user (a command closed stdout and exited 0):
  ``conversation-no-final-answer``;
- the user simulator failed: ``user-simulator-unavailable`` (infrastructure: not a measurement);
- an adapter failure on any turn (timeout, exit, invalid answer): that code, as for one turn.

The transcript (``Conversation.document``) goes into the private receipt's ``conversation``; the
user simulator's usage is reported there apart from the agent's.
"""

from __future__ import annotations

import secrets
from typing import Any

import attrs

from . import _failure_codes as fc
from ._adapter import Adapter, AdapterAnswer
from ._protocol import McpChannel, build_request
from ._protocol_models import ConversationTurn
from ._simulated_user import SimulatedUser, UserSimulatorError
from ._suite import Case

MAX_TRANSCRIPT_CHARS = 20_000
"""The longest message kept in a transcript (characters; longer ones are cut)."""


@attrs.frozen(kw_only=True)
class Conversation:
    """A finished conversation.

    Attributes:
        answer: the unit's answer: the final answer (its latency the sum of the turns'), or the
            failure (module docstring).
        turns: the transcript, ``({"role": "user" | "agent", "content": str, ["final": True]},
            ...)`` in order.
        user_kind: ``"scripted"`` or ``"model"``.
        user_usage: ``{"input_tokens", "output_tokens", "cost_usd"}`` of the user simulator.
    """

    answer: AdapterAnswer
    turns: tuple[dict[str, Any], ...]
    user_kind: str
    user_usage: dict[str, Any]

    def document(self) -> dict[str, Any]:
        """The private receipt 2.1 row's ``conversation`` (schema ``$defs/conversation``)."""
        return {"user_kind": self.user_kind, "turns": list(self.turns),
                "user_usage": dict(self.user_usage)}


class _PerTurn:
    """One ``invoke`` per turn (endpoint, mock, python adapters)."""

    def __init__(self, adapter: Adapter, case: Case) -> None:
        self._adapter, self._case = adapter, case
        self.ended = False

    def send(self, request: dict[str, Any]) -> AdapterAnswer:
        return self._adapter.invoke(request, self._case)

    def finish(self) -> str | None:
        return None

    def close(self) -> None:
        pass


def _cut(text: str) -> str:
    return text[:MAX_TRANSCRIPT_CHARS]


def run_conversation(suite_id: str, case: Case, adapter: Adapter, mcp: McpChannel,
                     user: SimulatedUser) -> Conversation:
    """Converse on one unit of ``case`` (module docstring).

    Args:
        suite_id: the suite's id (in every request).
        case: a case with ``user`` and ``environment``.
        adapter: the agent connection.
        mcp: the unit's MCP channel (``url``, ``token``, ``max_calls``).
        user: the case's simulated user (``_simulated_user.make_user``).

    Returns:
        the ``Conversation``.

    Raises:
        nothing for the agent's or the user's failure (failure codes); an adapter's own
        exception propagates (the executor records ``adapter-internal-error``).
    """
    spec = case.user
    assert spec is not None, "run_conversation needs a case with a user"
    turns: list[dict[str, Any]] = []
    latency = 0.0

    def done(answer: AdapterAnswer) -> Conversation:
        return Conversation(answer=answer, turns=tuple(turns), user_kind=user.kind,
                            user_usage=user.usage())

    def failed(code: str, detail: str, last: AdapterAnswer | None = None) -> Conversation:
        tail = last.stderr_tail if last is not None else None
        return done(AdapterAnswer(None, code, latency, tail, detail[:500]))

    try:
        message: str | None = user.opening()
    except UserSimulatorError as exc:
        return failed(fc.USER_SIMULATOR_UNAVAILABLE, str(exc))
    opener = getattr(adapter, "open_conversation", None)
    session = opener(case) if callable(opener) else _PerTurn(adapter, case)
    conversation_id = f"c-{secrets.token_hex(8)}"
    try:
        for turn in range(1, spec.max_turns + 1):
            assert message is not None
            turns.append({"role": "user", "content": _cut(message)})
            request = build_request(suite_id, case, mcp=mcp, conversation=ConversationTurn(
                conversation_id=conversation_id, turn=turn, user_message=message))
            answer = session.send(request)
            latency += answer.latency_s
            if answer.error is not None:
                return failed(answer.error, answer.detail or answer.error, answer)
            if answer.response is None:  # the agent ended without answering
                if turn == 1:
                    return failed(fc.ADAPTER_INVALID_RESPONSE,
                                  "answer is empty (nothing was printed or sent)", answer)
                return failed(fc.CONVERSATION_NO_FINAL_ANSWER,
                              f"the agent ended after turn {turn - 1} without a final answer",
                              answer)
            if "message_to_user" not in answer.response:
                turns.append({"role": "agent", "content": _cut(answer.response.get("outcome", "")),
                              "final": True})
                exit_code = session.finish()
                if exit_code is not None:
                    return failed(exit_code, "the agent exited non-zero after its final answer",
                                  answer)
                return done(attrs.evolve(answer, latency_s=latency))
            turns.append({"role": "agent", "content": _cut(answer.response["message_to_user"])})
            if turn == spec.max_turns:
                return failed(fc.CONVERSATION_TURN_LIMIT,
                              f"turn {turn} (max_turns) was a message to the user, not a final "
                              "answer", answer)
            try:
                message = user.reply(turns)
            except UserSimulatorError as exc:
                return failed(fc.USER_SIMULATOR_UNAVAILABLE, str(exc), answer)
            if message is None:
                return failed(fc.USER_STOPPED, f"the user stopped after the agent's turn {turn} "
                              "with no final answer", answer)
        raise AssertionError("unreachable: the loop returns by max_turns")
    finally:
        session.close()


def converse(suite_id: str, case: Case, adapter: Adapter, mcp: McpChannel,
             user_backend: Any = None) -> Conversation:
    """Build the case's simulated user and run the conversation (``run_conversation``).

    Args:
        suite_id, case, adapter, mcp: as ``run_conversation``.
        user_backend: ``() -> (backend, model_or_None)`` for a model user (the run's choice),
            or ``None``.

    Returns:
        the ``Conversation``; a model user whose backend cannot be built gives a
        ``user-simulator-unavailable`` answer with an empty transcript.
    """
    from ._simulated_user import make_user

    assert case.user is not None
    try:
        user = make_user(case.user, user_backend)
    except UserSimulatorError as exc:
        return Conversation(answer=AdapterAnswer(None, fc.USER_SIMULATOR_UNAVAILABLE, 0.0,
                                                 detail=str(exc)[:500]),
                            turns=(), user_kind=case.user.kind,
                            user_usage={"input_tokens": 0, "output_tokens": 0, "cost_usd": None})
    return run_conversation(suite_id, case, adapter, mcp, user)
