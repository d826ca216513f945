"""Simulated users: who answers an agent's messages in a conversation (suite 3.0 ``user``).

Two kinds, one interface (``SimulatedUser``): ``opening()`` gives the user's first message,
``reply(transcript)`` the answer to the agent's last message, or ``None`` when the user stops.

- ``ScriptedUser``: the case's ``messages`` in order; deterministic (tests, CI). The first
  message opens the conversation; each agent message to the user consumes the next one; when
  they run out, the user has stopped.
- ``ModelUser``: a model plays the user through any aau backend (``aau_core.make_backend``;
  ``create(system, messages, tools)`` with no tools), following the case's ``instructions``,
  the task's user scenario as tau2-bench defines it (``user_scenario.instructions``: who the
  user is, what they know, what they want). The roles are flipped for the model: the agent's
  messages are its ``user`` turns, its own earlier messages its ``assistant`` turns. As in
  tau2-bench, the user ends the conversation by writing ``###STOP###`` (its message is then
  not sent; ``reply`` returns ``None``). Its token usage is counted apart from the agent's
  (``usage()``).

A backend that raises (a provider error, a malformed reply, no text) raises
``UserSimulatorError``: the unit is then not a measurement (``user-simulator-unavailable``,
infrastructure), never the agent's failure.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from ._suite import CaseUser

STOP_TOKEN = "###STOP###"
"""What a model user writes to end the conversation (tau2-bench's stop token)."""

_SYSTEM = (
    "You are playing a user who talks with a customer-service agent. Follow the scenario "
    "below; write only what this user would write, one short message at a time. Never invent "
    "facts the scenario does not give. When your request has been handled, or cannot be, "
    f"write {STOP_TOKEN} alone.\n\n# Scenario\n"
)


class UserSimulatorError(RuntimeError):
    """The user simulator could not produce a message (its backend failed)."""


class SimulatedUser(Protocol):
    """What a conversation asks of its user (module docstring)."""

    kind: str

    def opening(self) -> str: ...
    def reply(self, transcript: Sequence[dict[str, Any]]) -> str | None: ...
    def usage(self) -> dict[str, Any]: ...


class ScriptedUser:
    """A user that says ``messages`` in order, then stops.

    Args:
        messages: the user's messages (at least one; the first opens the conversation).
    """

    kind = "scripted"

    def __init__(self, messages: Sequence[str]) -> None:
        if not messages:
            raise ValueError("a scripted user needs at least one message")
        self._messages = list(messages)
        self._next = 1

    def opening(self) -> str:
        """The first message."""
        return self._messages[0]

    def reply(self, transcript: Sequence[dict[str, Any]]) -> str | None:
        """The next scripted message, or ``None`` once they are used up (``transcript`` is
        not read)."""
        if self._next >= len(self._messages):
            return None
        self._next += 1
        return self._messages[self._next - 1]

    def usage(self) -> dict[str, Any]:
        """``{"input_tokens": 0, "output_tokens": 0, "cost_usd": 0.0}``: a script costs nothing."""
        return {"input_tokens": 0, "output_tokens": 0, "cost_usd": 0.0}


def _text(response: Any) -> str:
    parts = [getattr(b, "text", None) for b in (getattr(response, "content", None) or [])
             if getattr(b, "type", None) == "text"]
    text = "".join(p for p in parts if isinstance(p, str)).strip()
    if not text:
        raise UserSimulatorError("the user model's reply has no text")
    return text


class ModelUser:
    """A model playing the user from a tau2-bench user scenario (module docstring).

    Args:
        instructions: the case's ``user.instructions`` (the scenario; never sent to the agent).
        backend: an aau backend (``create(system, messages, tools) -> response`` with
            ``content`` text blocks and ``usage``), e.g. ``aau_core.make_backend("local")``.
        model: the model id for the cost (``aau_core.CostTracker``); ``None``, or a model
            without a known price, reports ``cost_usd`` as ``None`` (tokens are still counted).
    """

    kind = "model"

    def __init__(self, instructions: str, backend: Any, model: str | None = None) -> None:
        self._system = _SYSTEM + instructions
        self._backend = backend
        self._history: list[dict[str, Any]] = []
        self._tokens = [0, 0]
        self._cost: Any = None
        if model is not None:
            from aau_core._agents._cost import (  # internal to the monorepo
                CostTracker,
                UnknownModelPricingError,
            )

            try:
                self._cost = CostTracker(model)
            except UnknownModelPricingError:
                self._cost = None

    def _ask(self) -> str | None:
        # the model's "user" turns are the agent's messages; a conversation starts with one
        messages = self._history or [{"role": "user", "content": "Hi! How can I help you today?"}]
        try:
            response = self._backend.create(self._system, messages, [])
            text = _text(response)
        except UserSimulatorError:
            raise
        except Exception as exc:  # any backend failure is the simulator's, not the agent's
            raise UserSimulatorError(f"user model failed: {type(exc).__name__}: "
                                     f"{' '.join(str(exc).split())[:300]}") from None
        usage = getattr(response, "usage", None)
        for i, field in enumerate(("input_tokens", "output_tokens")):
            value = getattr(usage, field, None) if usage is not None else None
            self._tokens[i] += value if isinstance(value, int) and value >= 0 else 0
        if self._cost is not None:
            self._cost.add_usage(usage)
        if not self._history:
            self._history.append(messages[0])
        self._history.append({"role": "assistant", "content": text})
        return None if STOP_TOKEN in text else text

    def opening(self) -> str:
        """The user's first message.

        Raises:
            UserSimulatorError: the backend failed, or the model stopped before saying anything.
        """
        text = self._ask()
        if text is None:
            raise UserSimulatorError("the user model stopped before its first message")
        return text

    def reply(self, transcript: Sequence[dict[str, Any]]) -> str | None:
        """The user's answer to the transcript's last (agent) message; ``None`` = stopped.

        Raises:
            UserSimulatorError: the backend failed.
        """
        self._history.append({"role": "user", "content": transcript[-1]["content"]})
        return self._ask()

    def usage(self) -> dict[str, Any]:
        """``{"input_tokens", "output_tokens", "cost_usd"}`` of the user model so far
        (``cost_usd`` rounded to 6 places, ``None`` when the model's price is unknown)."""
        cost = None if self._cost is None else round(self._cost.cost_usd, 6)
        return {"input_tokens": self._tokens[0], "output_tokens": self._tokens[1],
                "cost_usd": cost}


def make_user(spec: CaseUser, backend_factory: Any = None) -> SimulatedUser:
    """The simulated user of a case.

    Args:
        spec: the case's ``CaseUser``.
        backend_factory: for a model user, ``() -> (backend, model_or_None)`` (the run's CLI
            choice); unused for a scripted user.

    Returns:
        a ``ScriptedUser`` or a ``ModelUser``.

    Raises:
        UserSimulatorError: a model user and no ``backend_factory``, or the factory failed.
    """
    if spec.kind == "scripted":
        return ScriptedUser(spec.messages)
    if backend_factory is None:
        raise UserSimulatorError("this case has a model user and the run chose no user backend "
                                 "(--user-backend)")
    try:
        backend, model = backend_factory()
    except Exception as exc:
        raise UserSimulatorError(f"user backend could not be built: {type(exc).__name__}: "
                                 f"{exc}") from None
    assert spec.instructions is not None
    return ModelUser(spec.instructions, backend, model)


def user_backend_factory(kind: str | None, model: str | None = None) -> Any:
    """The ``user_backend`` of ``--user-backend KIND [--user-model MODEL]``.

    Args:
        kind: an ``aau_core.make_backend`` kind other than ``mock``, or ``None`` (no option).
        model: the model id, or ``None`` for the backend's default.

    Returns:
        ``None`` without ``kind``; else ``() -> (backend, model)`` (the backend's ``model``
        attribute when ``model`` is ``None``), built on first use, so a missing key or SDK
        makes the units ``user-simulator-unavailable`` rather than stopping the run.

    Raises:
        aau_core.UsageError: ``kind`` is ``mock`` (it needs a Python factory) or no backend
            kind, or ``model`` without ``kind``.
    """
    from aau_core import UsageError

    if kind is None:
        if model is not None:
            raise UsageError("--user-model needs --user-backend")
        return None
    if kind == "mock":
        raise UsageError("--user-backend mock needs a Python mock factory; use a scripted user "
                         "(suite v3 user.kind scripted) for deterministic runs")
    from aau_core._agents._backends import PROVIDERS  # internal to the monorepo

    kinds = sorted({"anthropic", "local", *PROVIDERS})
    if kind not in kinds:
        raise UsageError(f"--user-backend {kind!r}: not a backend kind; choose one of "
                         f"{', '.join(kinds)}")

    def build() -> tuple[Any, str | None]:
        from aau_core import make_backend

        backend = make_backend(kind, model=model)
        return backend, model or getattr(backend, "model", None)

    return build
