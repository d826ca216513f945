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

from ._cli import PluginGroup, cli, run
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
from ._io import atomic_write_json, atomic_write_text, check_writable, render_json
from ._provenance import package_version, platform_string, python_version, utc_timestamp
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
    "CI_METHODS",
    "EXIT_BAR_NOT_MET",
    "EXIT_INTERNAL",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_USAGE",
    "Z95",
    "AauError",
    "BarNotMetError",
    "EvalAggregate",
    "InputError",
    "Interrupted",
    "InvalidDocumentError",
    "MetricError",
    "OutputError",
    "PluginGroup",
    "ScenarioResult",
    "UsageError",
    "aggregate_results",
    "atomic_write_json",
    "atomic_write_text",
    "bootstrap_ci",
    "bootstrap_cis",
    "check_writable",
    "cli",
    "clustered_stderr",
    "compat_bootstrap_ci",
    "default_provenance",
    "loads_strict",
    "package_version",
    "pass_at_k",
    "pass_hat_k",
    "platform_string",
    "python_version",
    "read_json_file",
    "render_json",
    "render_report",
    "run",
    "run_eval",
    "run_units",
    "utc_timestamp",
    "wilson_interval",
]
