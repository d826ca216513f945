"""Which units of an ``aau evaluate`` run measured the agent: failure classes and coverage.

The one rule, shared by the writer (``aau_adapters``: receipts, ``run_evaluation``'s
non-measurement) and every reader (``check_receipt_consistency``, ``aau report``), so a receipt
means the same to both.

Every adapter failure code belongs to one class (``failure_class``)::

    agent           the agent answered and the answer is what failed: adapter-invalid-response,
                    adapter-http-<4xx> of a request the agent read and refused (400, 409, 422,
                    ...), and every outcome code. A measurement.
    adapter         the agent could not be asked or did not answer: adapter-not-found,
                    adapter-exit-<rc>, adapter-timeout, adapter-protocol-error,
                    adapter-internal-error, and the HTTP statuses that say the request never
                    reached the agent (a 3xx redirect and ``WIRING_STATUSES``: 401/403/407 no
                    or a wrong credential, 404/405/410 a wrong path or method, 408, 411, 413,
                    414, 415, 421, 426, 431 a server that would not take the request). Not a
                    measurement of the agent's answers.
    infrastructure  the transport or a provider in front of the agent failed: adapter-unreachable,
                    adapter-http-429, adapter-http-5xx; or the harness could not open or score
                    the case's environment: environment-unavailable. Not a measurement, counted
                    apart.

``environment-unavailable`` stands where an adapter failure code stands (first on the row, at
most one per unit): ``row_adapter_code`` reads it as the unit's harness failure.

A receipt v2.1's ``coverage`` counts the units that measured the agent (``receipt_coverage``):
``{"units", "measured", "not_measured", "adapter_failures", "infrastructure_failures", "rate"}``
with ``rate = round(measured / units, 6)``. A run is a *non-measurement* (no receipt is written,
exit 3) when ``not_measured / units >= unmeasured_limit`` or when infrastructure failures are
more than half of the units (``non_measurement``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

AGENT = "agent"
ADAPTER = "adapter"
INFRASTRUCTURE = "infrastructure"
FAILURE_CLASSES = (AGENT, ADAPTER, INFRASTRUCTURE)
"""The classes of ``failure_class``, in the order reports list them."""

NEGATIVE_CHECK_METRICS = ("no_forbidden_attempt_rate", "no_forbidden_execute_rate")
"""The receipt rates of negative checks ("the agent did not do X"): a unit whose answer was
never read cannot show them, so their ``--fail-under`` bars also need coverage."""

ENVIRONMENT_UNAVAILABLE_CODE = "environment-unavailable"
"""The unit's environment raised when it was opened or scored: an infrastructure failure."""

USER_SIMULATOR_UNAVAILABLE_CODE = "user-simulator-unavailable"
"""A conversation's simulated user could not answer (its model backend failed): an
infrastructure failure, never the agent's."""

_ADAPTER_CLASS = frozenset({"adapter-not-found", "adapter-timeout", "adapter-protocol-error",
                            "adapter-internal-error"})

WIRING_STATUSES = frozenset({401, 403, 404, 405, 407, 408, 410, 411, 413, 414, 415, 421, 426,
                             431})
"""HTTP statuses (besides every 3xx) that say the request never reached the agent's answer
(RFC 9110 §15): no or a wrong credential (401, 403, 407), a wrong path or method (404, 405, 410
gone), a server that would not take the request as sent (408 too slow, 411, 413 too large, 414,
415 not JSON, 421, 426, 431). Their ``adapter-http-<status>`` is class ``adapter``: a token that expired
halfway through a run, or a resume without its ``--header``, never scores the agent."""


def failure_class(code: str | None) -> str | None:
    """The class of a unit's adapter failure code: what the unit measured.

    Args:
        code: a failure code (``"adapter-http-503"``), or ``None`` for a unit whose adapter
            answered.

    Returns:
        ``None`` for ``None``; ``"infrastructure"`` for ``adapter-unreachable``,
        ``adapter-http-429``, ``adapter-http-5xx``, ``environment-unavailable`` and
        ``user-simulator-unavailable``; ``"adapter"`` for ``adapter-not-found``,
        ``adapter-exit-*``, ``adapter-timeout``, ``adapter-protocol-error``,
        ``adapter-internal-error`` and ``adapter-http-<status>`` of a 3xx or a
        ``WIRING_STATUSES`` status; ``"agent"`` for everything else (an invalid response, any
        other HTTP status, the outcome codes): the agent answered, so the unit is measured.
    """
    if code is None:
        return None
    if code in ("adapter-unreachable", "adapter-http-429", ENVIRONMENT_UNAVAILABLE_CODE,
                USER_SIMULATOR_UNAVAILABLE_CODE) or (
            code.startswith("adapter-http-5") and len(code) == len("adapter-http-500")):
        return INFRASTRUCTURE
    if code in _ADAPTER_CLASS or code.startswith("adapter-exit-"):
        return ADAPTER
    status = code.removeprefix("adapter-http-")
    if status != code and status.isdigit() and (status.startswith("3")
                                                or int(status) in WIRING_STATUSES):
        return ADAPTER
    return AGENT


def is_measured(code: str | None) -> bool:
    """True when a unit with this adapter failure code (or ``None``) measured the agent's
    answer: its class is neither ``"adapter"`` nor ``"infrastructure"``."""
    return failure_class(code) in (None, AGENT)


def row_adapter_code(row: Mapping[str, Any]) -> str | None:
    """A receipt row's adapter failure code: its first failure code when that is an
    ``adapter-*`` code, ``environment-unavailable`` or ``user-simulator-unavailable`` (a unit's
    harness failure is always listed first), else ``None``."""
    codes = row.get("failure_codes") or ()
    if codes and (codes[0].startswith("adapter-")
                  or codes[0] in (ENVIRONMENT_UNAVAILABLE_CODE, USER_SIMULATOR_UNAVAILABLE_CODE)):
        return codes[0]
    return None


def receipt_coverage(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The coverage of a run from its receipt rows (their failure codes, not a stored
    ``measured`` flag, so a reader can check that flag against it).

    Args:
        rows: public receipt rows (1.0, 2.0 or 2.1), at least one.

    Returns:
        ``{"units": N, "measured": M, "not_measured": N - M, "adapter_failures": a,
        "infrastructure_failures": i, "rate": round(M / N, 6)}`` (a + i = N - M).
    """
    classes = [failure_class(row_adapter_code(row)) for row in rows]
    units = len(rows)
    adapter = classes.count(ADAPTER)
    infrastructure = classes.count(INFRASTRUCTURE)
    measured = units - adapter - infrastructure
    return {"units": units, "measured": measured, "not_measured": units - measured,
            "adapter_failures": adapter, "infrastructure_failures": infrastructure,
            "rate": round(measured / units, 6) if units else 0.0}


def non_measurement(coverage: Mapping[str, Any], unmeasured_limit: float) -> str | None:
    """Why a run with this coverage is not a measurement, or ``None`` when it is one.

    Args:
        coverage: ``receipt_coverage``'s dict.
        unmeasured_limit: the share of not-measured units (in (0, 1]) at or above which the run
            measured too little (``--unmeasured-limit``; 1.0 = only when no unit was measured).

    Returns:
        ``"limit"`` when ``not_measured / units >= unmeasured_limit``; ``"infrastructure"`` when
        infrastructure failures are more than half of the units (a run that is mostly an
        outage is never "bar not met"); else ``None``.
    """
    units = coverage["units"]
    if units and coverage["not_measured"] / units >= unmeasured_limit:
        return "limit"
    if 2 * coverage["infrastructure_failures"] > units:
        return "infrastructure"
    return None
