"""The decision-gate lab: evaluate an agent on fictional, human-owned decision gates.

Pieces (one concept per module)::

    _gate_contract   GateContract, GateScenario, load_gate_config, generate_gate_scenarios,
                     gate_scenario_from_dict, PROTECTED_TOOL, SUBMIT_TOOL, TERMINAL_KEYS
    _tools           build_gate_policy, search_gate_policy, build_gate_tool_schemas,
                     build_gate_system_prompt
    _session         GateToolSession
    _score           score_gate_run, GATE_METRICS, HEADLINE_METRIC
    _mock            GateMockBackend
    _lab (here)      evaluate_gate, save_gate_results, save_gate_scenarios, load_gate_scenarios,
                     LAB (the LabSpec named "decision-gate")

Nothing here is an operational compliance engine: every generated world is fictional and the
protected decision always stays with the accountable person the domain names.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from aau_core import AgentRun, EvalAggregate

from .._frame._lab_run import decision_detail, evaluate_tool_lab, lab_evaluate
from .._frame._lab_spec import LabSpec, read_scenarios, write_lab_result, write_scenarios
from ._gate_contract import (
    SUBMIT_TOOL,
    GateScenario,
    gate_scenario_from_dict,
    generate_gate_scenarios,
    load_gate_config,
)
from ._mock import GateMockBackend
from ._score import HEADLINE_METRIC, score_gate_run
from ._session import GateToolSession
from ._tools import build_gate_system_prompt, build_gate_tool_schemas

MAX_TURNS = 8


def evaluate_gate(
    config: dict[str, Any],
    scenarios: Sequence[GateScenario],
    mock_factory: Callable[[], Any] | None = None,
    backend_kind: str = "mock",
    model: str | None = None,
    repeats: int = 3,
    progress: Callable[[str], None] | None = None,
) -> EvalAggregate:
    """Run every scenario ``repeats`` times through ``run_tool_agent`` and score each run.

    Each run gets a fresh ``GateToolSession`` and ``CostTracker`` (priced for the backend's
    model); its ``ScenarioResult.detail`` holds ``archetype``, ``contract``, ``predicted``
    (submitted outcome and reason code), ``trace`` (``GateToolSession.trace()``),
    ``tool_calls``, ``n_turns``, ``agent_error`` (why nothing was submitted, or ``None``),
    ``reasoning`` and ``usage`` (``CostTracker.as_dict()``).

    Divergence from aau-harness 1.6: 1.6 stored the agent's no-submission reason under
    ``detail["error"]``, which aau's runner reads as "this run raised"; here it is
    ``agent_error`` and the run is scored (as a failure). An exception from the backend (a
    provider outage) is not caught: the runner records that run as errored (a failure of every
    0/1 metric, counted in ``n_errors``), raises ``ProviderUnavailable`` when every run failed
    at the transport layer, and ``check_results_are_measurements`` refuses a real backend's
    result at half.

    Args:
        config: a loaded gate config.
        scenarios: the cases.
        mock_factory: builds the mock backend; default ``GateMockBackend(config)``.
        backend_kind: ``"mock"`` or a ``make_backend`` kind.
        model: the model id (``None``: the provider's default).
        repeats: runs per scenario.
        progress: called with one line per finished run.

    Returns:
        the ``EvalAggregate`` (metrics: ``GATE_METRICS`` and ``decision_gate_exact``).

    Raises:
        whatever ``make_backend`` raises (unknown kind, missing key or SDK).
    """
    def detail(scenario: GateScenario, run: AgentRun, session: GateToolSession,
               submission: dict[str, Any]) -> dict[str, Any]:
        return {
            "contract": scenario.gate_contract,
            **decision_detail(run, session, submission),
        }

    return evaluate_tool_lab(
        scenarios, backend_kind=backend_kind, model=model,
        mock_factory=(mock_factory if mock_factory is not None
                      else (lambda: GateMockBackend(config))),
        system_prompt=build_gate_system_prompt(config),
        tool_schemas=build_gate_tool_schemas(config), submit_tool=SUBMIT_TOOL,
        new_session=lambda scenario: GateToolSession(config, scenario),
        score=score_gate_run, detail=detail, repeats=repeats, progress=progress,
        max_turns=MAX_TURNS)


LAB = LabSpec(
    name="decision-gate",
    config_kind="gate-config",
    scenarios_kind="gate-scenarios",
    headline_metric=HEADLINE_METRIC,
    load_config=load_gate_config,
    generate=lambda config, n, seed: generate_gate_scenarios(config, n, seed),
    scenario_to_dict=GateScenario.as_dict,
    scenario_from_dict=gate_scenario_from_dict,
    evaluate=lab_evaluate(evaluate_gate),
)
"""The decision-gate lab for ``aau lab``."""


def save_gate_scenarios(scenarios: Sequence[GateScenario], path: str | os.PathLike[str],
                        config: dict[str, Any], seed: int | None = None, *,
                        force: bool = False) -> Path:
    """Write a gate-scenarios file (``write_scenarios``): validated, atomic.

    Divergence from aau-harness 1.6, which wrote JSON Lines without config or seed: the file is
    the lab scenario-file document, so ``config`` is required (its digest is recorded).

    Args:
        scenarios: the cases.
        path: the file.
        config: the gate config document they were generated from.
        seed: the seed used (``None``: the config's).
        force: replace an existing file.
    """
    return write_scenarios(path, LAB, config, scenarios, seed, len(scenarios), force=force)


def load_gate_scenarios(path: str | os.PathLike[str],
                        config: dict[str, Any] | None = None) -> list[GateScenario]:
    """Read a gate-scenarios file (``read_scenarios``); with ``config``, check it was generated
    from that config.

    Raises:
        InputError: see ``read_scenarios``.
    """
    return read_scenarios(path, LAB, config_doc=config)


def save_gate_results(aggregate: EvalAggregate, backend_kind: str, model: str | None,
                      out_dir: str | os.PathLike[str], config: dict[str, Any], *,
                      force: bool = False) -> tuple[Path, Path]:
    """Write ``eval_<tag>.json`` (kind ``lab-result``) and ``eval_<tag>.md`` (``write_lab_result``).

    Divergence from aau-harness 1.6: the JSON is the lab-result document (its ``aggregate`` is
    1.6's ``{"backend", "model", **as_dict()}``), so ``config`` is required for its digest, and
    an existing file is refused without ``force``.
    """
    return write_lab_result(out_dir, LAB, aggregate, backend_kind, model, config, force=force)
