"""aau-core: the ``aau`` command root, execution layer, statistics, shared errors and file helpers.

Public API::

    errors      AauError, UsageError, InputError, InvalidDocumentError, OutputError, BarNotMetError, Interrupted,
                EXIT_OK, EXIT_BAR_NOT_MET, EXIT_USAGE, EXIT_INTERRUPTED, EXIT_INTERNAL
    files       loads_strict, read_json_file, render_json, atomic_write_text, atomic_write_json,
                check_writable
    execution   run_units
    runner      run_eval, aggregate_results, ScenarioResult, EvalAggregate, MetricError,
                default_provenance, AGGREGATE_VERSION, CI_METHODS
    report      render_report
    statistics  wilson_interval, pass_hat_k, pass_at_k, bootstrap_ci, bootstrap_cis,
                compat_bootstrap_ci, clustered_stderr, Z95
    provenance  package_version, python_version, platform_string, utc_timestamp
    cli         cli (the click group), run(argv) -> exit code, PluginGroup
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Names load on first use (PEP 562): `aau` start-up imports only what a command needs.
_EXPORTS = {
    "AGGREGATE_VERSION": "._runner",
    "AauError": "._errors",
    "AgentRun": "._agent_loop",
    "AnthropicBackend": "._anthropic_backend",
    "Backend": "._agent_loop",
    "BackendConfigError": "._backend_errors",
    "BackendError": "._backend_errors",
    "BarNotMetError": "._errors",
    "Block": "._agent_loop",
    "CI_METHODS": "._runner",
    "CostTracker": "._cost",
    "EXIT_BAR_NOT_MET": "._errors",
    "EXIT_INTERNAL": "._errors",
    "EXIT_INTERRUPTED": "._errors",
    "EXIT_OK": "._errors",
    "EXIT_USAGE": "._errors",
    "EvalAggregate": "._runner",
    "FLOATING_MARKERS": "._provenance",
    "InputError": "._errors",
    "Interrupted": "._errors",
    "InvalidDocumentError": "._errors",
    "MetricError": "._runner",
    "MissingCredentialError": "._backend_errors",
    "MissingExtraError": "._backend_errors",
    "MockUsage": "._agent_loop",
    "ModelPrice": "._cost",
    "ModelResponse": "._openai_compat",
    "NO_SUBMISSION_ERROR": "._agent_loop",
    "OpenAICompatBackend": "._openai_compat",
    "OutputError": "._errors",
    "PROVIDERS": "._backends",
    "PluginGroup": "._cli",
    "PricingError": "._cost",
    "ProviderError": "._backend_errors",
    "ProviderSpec": "._openai_compat",
    "ProviderUnavailable": "._guards",
    "ScenarioResult": "._runner",
    "StreamingRequiredError": "._backend_errors",
    "TRANSPORT_ERROR_PATTERN": "._guards",
    "UnknownBackendError": "._backend_errors",
    "UnknownModelPricingError": "._cost",
    "UsageError": "._errors",
    "Z95": "._statistics",
    "active_backend": "._provenance",
    "aggregate_results": "._runner",
    "atomic_write_json": "._io",
    "atomic_write_text": "._io",
    "backend_kinds": "._backends",
    "base_url_env": "._backends",
    "bootstrap_ci": "._statistics",
    "bootstrap_cis": "._statistics",
    "check_results_are_measurements": "._guards",
    "check_writable": "._io",
    "cli": "._cli",
    "clustered_stderr": "._statistics",
    "compat_bootstrap_ci": "._statistics",
    "default_provenance": "._runner",
    "harness_version": "._provenance",
    "is_floating": "._provenance",
    "is_transport_error": "._guards",
    "loads_strict": "._strict_json",
    "make_backend": "._backends",
    "package_version": "._provenance",
    "pass_at_k": "._statistics",
    "pass_hat_k": "._statistics",
    "platform_string": "._provenance",
    "price_for": "._cost",
    "pricing_table": "._cost",
    "provider_error_rate": "._guards",
    "python_version": "._provenance",
    "read_json_file": "._strict_json",
    "register_backend": "._provenance",
    "register_pricing": "._cost",
    "register_pricing_file": "._cost",
    "render_json": "._io",
    "render_report": "._report",
    "run": "._cli",
    "run_eval": "._runner",
    "run_tool_agent": "._agent_loop",
    "run_units": "._execution",
    "shipped_pricing": "._cost",
    "snapshot": "._provenance",
    "turn_limit_error": "._agent_loop",
    "utc_timestamp": "._provenance",
    "wilson_interval": "._statistics",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'aau_core' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
    from ._agent_loop import (
        NO_SUBMISSION_ERROR,
        AgentRun,
        Backend,
        Block,
        MockUsage,
        run_tool_agent,
        turn_limit_error,
    )
    from ._anthropic_backend import AnthropicBackend
    from ._backend_errors import (
        BackendConfigError,
        BackendError,
        MissingCredentialError,
        MissingExtraError,
        ProviderError,
        StreamingRequiredError,
        UnknownBackendError,
    )
    from ._backends import PROVIDERS, backend_kinds, base_url_env, make_backend
    from ._cli import PluginGroup, cli, run
    from ._cost import (
        CostTracker,
        ModelPrice,
        PricingError,
        UnknownModelPricingError,
        price_for,
        pricing_table,
        register_pricing,
        register_pricing_file,
        shipped_pricing,
    )
    from ._errors import (
        EXIT_BAR_NOT_MET,
        EXIT_INTERNAL,
        EXIT_INTERRUPTED,
        EXIT_OK,
        EXIT_USAGE,
        AauError,
        BarNotMetError,
        InputError,
        Interrupted,
        InvalidDocumentError,
        OutputError,
        UsageError,
    )
    from ._execution import run_units
    from ._guards import (
        TRANSPORT_ERROR_PATTERN,
        ProviderUnavailable,
        check_results_are_measurements,
        is_transport_error,
        provider_error_rate,
    )
    from ._io import atomic_write_json, atomic_write_text, check_writable, render_json
    from ._openai_compat import ModelResponse, OpenAICompatBackend, ProviderSpec
    from ._provenance import (
        FLOATING_MARKERS,
        active_backend,
        harness_version,
        is_floating,
        package_version,
        platform_string,
        python_version,
        register_backend,
        snapshot,
        utc_timestamp,
    )
    from ._report import render_report
    from ._runner import (
        AGGREGATE_VERSION,
        CI_METHODS,
        EvalAggregate,
        MetricError,
        ScenarioResult,
        aggregate_results,
        default_provenance,
        run_eval,
    )
    from ._statistics import (
        Z95,
        bootstrap_ci,
        bootstrap_cis,
        clustered_stderr,
        compat_bootstrap_ci,
        pass_at_k,
        pass_hat_k,
        wilson_interval,
    )
    from ._strict_json import loads_strict, read_json_file

__version__ = "2.0.0.dev0"

__all__ = [
    "AGGREGATE_VERSION",
    "AauError",
    "AgentRun",
    "AnthropicBackend",
    "Backend",
    "BackendConfigError",
    "BackendError",
    "BarNotMetError",
    "Block",
    "CI_METHODS",
    "CostTracker",
    "EXIT_BAR_NOT_MET",
    "EXIT_INTERNAL",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_USAGE",
    "EvalAggregate",
    "FLOATING_MARKERS",
    "InputError",
    "Interrupted",
    "InvalidDocumentError",
    "MetricError",
    "MissingCredentialError",
    "MissingExtraError",
    "MockUsage",
    "ModelPrice",
    "ModelResponse",
    "NO_SUBMISSION_ERROR",
    "OpenAICompatBackend",
    "OutputError",
    "PROVIDERS",
    "PluginGroup",
    "PricingError",
    "ProviderError",
    "ProviderSpec",
    "ProviderUnavailable",
    "ScenarioResult",
    "StreamingRequiredError",
    "TRANSPORT_ERROR_PATTERN",
    "UnknownBackendError",
    "UnknownModelPricingError",
    "UsageError",
    "Z95",
    "active_backend",
    "aggregate_results",
    "atomic_write_json",
    "atomic_write_text",
    "backend_kinds",
    "base_url_env",
    "bootstrap_ci",
    "bootstrap_cis",
    "check_results_are_measurements",
    "check_writable",
    "cli",
    "clustered_stderr",
    "compat_bootstrap_ci",
    "default_provenance",
    "harness_version",
    "is_floating",
    "is_transport_error",
    "loads_strict",
    "make_backend",
    "package_version",
    "pass_at_k",
    "pass_hat_k",
    "platform_string",
    "price_for",
    "pricing_table",
    "provider_error_rate",
    "python_version",
    "read_json_file",
    "register_backend",
    "register_pricing",
    "register_pricing_file",
    "render_json",
    "render_report",
    "run",
    "run_eval",
    "run_tool_agent",
    "run_units",
    "shipped_pricing",
    "snapshot",
    "turn_limit_error",
    "utc_timestamp",
    "wilson_interval",
]
