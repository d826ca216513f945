"""aau-labs: what aau drives through its own agent loop in a tool environment.

The domain labs (decision gate, contract runtime, evidence service; ``aau lab``), crews, report
fidelity, public-value contracts and the AgentDojo bench (``aau bench agentdojo``; needs the extra
``aau-labs[agentdojo]``). An agent you already have is measured with ``aau evaluate`` instead.

Every public name is listed once, in ``_EXPORTS`` below (module -> names); ``__all__`` is derived
from it and names load on first use.
"""

from __future__ import annotations

from aau_core._lazy import lazy_exports

_EXPORTS: dict[str, tuple[str, ...]] = {
    "._crew": (
        "CrewRun",
        "DelegationRecord",
        "Specialist",
        "make_delegate_tool",
        "run_crew",
    ),
    "._report_fidelity": (
        "INCOMPLETE_TERMS",
        "ReportFidelity",
        "ReportSpec",
        "SUCCESS_TERMS",
        "check_report",
        "claims_success",
    ),
    "._public_value": (
        "PUBLIC_VALUE_COMPONENTS",
        "PublicValueContract",
        "PublicValueTrace",
        "score_public_value",
    ),
    "._service._lab": (
        "ServiceMockBackend",
        "ServiceToolSession",
        "evaluate_service",
        "score_service_run",
    ),
    "._service._world": (
        "ServiceConfig",
        "ServiceScenario",
        "generate_service_scenarios",
        "load_service_config",
    ),
    "._contract._config": (
        "ContractConfig",
        "load_contract_config",
    ),
    "._contract._scenarios": (
        "CompiledContract",
        "ContractScenario",
        "generate_contract_scenarios",
    ),
    "._contract._tools": (
        "build_contract_policy",
        "build_contract_system_prompt",
        "build_contract_tool_schemas",
        "ContractToolSession",
    ),
    "._contract._mock": (
        "ContractMockBackend",
    ),
    "._contract._scoring": (
        "score_contract_run",
    ),
    "._contract._lab": (
        "evaluate_contract",
    ),
    "._frame._lab_spec": (
        "ARCHETYPE_ORDER",
        "LabSpec",
        "keyword_search",
    ),
    "._frame._registry": (
        "get_lab",
        "lab_for_config_kind",
    ),
    "._gate._gate_contract": (
        "GateContract",
        "GateScenario",
        "load_gate_config",
        "generate_gate_scenarios",
    ),
    "._gate._tools": (
        "build_gate_policy",
        "build_gate_system_prompt",
        "build_gate_tool_schemas",
    ),
    "._gate._session": (
        "GateToolSession",
    ),
    "._gate._mock": (
        "GateMockBackend",
    ),
    "._gate._score": (
        "score_gate_run",
    ),
    "._gate._lab": (
        "evaluate_gate",
        "save_gate_results",
        "save_gate_scenarios",
        "load_gate_scenarios",
    ),
    "._agentdojo._suite": (
        "AGENTDOJO_SUITES",
        "AgentDojoSession",
        "AgentDojoSuite",
        "AgentDojoTask",
    ),
    "._agentdojo._replay": (
        "GroundTruthReplay",
    ),
    "._agentdojo._bench": (
        "run_agentdojo_bench",
        "write_bench_result",
    ),
}

__all__ = sorted(name for names in _EXPORTS.values() for name in names)
__version__ = "2.0.0.dev0"

__getattr__, __dir__ = lazy_exports(
    __name__, {name: module for module, names in _EXPORTS.items() for name in names})
