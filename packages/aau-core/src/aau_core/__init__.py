"""aau-core: the ``aau`` command root, execution layer, statistics, shared errors and file helpers.

Every public name is listed once, in ``_EXPORTS`` below (module -> names, grouped by
subpackage); ``__all__`` is derived from it and names load on first use (PEP 562), so ``aau``
start-up imports only what a command needs. Each subpackage's docstring says what lives there.
The list below and the ``TYPE_CHECKING`` imports are written by hand for readers and type
checkers; ``packages/aau-core/tests/test_public_api.py`` fails when either names other names than the table.

Public API::

    errors:      AauError, UsageError, InputError, InvalidDocumentError, OutputError,
                 BarNotMetError, NotMeasuredError, Interrupted,
                 EXIT_OK, EXIT_BAR_NOT_MET, EXIT_USAGE, EXIT_NOT_MEASURED, EXIT_INTERNAL,
                 EXIT_INTERRUPTED
    files:       loads_strict, read_json_file, check_document, schema_problems,
                 render_json, atomic_write_text, atomic_write_json, json_content,
                 check_parent, check_outputs, write_outputs,
                 write_folder, build_manifest, verify_manifest_dir, write_pack, check_pack_output,
                 intoto_statement, safe_slug, check_relative_path, check_relative_name,
                 terminal_text
    run:         run_units, ray_executor,
                 open_checkpoint, read_checkpoint, Checkpoint, checkpoint_writer,
                 checkpoint_json,
                 run_eval, aggregate_results, ScenarioResult, EvalAggregate, MetricError,
                 verify_result_files,
                 wilson_interval, pass_hat_k, pass_at_k, bootstrap_ci, compat_bootstrap_ci,
                 clustered_stderr, fleiss_kappa,
                 DelayedProgress,
                 snapshot, package_version, python_version, utc_timestamp,
                 ProviderUnavailable, provider_error_rate, check_results_are_measurements
    agents:      run_tool_agent, AgentRun, Block, MockUsage, Backend, make_backend,
                 BackendError, ProviderError, MissingExtraError,
                 CostTracker, register_pricing, register_pricing_file
    environments: Attack, Environment, EnvironmentSession, EnvironmentCaseError, EnvironmentVerdict,
                 ObservedCall, ToolOutcome, ToolSpec, environment_names, load_environment,
                 register_environment
    tool calls:  ToolCallFormatError, check_expected_calls, check_functions,
                 tool_call_contradictions, calls_from_bfcl, example_calls,
                 match_tool_calls, ToolCallMatch, normalize_tool_calls,
                 parse_tool_call_text, parse_tool_call_reply, ParsedReply
    reports:     check_receipt_consistency, receipt_metrics,
                 render_report, JUnitCase, JUnitSuite, render_junit, markdown_table,
                 load_report_document, render_html_report
    run store:   RunStore, RunSummary, record_run, record_run_or_warn, store_choice,
                 store_options, compare_runs, RunComparison
    trace gates: HarnessEvaluator, HarnessResult, harness_row_to_eval_case,
                 EvalSuite, EvalSuiteResult, EvalCase, EvalResult, EvalReport,
                 TraceError, schema_hash, import_harness_dir
    cli:         cli, run, json_option, force_option, out_option, print_json, json_on_not_measured,
                 parse_metric_bars

Internal to the monorepo (not public, may change): ``aau_core._lazy.lazy_exports``, which every
aau package's ``__init__`` uses for its own table, and every name of a private module that is
not listed above.
"""

# ruff: noqa: F401 - the TYPE_CHECKING imports re-export; test_public_api keeps them = _EXPORTS

from __future__ import annotations

from typing import TYPE_CHECKING

from ._lazy import lazy_exports as _lazy_exports

_EXPORTS: dict[str, tuple[str, ...]] = {
    # errors and exit codes
    "._errors": (
        "AauError",
        "UsageError",
        "InputError",
        "InvalidDocumentError",
        "OutputError",
        "BarNotMetError",
        "NotMeasuredError",
        "Interrupted",
        "EXIT_OK",
        "EXIT_BAR_NOT_MET",
        "EXIT_USAGE",
        "EXIT_NOT_MEASURED",
        "EXIT_INTERNAL",
        "EXIT_INTERRUPTED",
    ),
    # _files: strict JSON, writing, manifests and packs, safe paths, terminal text
    "._files._strict_json": ("loads_strict", "read_json_file"),
    "._files._document_check": ("check_document", "schema_problems"),
    "._files._staged_folder": ("write_folder",),
    "._files._writing": (
        "render_json",
        "atomic_write_text",
        "atomic_write_json",
        "json_content",
        "check_parent",
        "check_outputs",
        "write_outputs",
    ),
    "._files._manifest": (
        "build_manifest",
        "verify_manifest_dir",
        "write_pack",
        "check_pack_output",
        "intoto_statement",
    ),
    "._files._safe_path": ("safe_slug", "check_relative_path", "check_relative_name"),
    "._files._terminal": ("terminal_text",),
    # _run: execution, checkpoints, the runner, statistics, progress, provenance, guards
    "._run._execution": ("run_units",),
    "._run._ray_executor": ("ray_executor",),
    "._run._checkpoint": (
        "open_checkpoint",
        "read_checkpoint",
        "Checkpoint",
        "checkpoint_writer",
        "checkpoint_json",
    ),
    "._run._runner": (
        "run_eval",
        "ScenarioResult",
        "EvalAggregate",
        "MetricError",
    ),
    "._run._aggregation": ("aggregate_results",),
    "._run._statistics": (
        "wilson_interval",
        "pass_hat_k",
        "pass_at_k",
        "bootstrap_ci",
        "compat_bootstrap_ci",
        "clustered_stderr",
        "fleiss_kappa",
    ),
    "._run._verify": ("verify_result_files",),
    "._run._progress": ("DelayedProgress",),
    "._run._provenance": (
        "snapshot",
        "package_version",
        "python_version",
        "utc_timestamp",
    ),
    "._run._guards": (
        "ProviderUnavailable",
        "provider_error_rate",
        "check_results_are_measurements",
    ),
    # _agents: the agent loop, backends and their errors, cost
    "._agents._loop": ("run_tool_agent", "AgentRun", "Block", "MockUsage", "Backend"),
    "._agents._backends": ("make_backend",),
    "._agents._backend_errors": ("BackendError", "ProviderError", "MissingExtraError"),
    "._agents._cost": ("CostTracker", "register_pricing", "register_pricing_file"),
    # _environments: the observed-environment contract and environments by name
    "._environments._contract": (
        "Attack",
        "Environment",
        "EnvironmentSession",
        "EnvironmentCaseError",
        "EnvironmentVerdict",
        "ObservedCall",
        "ToolOutcome",
        "ToolSpec",
    ),
    "._environments._registry": ("environment_names", "load_environment", "register_environment"),
    # _tool_calls: expected calls and their checks, matching, calls written as text
    "._tool_calls._expected": (
        "ToolCallFormatError",
        "check_expected_calls",
        "check_functions",
        "tool_call_contradictions",
        "calls_from_bfcl",
        "example_calls",
    ),
    "._tool_calls._matching": ("match_tool_calls", "ToolCallMatch", "normalize_tool_calls"),
    "._tool_calls._text": ("parse_tool_call_text", "parse_tool_call_reply", "ParsedReply"),
    # _reports: receipt consistency, Markdown, JUnit, scenario reports, HTML
    "._reports._receipt_consistency": (
        "check_receipt_consistency",
        "receipt_metrics",
    ),
    "._reports._aggregate_markdown": ("render_report",),
    "._reports._junit": ("JUnitCase", "JUnitSuite", "render_junit"),
    "._reports._markdown_table": ("markdown_table",),
    "._reports._scenarios": ("load_report_document",),
    "._reports._html": ("render_html_report",),
    # _store: the run store and run comparison
    "._store._run_store": ("RunStore", "RunSummary"),
    "._store._recording": ("record_run", "record_run_or_warn", "store_choice"),
    "._store._options": ("store_options",),
    "._store._compare": ("compare_runs", "RunComparison"),
    # _traces: trace gates, eval suites and reports, trace import
    "._traces._harness_eval": ("HarnessEvaluator", "HarnessResult", "harness_row_to_eval_case"),
    "._traces._eval_suite": ("EvalSuite", "EvalSuiteResult"),
    "._traces._eval_report": ("EvalCase", "EvalResult", "EvalReport"),
    "._traces._trace": ("TraceError", "schema_hash"),
    "._traces._harness_import": ("import_harness_dir",),
    # _cli: the aau group, the options every command shares, METRIC=VALUE bars
    "._cli._group": ("cli", "run"),
    "._cli._options": ("json_option", "force_option", "out_option", "print_json",
                       "json_on_not_measured"),
    "._cli._metric_bars": ("parse_metric_bars",),
}

__all__ = sorted(name for names in _EXPORTS.values() for name in names)
__version__ = "2.0.0.dev0"

__getattr__, __dir__ = _lazy_exports(
    __name__, {name: module for module, names in _EXPORTS.items() for name in names})


if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs; a test keeps it = _EXPORTS
    from ._agents._backend_errors import BackendError, MissingExtraError, ProviderError
    from ._agents._backends import make_backend
    from ._agents._cost import CostTracker, register_pricing, register_pricing_file
    from ._agents._loop import AgentRun, Backend, Block, MockUsage, run_tool_agent
    from ._cli._group import cli, run
    from ._cli._metric_bars import parse_metric_bars
    from ._cli._options import (
        force_option,
        json_on_not_measured,
        json_option,
        out_option,
        print_json,
    )
    from ._environments._contract import (
        Attack,
        Environment,
        EnvironmentCaseError,
        EnvironmentSession,
        EnvironmentVerdict,
        ObservedCall,
        ToolOutcome,
        ToolSpec,
    )
    from ._environments._registry import environment_names, load_environment, register_environment
    from ._errors import (
        EXIT_BAR_NOT_MET,
        EXIT_INTERNAL,
        EXIT_INTERRUPTED,
        EXIT_NOT_MEASURED,
        EXIT_OK,
        EXIT_USAGE,
        AauError,
        BarNotMetError,
        InputError,
        Interrupted,
        InvalidDocumentError,
        NotMeasuredError,
        OutputError,
        UsageError,
    )
    from ._files._document_check import check_document, schema_problems
    from ._files._manifest import (
        build_manifest,
        check_pack_output,
        intoto_statement,
        verify_manifest_dir,
        write_pack,
    )
    from ._files._safe_path import check_relative_name, check_relative_path, safe_slug
    from ._files._staged_folder import write_folder
    from ._files._strict_json import loads_strict, read_json_file
    from ._files._terminal import terminal_text
    from ._files._writing import (
        atomic_write_json,
        atomic_write_text,
        check_outputs,
        check_parent,
        json_content,
        render_json,
        write_outputs,
    )
    from ._reports._aggregate_markdown import render_report
    from ._reports._html import render_html_report
    from ._reports._junit import JUnitCase, JUnitSuite, render_junit
    from ._reports._markdown_table import markdown_table
    from ._reports._receipt_consistency import check_receipt_consistency, receipt_metrics
    from ._reports._scenarios import load_report_document
    from ._run._aggregation import aggregate_results
    from ._run._checkpoint import (
        Checkpoint,
        checkpoint_json,
        checkpoint_writer,
        open_checkpoint,
        read_checkpoint,
    )
    from ._run._execution import run_units
    from ._run._guards import (
        ProviderUnavailable,
        check_results_are_measurements,
        provider_error_rate,
    )
    from ._run._progress import DelayedProgress
    from ._run._provenance import package_version, python_version, snapshot, utc_timestamp
    from ._run._ray_executor import ray_executor
    from ._run._runner import (
        EvalAggregate,
        MetricError,
        ScenarioResult,
        run_eval,
    )
    from ._run._statistics import (
        bootstrap_ci,
        clustered_stderr,
        compat_bootstrap_ci,
        fleiss_kappa,
        pass_at_k,
        pass_hat_k,
        wilson_interval,
    )
    from ._run._verify import verify_result_files
    from ._store._compare import RunComparison, compare_runs
    from ._store._options import store_options
    from ._store._recording import record_run, record_run_or_warn, store_choice
    from ._store._run_store import RunStore, RunSummary
    from ._tool_calls._expected import (
        ToolCallFormatError,
        calls_from_bfcl,
        check_expected_calls,
        check_functions,
        example_calls,
        tool_call_contradictions,
    )
    from ._tool_calls._matching import ToolCallMatch, match_tool_calls, normalize_tool_calls
    from ._tool_calls._text import ParsedReply, parse_tool_call_reply, parse_tool_call_text
    from ._traces._eval_report import EvalCase, EvalReport, EvalResult
    from ._traces._eval_suite import EvalSuite, EvalSuiteResult
    from ._traces._harness_eval import HarnessEvaluator, HarnessResult, harness_row_to_eval_case
    from ._traces._harness_import import import_harness_dir
    from ._traces._trace import TraceError, schema_hash
