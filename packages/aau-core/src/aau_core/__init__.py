"""aau-core: the ``aau`` command root, execution layer, statistics, shared errors and file helpers.

Public API::

    errors      AauError, UsageError, InputError, InvalidDocumentError, OutputError, BarNotMetError, Interrupted,
                EXIT_OK, EXIT_BAR_NOT_MET, EXIT_USAGE, EXIT_INTERRUPTED, EXIT_INTERNAL
    files       loads_strict, read_json_file, render_json, atomic_write_text, atomic_write_json,
                check_writable
    execution   run_units
    statistics  wilson_interval, pass_hat_k, pass_at_k, bootstrap_ci, Z95
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
from ._statistics import Z95, bootstrap_ci, pass_at_k, pass_hat_k, wilson_interval
from ._strict_json import loads_strict, read_json_file

__version__ = "2.0.0.dev0"

__all__ = [
    "EXIT_BAR_NOT_MET",
    "EXIT_INTERNAL",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_USAGE",
    "Z95",
    "AauError",
    "BarNotMetError",
    "InputError",
    "Interrupted",
    "InvalidDocumentError",
    "OutputError",
    "PluginGroup",
    "UsageError",
    "atomic_write_json",
    "atomic_write_text",
    "bootstrap_ci",
    "check_writable",
    "cli",
    "loads_strict",
    "package_version",
    "pass_at_k",
    "pass_hat_k",
    "platform_string",
    "python_version",
    "read_json_file",
    "render_json",
    "run",
    "run_units",
    "utc_timestamp",
    "wilson_interval",
]
