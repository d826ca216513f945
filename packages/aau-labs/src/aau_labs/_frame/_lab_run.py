"""The run every tool-using lab shares: one scenario x repeat -> ``run_tool_agent`` -> a scored
``ScenarioResult``, over all scenarios with ``run_eval``; and ``lab_evaluate``, the
``LabSpec.evaluate`` of a lab's ``evaluate_*``.

The decision-gate, contract and evidence-service labs differ only in their tools (a session
object), their prompt and tool schemas, their scorer and the lab-specific part of each result's
``detail``; ``evaluate_tool_lab`` does the rest the same way for all three:

- the backend is ``make_backend(backend_kind, model, mock_factory=mock_factory)``; costs are
  priced for its ``model`` (``"mock"`` when it has none) by aau-core's one rule
  (``cost_model_for``): a ``local`` model nobody priced is declared at $0 (recorded in
  ``usage.price_declared``), any other unpriced model is refused before any run;
- each run gets a fresh ``CostTracker`` and session (``new_session(scenario)``), runs
  ``run_tool_agent(backend, system_prompt, tool_schemas, scenario.case_text, session,
  submit_tool, cost, max_turns)`` and is scored by ``score(scenario, run, session)``;
- its ``detail`` is ``{"archetype", **detail(scenario, run, session, submission), "tool_calls",
  "tool_input_flags", "n_turns", "agent_error", "usage"}`` where ``submission`` is the
  submitted dict (``{}`` when nothing was submitted), ``tool_calls`` every tool name called in
  order (1.6's list), ``tool_input_flags`` the calls whose arguments the strict decoder refused
  or recovered (``tool_input_flags``: the reason is kept), ``agent_error`` why the agent loop
  ended without a submission (else ``None``) and ``usage`` ``CostTracker.as_dict()``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from aau_core import (
    AgentRun,
    CostTracker,
    EvalAggregate,
    ScenarioResult,
    make_backend,
    run_eval,
    run_tool_agent,
)


def evaluate_tool_lab(
    scenarios: Sequence[Any],
    *,
    backend_kind: str,
    model: str | None,
    mock_factory: Callable[[], Any],
    system_prompt: str,
    tool_schemas: list[dict[str, Any]],
    submit_tool: str,
    new_session: Callable[[Any], Any],
    score: Callable[[Any, AgentRun, Any], dict[str, float]],
    detail: Callable[[Any, AgentRun, Any, dict[str, Any]], dict[str, Any]],
    repeats: int = 3,
    progress: Callable[[str], None] | None = None,
    max_turns: int = 8,
) -> EvalAggregate:
    """Run the agent on every scenario ``repeats`` times and score each run (module docstring).

    Args:
        scenarios: the lab's scenarios; each has ``scenario_id``, ``case_text`` and
            ``archetype``.
        backend_kind: ``"mock"`` or a ``make_backend`` kind.
        model: the model id (``None``: the provider's default).
        mock_factory: builds the lab's mock backend (used when ``backend_kind == "mock"``).
        system_prompt, tool_schemas, submit_tool: what ``run_tool_agent`` is given.
        new_session: scenario -> a fresh tool session (``session(name, input) -> str``, with a
            ``calls`` list of the tool names called).
        score: ``(scenario, run, session)`` -> metric name -> value in [0, 1].
        detail: ``(scenario, run, session, submission)`` -> the lab's own ``detail`` keys.
        repeats: runs per scenario (>= 1).
        progress: per-run progress callback (``run_eval``).
        max_turns: most agent turns per run.

    Returns:
        the ``EvalAggregate`` (costs in USD, latencies in seconds).

    Raises:
        whatever ``make_backend`` raises (unknown kind, missing credentials, ...).
        UnknownModelPricingError: a model with no price that is not ``local`` (before any run).
        MetricError: see ``run_eval``.
    """
    from aau_core._agents._cost import cost_model_for  # internal to the monorepo

    backend = make_backend(backend_kind, model, mock_factory=mock_factory)
    cost_model = cost_model_for(backend, backend_kind)  # before any run: never a $0 guess

    def run_one(scenario: Any, repeat: int) -> ScenarioResult:
        cost = CostTracker(model=cost_model)
        session = new_session(scenario)
        started = time.monotonic()
        run = run_tool_agent(backend, system_prompt, tool_schemas, scenario.case_text, session,
                             submit_tool, cost, max_turns=max_turns)
        submission = run.submission if isinstance(run.submission, dict) else {}
        return ScenarioResult(
            scenario_id=scenario.scenario_id,
            repeat=repeat,
            metrics=score(scenario, run, session),
            cost_usd=cost.cost_usd,
            latency_s=time.monotonic() - started,
            n_api_calls=cost.api_calls,
            detail={
                "archetype": scenario.archetype,
                **detail(scenario, run, session, submission),
                "tool_calls": list(session.calls),
                "tool_input_flags": tool_input_flags(run),
                "n_turns": run.n_turns,
                "agent_error": run.error,
                "usage": cost.as_dict(),
            },
        )

    return run_eval(list(scenarios), run_one, repeats=repeats, progress=progress)


def tool_input_flags(run: AgentRun) -> list[dict[str, Any]]:
    """The calls of ``run`` whose arguments the backend's strict decoder refused or recovered,
    with the decoder's words (``AgentRun.tool_calls``' ``input_error`` / ``input_recovered``).

    Returns:
        in call order, ``{"call": <0-based index in run.tool_calls>, "name": str, "id": <the
        provider's id>, "input_error": str}`` for refused arguments (the tool got
        ``{"_unparseable": raw}``) or ``{..., "input_recovered": str}`` for the one recovery;
        ``[]`` when every call's arguments decoded cleanly.
    """
    out: list[dict[str, Any]] = []
    for index, call in enumerate(run.tool_calls):
        for flag in ("input_error", "input_recovered"):
            if call.get(flag):
                out.append({"call": index, "name": call["name"], "id": call.get("id"),
                            flag: str(call[flag])})
    return out


def decision_detail(run: AgentRun, session: Any, submission: dict[str, Any]) -> dict[str, Any]:
    """The ``detail`` keys the decision-gate and contract labs record alike: ``predicted``
    (the submitted ``outcome`` and ``reason_code``, ``None`` when absent), ``trace``
    (``session.trace()``), ``refused`` and ``reasoning`` (the submission's, ``""`` when
    absent)."""
    return {
        "predicted": {"outcome": submission.get("outcome"),
                      "reason_code": submission.get("reason_code")},
        "trace": session.trace(),
        "refused": run.refused,
        "reasoning": submission.get("reasoning", ""),
    }


def lab_evaluate(evaluate: Callable[..., EvalAggregate]) -> Callable[..., EvalAggregate]:
    """The ``LabSpec.evaluate`` of a lab's public ``evaluate_*`` function.

    Args:
        evaluate: ``evaluate_gate`` / ``evaluate_contract`` / ``evaluate_service``, called in
            aau-harness 1.6's positional order ``(config, scenarios, mock_factory,
            backend_kind, model, repeats, progress)``.

    Returns:
        ``(config, scenarios, *, backend_kind="mock", model=None, repeats=3, progress=None)``
        -> ``EvalAggregate``: the lab run with its own mock (``mock_factory=None``).
    """
    def evaluate_lab(config: Any, scenarios: Sequence[Any], *, backend_kind: str = "mock",
                     model: str | None = None, repeats: int = 3,
                     progress: Callable[[str], None] | None = None) -> EvalAggregate:
        return evaluate(config, scenarios, None, backend_kind, model, repeats, progress)

    return evaluate_lab


__all__ = ["decision_detail", "evaluate_tool_lab", "lab_evaluate", "tool_input_flags"]
