"""One unit's channel on the tool server: its URL and token, its call budget, the lock that
serialises its calls, and what aau recorded (``UnitRecord``).

A unit is one (scenario x repeat) of a suite whose case names an environment. The channel
answers every ``tools/call`` that reaches it in order, one at a time: budget, tool name,
arguments (``_tools``), then the environment's ``session.call``; each answer becomes an
``ObservedCall``. Requests refused before a call could be read (a wrong token, a malformed or
oversized body) are ``RejectedRequest``s. ``close()`` ends the unit: from then on its URL
answers HTTP 404 (``mcp-unit-ended``) and the record no longer changes.
"""

from __future__ import annotations

import copy
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

import attrs
from aau_core import EnvironmentSession, ObservedCall, ToolOutcome

from aau_adapters._mcp import _codes
from aau_adapters._mcp._tools import UnitTools, argument_error

_CLOSE_WAIT_S = 5.0  # close() waits this long for a call the environment is still running


@attrs.frozen(kw_only=True)
class RejectedRequest:
    """A request to a unit refused before a call was read from it.

    Attributes:
        code: ``mcp-wrong-token``, ``mcp-malformed-jsonrpc`` or ``mcp-oversized-request``
            (``aau_adapters._mcp._codes``).
        detail: one line saying what was refused (never the token itself).
        at_s: seconds from the unit's opening to the request's arrival (monotonic clock).
    """

    code: str
    detail: str
    at_s: float


@attrs.frozen(kw_only=True)
class UnitRecord:
    """What aau recorded for one unit, returned by ``UnitChannel.close()``.

    Attributes:
        calls: every ``tools/call`` that reached the unit, in arrival order (``ObservedCall``,
            ``index`` 0, 1, ...).
        rejected: the requests to the unit refused before a call was read, in arrival order.
    """

    calls: tuple[ObservedCall, ...]
    rejected: tuple[RejectedRequest, ...]


@attrs.frozen
class CallAnswer:
    """How the server answers one call (internal to ``_mcp``).

    ``protocol_error`` set: a JSON-RPC error with that code (unknown tool, unit ended); else a
    tool result, ``is_error`` for every call that did not run or failed.
    """

    text: str
    is_error: bool
    value: Any = None
    protocol_error: int | None = None


class UnitChannel:
    """One unit's connection to the tool server (``ToolServer.open_unit`` makes it).

    Attributes:
        url: where the agent connects: ``http://127.0.0.1:PORT/units/UNITKEY/mcp``.
        token: the bearer token the agent sends (``Authorization: Bearer TOKEN``); random,
            this unit's only.
        max_calls: the call budget: the ``tools/call`` after the ``max_calls``-th is refused
            with ``mcp-call-budget-exceeded``.
        label: who the unit is, for the caller's logs (``"scenario-id#2"``); never sent.
        key: the unit's key in ``url``.

    Thread-safe: calls arrive on the server's thread, ``close()`` comes from the caller's.
    """

    def __init__(self, *, session: EnvironmentSession, tools: UnitTools, key: str, token: str,
                 url: str, max_calls: int, label: str,
                 on_close: Callable[[UnitChannel], None]) -> None:
        self.url = url
        self.token = token
        self.max_calls = max_calls
        self.label = label
        self.key = key
        self._session = session
        self._tools = tools
        self._on_close = on_close
        self._opened = time.perf_counter()
        self._lock = threading.Lock()  # held while a call is answered: one call at a time
        self._calls: list[ObservedCall] = []
        self._rejected: list[RejectedRequest] = []
        self._closed = False
        self._record: UnitRecord | None = None

    def __repr__(self) -> str:
        return f"UnitChannel({self.label!r}, key={self.key!r}, calls={len(self._calls)})"

    @property
    def closed(self) -> bool:
        """``close()`` was called."""
        return self._closed

    def close(self) -> UnitRecord:
        """End the unit and return what was recorded.

        Idempotent (a second call returns the same record). Waits up to 5 s for a call the
        environment is still running, so its record is complete; a call still running after
        that is left out of the record (its answer reaches the agent, but the unit is over).
        From the first ``close()`` on, the unit's URL answers HTTP 404 ``mcp-unit-ended``.

        Returns:
            the ``UnitRecord``.
        """
        if self._record is not None:
            return self._record
        self._closed = True
        self._on_close(self)
        acquired = self._lock.acquire(timeout=_CLOSE_WAIT_S)
        try:
            if self._record is None:
                self._record = UnitRecord(calls=tuple(self._calls), rejected=tuple(self._rejected))
                self._session = None  # type: ignore[assignment]  # the state is the caller's now
        finally:
            if acquired:
                self._lock.release()
        return self._record

    # -- used by the server (the request's thread) --------------------------------------------

    @property
    def listing(self) -> tuple[Any, ...]:
        """The MCP ``Tool`` models of ``tools/list``."""
        return self._tools.listing

    def elapsed(self, moment: float) -> float:
        """Seconds from the unit's opening to ``moment`` (``time.perf_counter()``), >= 0."""
        return max(0.0, moment - self._opened)

    def reject(self, code: str, detail: str, arrived: float) -> None:
        """Record a request refused before a call was read (nothing after ``close()``)."""
        with self._lock:
            if not self._closed:
                self._rejected.append(RejectedRequest(code=code, detail=detail,
                                                      at_s=self.elapsed(arrived)))

    def answer(self, name: str, arguments: Any, arrived: float,
               refusal: str | None = None) -> CallAnswer:
        """Answer one ``tools/call`` and record it (the calls of a unit run one at a time).

        Args:
            name: the tool name the agent sent (``""`` when it sent none that could be read).
            arguments: the arguments it sent (a JSON value; ``None`` when absent or unreadable).
            arrived: when the request reached the server (``time.perf_counter()``).
            refusal: set by the HTTP gate when the request could not carry arguments (not an
                object): the call is recorded as ``mcp-invalid-arguments`` with this message.

        Returns:
            the ``CallAnswer``; never raises for anything the agent sent.
        """
        with self._lock:
            if self._closed:
                return CallAnswer(text="this unit has ended", is_error=True,
                                  protocol_error=_codes.INVALID_REQUEST)
            code, answer = self._decide(name, arguments, refusal)
            recorded_arguments = arguments if isinstance(arguments, Mapping) else None
            self._calls.append(ObservedCall(
                index=len(self._calls), name=name, arguments=recorded_arguments,
                ok=code is None, code=code, result=answer.text,
                started_s=self.elapsed(arrived),
                duration_s=max(0.0, time.perf_counter() - arrived)))
            return answer

    def _decide(self, name: str, arguments: Any,
                refusal: str | None) -> tuple[str | None, CallAnswer]:
        if len(self._calls) >= self.max_calls:
            return _codes.CALL_BUDGET_EXCEEDED, CallAnswer(
                text=f"call budget exceeded: this unit allows {self.max_calls} tool calls",
                is_error=True)
        validator = self._tools.validators.get(name)
        if validator is None:
            return _codes.UNKNOWN_TOOL, CallAnswer(
                text=f"unknown tool {name!r}", is_error=True,
                protocol_error=_codes.INVALID_PARAMS)
        if refusal is not None:
            return _codes.INVALID_ARGUMENTS, CallAnswer(
                text=f"invalid arguments for {name!r}: {refusal}", is_error=True)
        problem = argument_error(validator, arguments)
        if problem is not None:
            return _codes.INVALID_ARGUMENTS, CallAnswer(
                text=f"invalid arguments for {name!r}: {problem}", is_error=True)
        try:
            outcome = self._session.call(name, copy.deepcopy(arguments))
            if not isinstance(outcome, ToolOutcome):
                raise TypeError(f"call() returned a {type(outcome).__name__}, "
                                "not a ToolOutcome")
            text = str(outcome.text)
        except Exception as error:  # noqa: BLE001 - any environment failure is the unit's record
            return _codes.ENVIRONMENT_ERROR, CallAnswer(
                text=f"the environment failed: {type(error).__name__}: {error}", is_error=True)
        if not outcome.ok:
            return _codes.TOOL_ERROR, CallAnswer(text=text, is_error=True)
        return None, CallAnswer(text=text, is_error=False, value=outcome.value)
