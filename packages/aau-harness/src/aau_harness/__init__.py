"""aau_harness: the aau-harness 1.x Python namespace, kept working by the aau umbrella package.

Programs written against aau-harness 1.x (``from aau_harness import run_eval, render_report, ...``)
run unchanged: every name below is re-exported from the package that now holds it. New code may
import from those packages directly (``aau_core``, ``aau_labs``, ``aau_adapters``).

Every 1.x name is listed once, in ``_EXPORTS`` below (providing module -> names); ``__all__`` is
derived from it. A few 1.x names are no longer public in ``aau_core`` (its API is smaller); they
come from the private module that holds them, so 1.x programs keep working. Names load on first
use (PEP 562), so ``import aau_harness`` stays cheap and a name whose package is missing fails
with a message saying which distribution to install.
"""

from __future__ import annotations

from aau_core._lazy import lazy_exports

_EXPORTS: dict[str, tuple[str, ...]] = {
    "aau_core": (
        # runner and reports
        "run_eval",
        "EvalAggregate",
        "ScenarioResult",
        "render_report",
        # statistics
        "bootstrap_ci",
        "compat_bootstrap_ci",
        "wilson_interval",
        "pass_hat_k",
        "pass_at_k",
        "clustered_stderr",
        # cost
        "CostTracker",
        "register_pricing",
        # agent loop and backends
        "run_tool_agent",
        "AgentRun",
        "Block",
        "MockUsage",
        "make_backend",
        # provenance and guards
        "ProviderUnavailable",
        "provider_error_rate",
        "check_results_are_measurements",
        "snapshot",
        # trace gates (PraisonAI HarnessEvaluator-compatible) and eval reports
        "HarnessEvaluator",
        "HarnessResult",
        "harness_row_to_eval_case",
        "EvalSuite",
        "EvalSuiteResult",
        "EvalReport",
        "EvalResult",
        "EvalCase",
    ),
    # 1.x names that aau_core no longer exports
    "aau_core._agents._cost": ("pricing_table",),
    "aau_core._agents._anthropic": ("AnthropicBackend",),
    "aau_core._agents._openai_compat": ("OpenAICompatBackend",),
    "aau_core._agents._backends": ("PROVIDERS",),
    "aau_core._agents._backend_errors": ("StreamingRequiredError",),
    "aau_core._run._provenance": ("register_backend", "is_floating", "harness_version"),
    "aau_labs": (
        # multi-agent, report fidelity, public-value contracts
        "Specialist",
        "DelegationRecord",
        "CrewRun",
        "make_delegate_tool",
        "run_crew",
        "ReportFidelity",
        "ReportSpec",
        "check_report",
        "claims_success",
        "PublicValueContract",
        "PublicValueTrace",
        "score_public_value",
        # contract runtime (Forge 2 labs)
        "CompiledContract",
        "ContractScenario",
        "ContractToolSession",
        "build_contract_policy",
        "build_contract_system_prompt",
        "build_contract_tool_schemas",
        "generate_contract_scenarios",
        "score_contract_run",
        "evaluate_contract",
        # decision gates
        "ARCHETYPE_ORDER",
        "GateContract",
        "GateScenario",
        "GateToolSession",
        "GateMockBackend",
        "build_gate_policy",
        "build_gate_system_prompt",
        "build_gate_tool_schemas",
        "generate_gate_scenarios",
        "score_gate_run",
        "evaluate_gate",
    ),
    "aau_adapters": (
        # bring-your-own-agent evaluation
        "load_suite",
        "normalize_response",
        "evaluate",
    ),
}

# top-level package -> the distribution that installs it
_DISTRIBUTION = {"aau_core": "aau-core", "aau_adapters": "aau-adapters", "aau_labs": "aau-labs"}

__all__ = sorted(name for names in _EXPORTS.values() for name in names)
__version__ = "2.0.0.dev0"

__getattr__, __dir__ = lazy_exports(
    __name__,
    {name: module for module, names in _EXPORTS.items() for name in names},
    install_hint={module: _DISTRIBUTION[module.split(".")[0]] for module in _EXPORTS},
)
