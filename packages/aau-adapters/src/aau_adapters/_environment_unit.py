"""One unit of an environment case: open the environment, serve it over MCP, ask the agent,
close the channel, score from what aau observed.

Steps (``run_environment_unit``), for a case whose ``environment`` names a registered
environment (``aau_core.load_environment``):

1. ``load_environment(name).open(task, options)``: a session on a fresh state; for a case
   under an attack that places injections or names an injection task,
   ``open_under_attack(task, options, attack)`` instead (the injected text in the state).
2. ``tool_server().open_unit(session, max_calls=..., label=...)``: the unit's MCP URL and token
   (``aau_adapters._mcp``; the process's one server, or the Ray worker's own).
3. ``build_request(suite_id, case, mcp=channel)`` (request 1.1) sent through the adapter; for
   a case with a simulated user, the conversation instead (``_conversation.converse``,
   request 1.2), whose transcript goes in the record.
4. ``channel.close()`` (whatever the adapter did): the ``UnitRecord`` of calls and rejected
   requests; afterwards the URL answers "ended".
5. ``session.final_state()`` and ``session.score(record.calls, final answer)``.
6. ``_observed_scoring.score_observed``.

An environment that raises when it is loaded, opened, asked for its state or scored makes that
unit an ``environment-unavailable`` unit (an infrastructure failure, not a measurement: the run
goes on, a resume runs it again); the calls recorded before stay in its private row.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from aau_core import load_environment

from . import _failure_codes as fc
from ._adapter import Adapter, AdapterAnswer
from ._conversation import converse
from ._observed_scoring import EnvironmentRecord, score_observed
from ._protocol import build_request
from ._scoring import UnitResult
from ._suite import Case


def _default_server() -> Any:
    # lazy: the MCP server stack loads only for environment cases
    from ._mcp._server import tool_server

    return tool_server()


def _unavailable(case: Case, repeat: int, record: EnvironmentRecord, detail: str,
                 latency_s: float = 0.0) -> UnitResult:
    answer = AdapterAnswer(None, fc.ENVIRONMENT_UNAVAILABLE, latency_s, detail=detail[:500])
    row, _ = score_observed(case, answer, record.calls, record.rejected, None)
    row["repeat"] = repeat
    return UnitResult(case=case, repeat=repeat, answer=answer, row=row, environment=record)


def _why(what: str, exc: BaseException) -> str:
    return f"environment {what}: {type(exc).__name__}: {exc}"


def run_environment_unit(suite_id: str, case: Case, repeat: int, adapter: Adapter, *,
                         server: Callable[[], Any] = _default_server,
                         user_backend: Callable[[], Any] | None = None) -> UnitResult:
    """Run and score one ``(case, repeat)`` unit of an environment case (module docstring).

    Args:
        suite_id: the suite's id (sent in the request).
        case: a case with ``environment`` set.
        repeat: the repeat index (0-based).
        adapter: the agent connection.
        server: returns the ``ToolServer`` to open the unit on (default: this process's
            ``aau_adapters._mcp.tool_server()``).
        user_backend: for a case with a model user, ``() -> (backend, model_or_None)``
            (``_simulated_user.make_user``); ``None`` = the run chose none.

    Returns:
        the ``UnitResult``, with ``environment`` (the ``EnvironmentRecord``) set.

    Raises:
        nothing for an environment's failure (an ``environment-unavailable`` unit); an
        exception of the adapter or the MCP server propagates (the executor records the unit
        as ``adapter-internal-error``).
    """
    spec = case.environment
    assert spec is not None, "run_environment_unit needs a case with an environment"
    record = EnvironmentRecord(name=spec.name)
    try:
        environment = load_environment(spec.name)
        if case.attack is not None and case.attack.needs_injection_support:
            session = environment.open_under_attack(spec.task, dict(spec.options),
                                                    case.attack.environment_attack)
        else:
            session = environment.open(spec.task, dict(spec.options))
    except Exception as exc:  # an environment's failure is its unit's, never the run's
        return _unavailable(case, repeat, record, _why(f"{spec.name} could not open "
                                                       f"{spec.task!r}", exc))
    channel = server().open_unit(session, max_calls=spec.max_calls,
                                 label=f"{case.scenario_id}#{repeat}")
    conversation = None
    try:
        if case.user is not None:  # a conversation with a simulated user (_conversation)
            conversation = converse(suite_id, case, adapter, channel, user_backend)
            answer = conversation.answer
        else:
            answer = adapter.invoke(build_request(suite_id, case, mcp=channel), case)
    finally:
        unit = channel.close()
    transcript = conversation.document() if conversation is not None else None
    record = EnvironmentRecord(name=spec.name, calls=tuple(unit.calls),
                               rejected=tuple(unit.rejected), conversation=transcript)
    try:
        final_state = session.final_state()
        final_answer = None
        if answer.error is None and answer.response is not None:
            final_answer = answer.response.get("outcome")
        verdict = session.score(record.calls, final_answer)
    except Exception as exc:
        return _unavailable(case, repeat, record, _why(f"{spec.name} could not score the unit",
                                                       exc), answer.latency_s)
    record = EnvironmentRecord(name=spec.name, calls=record.calls, rejected=record.rejected,
                               final_state=final_state, verdict=verdict,
                               conversation=record.conversation)
    row, tool_match = score_observed(case, answer, record.calls, record.rejected, verdict)
    row["repeat"] = repeat
    return UnitResult(case=case, repeat=repeat, answer=answer, row=row, tool_match=tool_match,
                      environment=record)


def suite_environments(cases: Any) -> tuple[tuple[str, str], ...]:
    """The environments a suite's cases name, with their versions, sorted by name.

    Args:
        cases: the suite's cases.

    Returns:
        ``((name, version), ...)``; an environment that cannot be loaded any more (it was when
        the suite was read) has version ``"unavailable"``.
    """
    out = {}
    for case in cases:
        spec = getattr(case, "environment", None)
        if spec is None or spec.name in out:
            continue
        try:
            out[spec.name] = str(load_environment(spec.name).version) or "unavailable"
        except Exception:  # recorded, not fatal: the units of that environment say why
            out[spec.name] = "unavailable"
    return tuple(sorted(out.items()))
