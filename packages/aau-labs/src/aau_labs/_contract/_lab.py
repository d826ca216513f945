"""The contract lab ("contract"): evaluation and the ``LabSpec`` the ``aau lab`` command reads.

The lab measures the structure a compiled contract promises — conjunctive gates (Decision Gate),
independently surviving rights (Rights Continuity) or a critical-event fan-out (Critical Event
Fan-Out) — on seeded fictional cases. Its concepts live in sibling modules:

- ``_config``: ``ContractConfig``, ``load_contract_config``, families and flags;
- ``_scenarios``: ``CompiledContract``, ``ContractScenario``,
  ``generate_contract_scenarios``, scenario (de)serialisation;
- ``_tools``: policy, system prompt, tool schemas, ``ContractToolSession``;
- ``_scoring``: ``score_contract_run``;
- ``_mock``: ``ContractMockBackend``.

**Headline metric.** The family decides the headline (``decision_gate_exact``,
``rights_continuity_exact``, ``critical_event_fanout_exact``; ``ContractConfig.headline_metric``):
``LAB.headline_for(config)`` returns it, and ``aau lab run`` and ``write_lab_result`` record and
print it. Every run also carries ``contract_exact``, always equal to the family's headline: one
name for the lab's exactness whatever the family, so a bar (``--fail-under contract_exact=0.8``)
or a script comparing contract labs of several families need not know each family's metric.
``LAB.headline_metric`` is ``contract_exact`` (the name without a config); ``lab_spec_for(config)``
returns the spec with the family's own name as ``headline_metric``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs
from aau_core import AgentRun, EvalAggregate

from .._frame._lab_run import decision_detail, evaluate_tool_lab, lab_evaluate
from .._frame._lab_spec import LabSpec
from ._config import (
    CONFIG_KIND,
    SCENARIOS_KIND,
    ContractConfig,
    as_contract_config,
    load_contract_config,
)
from ._mock import ContractMockBackend
from ._scenarios import (
    ContractScenario,
    contract_scenario_from_dict,
    contract_scenario_to_dict,
    generate_contract_scenarios,
)
from ._scoring import CONTRACT_EXACT, score_contract_run
from ._tools import (
    SUBMIT_TOOL,
    ContractToolSession,
    build_contract_system_prompt,
    build_contract_tool_schemas,
)


def evaluate_contract(
    config: ContractConfig | Mapping[str, Any],
    scenarios: Sequence[ContractScenario],
    mock_factory: Callable[[], Any] | None = None,
    backend_kind: str = "mock",
    model: str | None = None,
    repeats: int = 3,
    progress: Callable[[str], None] | None = None,
) -> EvalAggregate:
    """Run an agent on every scenario ``repeats`` times and score each run.

    The parameters are aau-harness 1.6's, in its order (``mock_factory`` third).

    Each run: a fresh ``ContractToolSession``, ``run_tool_agent`` with the lab's prompt and
    tools (submit tool ``submit_contract_record``), ``score_contract_run``, and a
    ``ScenarioResult`` whose ``detail`` holds ``archetype``, ``contract_family``, ``contract``
    (gold), ``predicted`` (submitted outcome and reason), ``trace``
    (``ContractToolSession.trace()``), ``tool_calls``, ``n_turns``, ``agent_error`` (why the
    agent loop ended without a submission, else ``None``), ``refused``, ``reasoning`` and
    ``usage`` (``CostTracker.as_dict()``). The key is not 1.6's ``error``: the runner reads
    ``detail["error"]`` as "this unit raised" (not measured: counted in ``n_errors``), whereas
    an agent that never submits is scored (0 on ``action_completion`` and the headline).

    Divergence from 1.6: an exception from the backend is not turned into a zero-scored run; it
    propagates to ``run_eval``, which records the unit as errored (``detail["error"]``): a
    failure of every 0/1 metric, never a pass, and when every unit failed at the transport
    layer the run is a non-measurement (``ProviderUnavailable``) — a provider outage is not a
    score.

    Args:
        config: a ``ContractConfig`` or a ``contract-config`` document.
        scenarios: the scenarios (``generate_contract_scenarios`` or a scenario file).
        mock_factory: for ``"mock"``, a no-argument backend factory (default: a
            ``ContractMockBackend`` of ``config``).
        backend_kind: ``"mock"`` or a ``make_backend`` kind.
        model: the model id (``None``: the provider's default).
        repeats: runs per scenario (>= 1).
        progress: per-run progress callback (``run_eval``).

    Returns:
        the ``EvalAggregate`` (costs in USD, latencies in seconds).

    Raises:
        InputError: an invalid config document.
        whatever ``make_backend`` raises (unknown kind, missing key, ...).
        MetricError: see ``run_eval``.
    """
    cfg = as_contract_config(config)

    def detail(scenario: ContractScenario, run: AgentRun, session: ContractToolSession,
               submission: dict[str, Any]) -> dict[str, Any]:
        return {
            "contract_family": cfg.family,
            "contract": scenario.compiled_contract.as_dict(),
            **decision_detail(run, session, submission),
        }

    return evaluate_tool_lab(
        scenarios, backend_kind=backend_kind, model=model,
        mock_factory=mock_factory or (lambda: ContractMockBackend(cfg)),
        system_prompt=build_contract_system_prompt(cfg),
        tool_schemas=build_contract_tool_schemas(cfg), submit_tool=SUBMIT_TOOL,
        new_session=lambda scenario: ContractToolSession(cfg, scenario),
        score=score_contract_run, detail=detail, repeats=repeats, progress=progress)


def _load(doc: dict[str, Any]) -> ContractConfig:
    return load_contract_config(doc)


def _generate(config: ContractConfig, n: int, seed: int | None) -> list[ContractScenario]:
    return generate_contract_scenarios(config, n, seed)


LAB = LabSpec(
    name="contract",
    config_kind=CONFIG_KIND,
    scenarios_kind=SCENARIOS_KIND,
    headline_metric=CONTRACT_EXACT,
    load_config=_load,
    generate=_generate,
    scenario_to_dict=contract_scenario_to_dict,
    scenario_from_dict=contract_scenario_from_dict,
    evaluate=lab_evaluate(evaluate_contract),
    headline_of=lambda config: as_contract_config(config).headline_metric,
)
"""The contract lab; its headline is the config family's metric, ``LAB.headline_for(config)``
(module docstring)."""


def lab_spec_for(config: ContractConfig | Mapping[str, Any]) -> LabSpec:
    """``LAB`` with ``headline_metric`` set to the config family's headline metric.

    Raises:
        InputError: an invalid config document.
    """
    return attrs.evolve(LAB, headline_metric=as_contract_config(config).headline_metric)
