"""The environment contract: what an observed environment gives aau, and what aau records.

An *environment* is an executable tool world an agent acts in: a set of tools with JSON Schema
parameters, a fresh state per unit (scenario x repeat), and a scorer over the state the agent
left and the calls aau observed. aau serves an environment's tools to the agent under test (over
MCP, ``aau_adapters``) or to its own agent loop, records every call itself, and scores from that
record, never from what the agent says it did.

The contract, in the order aau uses it:

1. ``Environment.check_case(task, options)`` when a suite is loaded: refuse a task the
   environment does not have, or options it cannot use (``EnvironmentCaseError`` naming the JSON
   path under the case's ``environment``).
2. ``Environment.open(task, options)`` per unit: an ``EnvironmentSession`` on a fresh state that
   no other unit sees.
3. ``EnvironmentSession.tools()``: the tools as ``ToolSpec`` (a name, a description, and the JSON
   Schema of the arguments object); aau checks every call's arguments against the schema before
   the environment sees them.
4. ``EnvironmentSession.call(name, arguments)``: run one call on the session's state and return a
   ``ToolOutcome`` (``ok`` false for a tool error: the agent sees the error text, the run goes
   on). It must not raise for anything an agent can send; aau turns an exception into a tool
   error with code ``environment-error`` and records it.
5. ``EnvironmentSession.final_state()``: the state after the unit, as a JSON value (kept in the
   private receipt).
6. ``EnvironmentSession.score(calls, final_answer)``: the environment's own verdict
   (``EnvironmentVerdict``) from its final state and ``calls``, the ``ObservedCall`` records aau
   made (never the agent's report), and the agent's final answer text.

Optional: ``Environment.reference_solution(task, options)`` returns the task's known solution,
``{"calls": [{"name", "arguments"}], "answer": str | None}`` (the calls in order, and the final
answer text, ``None`` when the task needs none), or ``None`` when the environment has none. aau's
``--mock`` adapter replays it through MCP when a case expects no tool calls of its own, so a mock
run of an imported suite is a calibration run (every environment verdict should pass; one that
does not shows a fault in aau or in the environment, not in an agent). It is never sent to an
agent under test.

Optional, for prompt injections (a suite v3 case's ``attack``, an ``Attack`` here): an
environment that has injection vectors (slots in the data its tools return: an e-mail body, a
transaction subject) gives

- ``Environment.check_attack(task, options, attack)`` when a suite is loaded: refuse an
  injection task or an injection vector it does not have (``EnvironmentCaseError``, the path
  under the case's ``attack``: ``"$.injection_task"``, ``"$.injections.<vector>"``);
- ``Environment.open_under_attack(task, options, attack)`` per unit: a session whose state has
  each vector of ``attack.injections`` filled with its text (the others at their harmless
  default), so the injected text is what the tools return; when ``attack.injection_task`` is
  set, the session's ``score`` verdict carries ``attack_succeeded`` (the environment's check of
  that injection task on the final state and the calls: true = the attack reached its goal);
- ``Environment.reference_solution_under_attack(task, options, attack)`` and
  ``Environment.attack_solution(task, options, attack)`` (optional too, ``reference_solution``'s
  shape): the task's known solution on the injected state (``--mock`` replays it for such a
  case), and the calls an agent that obeys the injection makes (for calibration agents).

An environment without ``check_attack`` accepts no ``injection_task`` and no ``injections``
(aau refuses such a case when the suite is loaded); a case whose attack has only a goal (the
case's own forbidden actions, the injected text in its ``input``) runs on any environment.

A session is used by one unit, from one thread at a time (aau serialises the calls of a unit);
sessions of different units may run concurrently, so an environment keeps no mutable state
outside its sessions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

import attrs


class EnvironmentCaseError(ValueError):
    """A case names a task or options its environment cannot run.

    Args:
        message: one line saying what is wrong (``"AgentDojo banking has no task 'user_task_99'"``).
        path: the JSON path under the case's ``environment`` object (``"$.task"``,
            ``"$.options.benchmark_version"``); the suite reader prefixes the case's path.
    """

    def __init__(self, message: str, path: str = "$") -> None:
        super().__init__(message)
        self.message = message
        self.path = path


@attrs.frozen(kw_only=True)
class ToolSpec:
    """One tool of an environment.

    Attributes:
        name: the tool's name, unique in the environment (``^[A-Za-z0-9_.-]{1,128}$``, what MCP
            and the providers accept).
        description: what the tool does, shown to the agent.
        input_schema: the JSON Schema (draft 2020-12) of the arguments object; its top-level
            ``type`` is ``"object"``.
    """

    name: str
    description: str
    input_schema: Mapping[str, Any]


@attrs.frozen(kw_only=True)
class ToolOutcome:
    """What one call returned.

    Attributes:
        ok: the call ran (``False``: a tool error; the state may still have changed if the
            environment says so in ``text``).
        text: what the agent is shown: the result rendered as text, or the error message.
        value: the result as a JSON value when the environment has one (MCP
            ``structuredContent`` when it is an object), else ``None``.
    """

    ok: bool
    text: str
    value: Any = None


@attrs.frozen(kw_only=True)
class ObservedCall:
    """One call aau observed, as it recorded it (the private receipt's trajectory item).

    Attributes:
        index: 0-based position among the unit's recorded calls.
        name: the tool name the agent sent (``""`` when none could be read).
        arguments: the arguments object the agent sent, or ``None`` when none could be read.
        ok: the environment ran the call and it succeeded (``executed``); a call refused by aau
            before the environment (``code`` set) or answered with a tool error is not ok.
        code: ``None`` for a call the environment answered; else why aau refused or failed it:
            ``tool-error`` (the environment answered with an error), ``environment-error`` (the
            environment raised), or one of the MCP failure codes of ``aau_adapters`` (unknown
            tool, invalid arguments, oversized request, call budget exceeded, ...).
        result: the text the agent was shown (result or error), or ``None``.
        started_s: seconds from the unit's start to the call's arrival (monotonic clock).
        duration_s: seconds aau spent answering it (validation and the environment's work).
    """

    index: int
    name: str
    arguments: Mapping[str, Any] | None
    ok: bool
    code: str | None
    result: str | None
    started_s: float
    duration_s: float

    @property
    def attempted(self) -> bool:
        """The agent asked for this tool (``name`` set), whether or not it ran."""
        return bool(self.name)


@attrs.frozen(kw_only=True)
class Attack:
    """The prompt injection a unit runs under, as its environment sees it (suite v3 ``attack``
    without its goal, which aau scores itself from the observed calls).

    Attributes:
        name: the attack's name (``"important_instructions"``), for messages and records.
        injection_task: the environment's injection task whose check decides success, or
            ``None`` (the case's goal of forbidden actions decides).
        injections: injection vector -> the text placed there (``{}``: none placed).
    """

    name: str
    injection_task: str | None = None
    injections: Mapping[str, str] = attrs.field(factory=dict)


@attrs.frozen(kw_only=True)
class EnvironmentVerdict:
    """An environment's judgement of one unit.

    Attributes:
        passed: the task was done, by the environment's own rule (AgentDojo's utility; τ²'s
            final database against the one the expected actions produce).
        reason: one line saying why (``"final database differs at $.tasks.task_2.status"``).
        detail: a JSON object with what the environment compared (private receipt only).
        attack_succeeded: for a session opened under an ``Attack`` with an injection task, the
            environment's check of that task (true: the attack reached its goal, AgentDojo's
            ``security``); ``None`` otherwise.
    """

    passed: bool
    reason: str
    detail: Mapping[str, Any] = attrs.field(factory=dict)
    attack_succeeded: bool | None = None


@runtime_checkable
class EnvironmentSession(Protocol):
    """One unit's live environment (module docstring, steps 3 to 6)."""

    def tools(self) -> Sequence[ToolSpec]:
        """The tools the agent may call, in a stable order."""
        ...

    def call(self, name: str, arguments: Mapping[str, Any]) -> ToolOutcome:
        """Run one call (``name`` is one of ``tools()``, ``arguments`` already checked against
        its schema) on this session's state."""
        ...

    def final_state(self) -> Any:
        """The state now, as a JSON value."""
        ...

    def score(self, calls: Sequence[ObservedCall], final_answer: str | None) -> EnvironmentVerdict:
        """The environment's verdict on the unit from its state and the observed ``calls``."""
        ...


@runtime_checkable
class Environment(Protocol):
    """An environment kind, registered under a name (``_registry``).

    Attributes:
        name: the registered name (``"agentdojo-banking"``, ``"tau2-mock"``).
        version: the version of what the environment runs (the package and data it comes
            from, ``"agentdojo 0.1.35 v1.2.2"``), recorded in the receipt's provenance.
    """

    name: str
    version: str

    def check_case(self, task: str, options: Mapping[str, Any]) -> None:
        """Refuse a task or options this environment cannot run.

        Raises:
            EnvironmentCaseError: naming the JSON path under the case's ``environment``.
        """
        ...

    def open(self, task: str, options: Mapping[str, Any]) -> EnvironmentSession:
        """A session on a fresh state for one unit of ``task``."""
        ...


__all__ = [
    "Attack", "Environment", "EnvironmentCaseError", "EnvironmentSession", "EnvironmentVerdict",
    "ObservedCall", "ToolOutcome", "ToolSpec",
]
