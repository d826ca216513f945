"""Errors shared by every aau package, and what exit code each one means.

Hierarchy::

    AauError (Exception)                exit_code 2 unless a subclass says otherwise
    ├── UsageError                      bad flags or flag values (empty --command, bad URL); exit 2
    ├── InputError                      an input file is unreadable or invalid; names the file and
    │                                   the JSON path; exit 2
    │   └── InvalidDocumentError        several violations at once, one line each; exit 2
    ├── OutputError                     an output cannot be written (exists without --force,
    │                                   folder missing, disk full); exit 2
    ├── BarNotMetError                  a quality bar (--fail-under) was not met; exit 1
    ├── NotMeasuredError                too few units were measured to report a number (the
    │                                   agent or the provider failed, not the answers); exit 3
    │   └── ProviderUnavailable         run_eval / labs: too many runs failed at the transport
    │                                   layer (_run/_guards.py)
    ├── Interrupted                     Ctrl-C or SIGTERM; carries what finished; exit 130
    ├── MetricError (also ValueError)   run_eval: a metric missing from some runs, or not a finite
    │                                   number; names the metric and the (scenario, repeat)s;
    │                                   defined in _run/_runner.py; exit 2
    └── BackendError                    a model backend failed (_agents/_backend_errors.py); exit 2
        ├── BackendConfigError          bad backend settings before any call
        │   ├── MissingCredentialError  the provider's API-key variable is not set
        │   └── MissingExtraError       an optional SDK is missing; names the pip install
        └── ProviderError               the provider did not answer (HTTP status, retries used up)
            └── StreamingRequiredError  the provider only answers streaming requests

Elsewhere, on the same base: ``aau_evidence.PackVerificationError`` (an InputError: a pack that does not verify, one line per
problem; its command exits 1).
Plain ``ValueError`` subclasses that the commands catch and name: ``ToolCallFormatError``
(_tool_calls/_expected.py), ``TraceError`` (_traces/_trace.py), ``aau_adapters.ResponseError``
and ``aau_adapters.ToolNameError``.

Exit codes (the one table, repeated in README.md and docs/evaluate.md):

====  =====================  ===========================================================
code  constant               meaning
====  =====================  ===========================================================
0     EXIT_OK                success (every bar holds)
1     EXIT_BAR_NOT_MET       a bar was not met, a check failed; the results are written
2     EXIT_USAGE             usage or input error; nothing written
3     EXIT_NOT_MEASURED      nothing (or too little) was measured: the agent, adapter or
                             provider failed, so no result is written as one (or a bar
                             cannot be judged: only units not measured make it fail)
70    EXIT_INTERNAL          internal error (a bug: run with --debug for the traceback)
130   EXIT_INTERRUPTED       interrupted (Ctrl-C or SIGTERM); finished units kept for
                             --resume
====  =====================  ===========================================================
"""

from __future__ import annotations

from typing import Any

EXIT_OK = 0
EXIT_BAR_NOT_MET = 1
EXIT_USAGE = 2
EXIT_NOT_MEASURED = 3
EXIT_INTERNAL = 70
EXIT_INTERRUPTED = 130


class AauError(Exception):
    """Base class of every expected aau error; ``str(err)`` is one line for the user."""

    exit_code: int = EXIT_USAGE


class UsageError(AauError):
    """A command-line flag or its value is wrong (exit 2)."""


class InputError(AauError):
    """An input file is unreadable or invalid (exit 2).

    Args:
        message: what is wrong.
        source: the file name (or ``"<stdin>"``), or ``None``.
        path: the JSON path (``"$.cases[3].input"``) of the offending value, or ``None``.

    ``str(err)`` is ``"source: path: message"`` with absent parts left out.
    """

    def __init__(self, message: str, *, source: str | None = None, path: str | None = None):
        self.message = message
        self.source = source
        self.path = path
        super().__init__(": ".join(p for p in (source, path, message) if p))


MAX_LISTED_VIOLATIONS = 10
"""The most violations an ``InvalidDocumentError`` lists; the rest are counted in a last line."""


class InvalidDocumentError(InputError):
    """A document breaks several rules; ``str(err)`` is one ``source: path: message`` line each.

    At most ``MAX_LISTED_VIOLATIONS`` lines are listed; when there are more, a last line says
    how many more there are and to run ``aau schema validate FILE`` to list them all.

    Args:
        violations: ``(json_path, message)`` pairs, at least one (all kept in ``.violations``).
        source: the file name, or ``None``.
    """

    def __init__(self, violations: list[tuple[str, str]], *, source: str | None = None):
        if not violations:
            raise ValueError("InvalidDocumentError needs at least one violation")
        self.violations = list(violations)
        path, message = self.violations[0]
        super().__init__(message, source=source, path=path)
        prefix = f"{source}: " if source else ""
        lines = [f"{prefix}{p}: {m}" for p, m in self.violations[:MAX_LISTED_VIOLATIONS]]
        more = len(self.violations) - MAX_LISTED_VIOLATIONS
        if more > 0:
            lines.append(f"{prefix}... and {more} more violation{'s' if more > 1 else ''}; run "
                         f"`aau schema validate {source or 'FILE'}` to list all")
        self.args = ("\n".join(lines),)

    def __str__(self) -> str:
        return str(self.args[0])


class OutputError(AauError):
    """An output file cannot be written (exit 2)."""


class BarNotMetError(AauError):
    """A quality bar was not met (exit 1)."""

    exit_code = EXIT_BAR_NOT_MET


class NotMeasuredError(AauError):
    """Too few units were measured for the run's numbers to be results (exit 3).

    Raised when the share of units that failed in the adapter or the transport (a command not
    found or exiting non-zero, a timeout, an unreachable endpoint, HTTP 429/5xx, ...) reaches
    the run's limit: the zeros would measure the agent's plumbing or the provider, not its
    answers. Nothing is written as a result; whatever keeps the reasons (a private receipt, a
    checkpoint) is kept.

    Args:
        message: one line saying what was not measured and why.
        not_measured: how many units were not measured.
        units: how many units ran.
        reason: a short code for why (``"not-measured"`` unless the raiser names one:
            ``"no-answer"``, ``"every-run-errored"``, ``"infrastructure"``, ...).
    """

    exit_code = EXIT_NOT_MEASURED

    def __init__(self, message: str, *, not_measured: int = 0, units: int = 0,
                 reason: str = "not-measured"):
        self.not_measured = not_measured
        self.units = units
        self.reason = reason
        super().__init__(message)

    def summary(self) -> dict[str, Any]:
        """What a command's ``--json`` prints for this non-measurement (``json_on_not_measured``):
        ``{"measured": False, "reason": code, "message": the one line, "not_measured": n,
        "units": n}``; a subclass adds what it knows."""
        return {"measured": False, "reason": self.reason, "message": str(self),
                "not_measured": self.not_measured, "units": self.units}


class Interrupted(AauError):
    """The run was interrupted (Ctrl-C or SIGTERM); ``finished`` holds the results that completed."""

    exit_code = EXIT_INTERRUPTED

    def __init__(self, message: str, finished: Any = None):
        self.finished = finished
        super().__init__(message)
