"""The arguments of ``run_evaluation`` checked with ``aau evaluate``'s option rules before
anything runs, and the two adapter settings a receipt records (timeout, retries) checked
against what the adapter applies."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from aau_core import UsageError

from ._adapter import Adapter
from ._receipt import FailUnder

FORMATS = ("aau-2.0", "aau-1.0")
"""The receipt formats ``run_evaluation`` writes: receipt 2.x, or aau-harness 1.x's 1.0."""


def check_adapter_timeout(adapter: Adapter, timeout_s: float) -> None:
    """Refuse an adapter that enforces another per-unit timeout than the receipt would record.

    ``CommandAdapter`` and ``EndpointAdapter`` enforce their own ``timeout_s``; the receipt records
    ``run_evaluation``'s. A receipt must not state a limit that was not applied, so the two must be
    equal (an adapter without a ``timeout_s``, such as the mock, has nothing to disagree with).

    Raises:
        aau_core.UsageError: the adapter's ``timeout_s`` is not ``timeout_s``.
    """
    enforced = getattr(adapter, "timeout_s", None)
    if enforced is not None and enforced != timeout_s:
        raise UsageError(f"the adapter enforces timeout_s={enforced:g} s but timeout_s={timeout_s:g}"
                         " s would be recorded in the receipt; give both the same value")


def _fraction(name: str, value: Any, *, zero_ok: bool) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value) or not (0.0 <= value if zero_ok else 0.0 < value) \
            or value > 1.0:
        span = "[0, 1]" if zero_ok else "(0, 1]"
        raise UsageError(f"{name} must be a number in {span}, not {value!r}")


def check_adapter_retries(adapter: Adapter, retries: int) -> None:
    """Refuse an adapter that retries another number of times than the run would record.

    ``EndpointAdapter`` retries infrastructure failures ``retries`` times (``--retries``); an
    adapter without a ``retries`` attribute (command, mock) retries nothing, which is 0. Like
    ``check_adapter_timeout``: the setting recorded must be the one applied.

    Raises:
        aau_core.UsageError: the adapter's ``retries`` (0 when it has none) is not ``retries``.
    """
    applied = getattr(adapter, "retries", 0)
    if applied != retries:
        kind = getattr(adapter, "kind", type(adapter).__name__)
        raise UsageError(f"the {kind} adapter retries {applied} time(s) but retries={retries} "
                         "would be recorded" + ("" if kind == "endpoint" else
                                                "; retries apply to an endpoint only"))


def check_evaluation_arguments(*, repeats: int, concurrency: int, timeout_s: float, format: str,  # noqa: A002
                               executor: str, fail_under: Sequence[FailUnder], retries: int = 0,
                               unmeasured_limit: float = 1.0, min_coverage: float = 1.0) -> None:
    """Refuse ``run_evaluation`` arguments before anything runs, with the command's rules.

    What ``aau evaluate``'s option types check (``--repeats`` >= 1, ``--concurrency`` in
    [1, 1024], ``--timeout`` a positive number of seconds, ``--retries`` >= 0, ``--format``,
    ``--executor``, ``--unmeasured-limit`` in (0, 1], ``--min-coverage`` in [0, 1]) and what
    ``parse_fail_under`` checks (a known rate metric, a bar in [0, 1], each metric once) hold
    for Python callers too, so no unit runs (no paid call is made) on
    arguments the receipt could not hold.

    Raises:
        aau_core.UsageError: the first argument that breaks its rule, named.
    """
    from ._receipt import FAIL_UNDER_METRICS as known

    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise UsageError(f"repeats must be an integer >= 1, not {repeats!r}")
    if isinstance(concurrency, bool) or not isinstance(concurrency, int) \
            or not 1 <= concurrency <= 1024:
        raise UsageError(f"concurrency must be an integer in [1, 1024], not {concurrency!r}")
    if isinstance(timeout_s, bool) or not isinstance(timeout_s, (int, float)) \
            or not math.isfinite(timeout_s) or timeout_s <= 0:
        raise UsageError(f"timeout_s must be a positive number of seconds, not {timeout_s!r}")
    if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
        raise UsageError(f"retries must be an integer >= 0, not {retries!r}")
    if format not in FORMATS:
        raise UsageError(f"format must be one of {', '.join(FORMATS)}, not {format!r}")
    if executor not in ("local", "ray"):
        raise UsageError(f"executor must be 'local' or 'ray', not {executor!r}")
    _fraction("unmeasured_limit", unmeasured_limit, zero_ok=False)
    _fraction("min_coverage", min_coverage, zero_ok=True)
    if isinstance(fail_under, (str, bytes)) or not isinstance(fail_under, Sequence):
        raise UsageError("fail_under must be a sequence of FailUnder(metric, threshold) bars, not "
                         f"{type(fail_under).__name__}")
    seen: set[str] = set()
    for bar in fail_under:
        if not isinstance(bar, FailUnder):
            raise UsageError(f"fail_under: each bar must be a FailUnder(metric, threshold), not "
                             f"{bar!r}")
        if bar.metric not in known:
            raise UsageError(f"fail_under: unknown metric {bar.metric!r}; one of "
                             + ", ".join(known))
        threshold = bar.threshold
        if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) \
                or not math.isfinite(threshold) or not 0.0 <= threshold <= 1.0:
            raise UsageError(f"fail_under: the bar of {bar.metric!r} must be a number in [0, 1], "
                             f"not {threshold!r}")
        if bar.metric in seen:
            raise UsageError(f"fail_under: {bar.metric!r} is given twice")
        seen.add(bar.metric)
