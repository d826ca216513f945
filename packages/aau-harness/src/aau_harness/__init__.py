"""aau_harness: the aau-harness 1.x Python namespace, kept working by the aau umbrella package.

Programs written against aau-harness 1.x (``from aau_harness import run_eval, render_report, ...``)
run unchanged: every name below is re-exported from the package that now holds it. New code may
import from those packages directly (``aau_core``, ``aau_adapters``, ``aau_schemas``).

Names load on first use (PEP 562), so ``import aau_harness`` stays cheap and a name whose package
is missing fails with a message saying which distribution to install.
"""

from __future__ import annotations

from aau_core import lazy_exports

# name -> module that provides it
_EXPORTS: dict[str, str] = {
    # runner and reports
    "run_eval": "aau_core",
    "EvalAggregate": "aau_core",
    "ScenarioResult": "aau_core",
    "render_report": "aau_core",
    # statistics
    "bootstrap_ci": "aau_core",
    "compat_bootstrap_ci": "aau_core",
    "wilson_interval": "aau_core",
    "pass_hat_k": "aau_core",
    "pass_at_k": "aau_core",
    "clustered_stderr": "aau_core",
    # cost
    "CostTracker": "aau_core",
    "register_pricing": "aau_core",
    "pricing_table": "aau_core",
    # agent loop and backends
    "run_tool_agent": "aau_core",
    "AgentRun": "aau_core",
    "Block": "aau_core",
    "MockUsage": "aau_core",
    "make_backend": "aau_core",
    "AnthropicBackend": "aau_core",
    "OpenAICompatBackend": "aau_core",
    "PROVIDERS": "aau_core",
    "StreamingRequiredError": "aau_core",
    # provenance and guards
    "ProviderUnavailable": "aau_core",
    "provider_error_rate": "aau_core",
    "check_results_are_measurements": "aau_core",
    "snapshot": "aau_core",
    "register_backend": "aau_core",
    "is_floating": "aau_core",
    "harness_version": "aau_core",
    # trace gates (PraisonAI HarnessEvaluator-compatible) and eval reports
    "HarnessEvaluator": "aau_core",
    "HarnessResult": "aau_core",
    "harness_row_to_eval_case": "aau_core",
    "EvalSuite": "aau_core",
    "EvalSuiteResult": "aau_core",
    "EvalReport": "aau_core",
    "EvalResult": "aau_core",
    "EvalCase": "aau_core",
    # multi-agent, report fidelity, public-value contracts
    "Specialist": "aau_labs",
    "DelegationRecord": "aau_labs",
    "CrewRun": "aau_labs",
    "make_delegate_tool": "aau_labs",
    "run_crew": "aau_labs",
    "ReportFidelity": "aau_labs",
    "ReportSpec": "aau_labs",
    "check_report": "aau_labs",
    "claims_success": "aau_labs",
    "PublicValueContract": "aau_labs",
    "PublicValueTrace": "aau_labs",
    "score_public_value": "aau_labs",
    # contract runtime (Forge 2 labs)
    "CompiledContract": "aau_labs",
    "ContractScenario": "aau_labs",
    "ContractToolSession": "aau_labs",
    "build_contract_policy": "aau_labs",
    "build_contract_system_prompt": "aau_labs",
    "build_contract_tool_schemas": "aau_labs",
    "generate_contract_scenarios": "aau_labs",
    "score_contract_run": "aau_labs",
    "evaluate_contract": "aau_labs",
    # decision gates
    "ARCHETYPE_ORDER": "aau_labs",
    "GateContract": "aau_labs",
    "GateScenario": "aau_labs",
    "GateToolSession": "aau_labs",
    "GateMockBackend": "aau_labs",
    "build_gate_policy": "aau_labs",
    "build_gate_system_prompt": "aau_labs",
    "build_gate_tool_schemas": "aau_labs",
    "generate_gate_scenarios": "aau_labs",
    "score_gate_run": "aau_labs",
    "evaluate_gate": "aau_labs",
    # bring-your-own-agent evaluation
    "load_suite": "aau_adapters",
    "normalize_response": "aau_adapters",
    "evaluate": "aau_adapters",
}

_DISTRIBUTION = {"aau_core": "aau-core", "aau_adapters": "aau-adapters", "aau_labs": "aau-labs"}

__all__ = sorted(_EXPORTS)
__version__ = "2.0.0.dev0"


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, install_hint=_DISTRIBUTION)
