"""Guards that keep transport failures from being published as an agent's score.

A wrong answer is a measurement. A 401, a 429 storm or a DNS failure is not: the run never reached
the model, so its zero measures the provider, not the agent. Results record the reason a run
failed in ``detail["error"]`` (the agent loop's ``AgentRun.error``, or a backend exception's
text); these guards classify that text with ``TRANSPORT_ERROR_PATTERN`` and refuse to go on when
too many runs failed at the transport layer.

Agent failures — "ended turn without submitting a decision", "no submission within 8 turns", a
refusal, a malformed tool call (``tool_use_failed``) — never match the pattern and stay scored as
misses.

The two limits (docs/runner.md, "Non-measurement", says both in one place; each refuses when
``provider_error_rate(results) >= limit`` and raises ``ProviderUnavailable``, exit 3, before any
result file is written):

- ``RUN_EVAL_UNMEASURED_LIMIT`` (1.0): ``run_eval(unmeasured_limit=...)``'s default, for every
  caller, mocks included: a run in which every unit failed at the transport layer returns no
  aggregate;
- ``PUBLISH_UNMEASURED_LIMIT`` (0.5): ``check_results_are_measurements``' default, what the
  commands that publish a real backend's results (``aau lab run --backend``, ``aau bench
  agentdojo --backend``) apply on top: half or more of the runs lost to the provider is an
  outage, not a score.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .._errors import NotMeasuredError

TRANSPORT_ERROR_PATTERN: re.Pattern[str] = re.compile(
    r"HTTP[^0-9]{0,12}(4\d\d|5\d\d)"
    r"|Unauthorized|Forbidden|Payment\s*Required|RemoteDisconnected|ConnectionError"
    r"|Timed?\s*out|Too\s*Many\s*Requests|SSLError|NameResolution|Quota"
    r"|invalid\s+response\s+from",
    re.IGNORECASE,
)
"""Case-insensitive pattern (searched, not matched) that marks an error text as a transport
failure: an HTTP 4xx/5xx status written as ``HTTP`` followed within 12 non-digit characters by
the code (``"HTTP 401"``, ``"HTTP error 503"``, ``"http status: 429"``; not ``"HTTP/1.1 429"``,
whose version digits stop the search), or one of ``Unauthorized``, ``Forbidden``,
``Payment Required``, ``RemoteDisconnected``, ``ConnectionError``, ``Timeout``/``Timed out``,
``Too Many Requests``, ``SSLError``, ``NameResolution``, ``Quota``, ``invalid response from``
(a malformed reply from a model server). aau-harness 1.6's pattern (``runner.py``) plus that
last alternative, so both classify a stored result alike. aau-core's backend
errors (``ProviderError``) are worded so that they match it."""


RUN_EVAL_UNMEASURED_LIMIT = 1.0
"""``run_eval``'s default ``unmeasured_limit``: refuse only when every run failed at the transport
layer."""
PUBLISH_UNMEASURED_LIMIT = 0.5
"""``check_results_are_measurements``' default threshold: what a command publishing a real
backend's results refuses (half or more of the runs failed at the transport layer)."""


class ProviderUnavailable(NotMeasuredError, RuntimeError):
    """Too many runs failed at the transport layer: the numbers measure the provider, not the
    agent (exit 3, a non-measurement).

    Args:
        rate: the fraction of runs that failed at the transport layer, in [0, 1].
        threshold: the limit it reached, in (0, 1].
        results: the runs (``run_eval`` attaches every finished ``ScenarioResult``, so the run
            is not lost; empty otherwise).
        not_measured: how many runs failed at the transport layer.
        units: how many runs there were.
        message: the one line to say instead of the generic one (a caller that knows the real
            cause, e.g. ``aau review judge``: "3 of 3 calls failed: HTTP 500 x3 ...").

    ``.rate``, ``.threshold``, ``.results``, ``.not_measured`` and ``.units`` keep them.
    """

    def __init__(self, rate: float, threshold: float, *, results: Sequence[Any] = (),
                 not_measured: int = 0, units: int = 0, message: str | None = None) -> None:
        self.rate = rate
        self.threshold = threshold
        self.results = list(results)
        counted = f" ({not_measured} of {units})" if units else ""
        super().__init__(
            message or f"{rate:.0%} of runs{counted} failed at the transport layer (authentication, "
            f"network or rate limits; limit {threshold:.0%}), so these numbers measure the "
            "provider, not the model; nothing was written as a result. Check the API key and "
            "the endpoint, then run again.",
            not_measured=not_measured, units=units, reason="infrastructure",
        )

    def summary(self) -> dict[str, Any]:
        """``NotMeasuredError.summary`` with ``rate`` and ``threshold`` (in [0, 1])."""
        return {**super().summary(), "rate": self.rate, "threshold": self.threshold}


def _detail(result: Any) -> Mapping[str, Any]:
    detail = (
        result.get("detail") if isinstance(result, Mapping) else getattr(result, "detail", None)
    )
    return detail if isinstance(detail, Mapping) else {}


def is_transport_error(error: object) -> bool:
    """True when an error text (or exception) reads as a transport failure
    (``TRANSPORT_ERROR_PATTERN``); ``None`` and ``""`` are not errors."""
    return bool(error) and TRANSPORT_ERROR_PATTERN.search(str(error)) is not None


def transport_failures(results: Iterable[Any]) -> tuple[int, int]:
    """``(runs that failed at the transport layer, runs)`` (see ``provider_error_rate``)."""
    items = list(getattr(results, "results", results))
    return sum(1 for r in items if is_transport_error(_detail(r).get("error"))), len(items)


def provider_error_rate(results: Iterable[Any]) -> float:
    """Fraction of results whose ``detail["error"]`` is a transport failure.

    Args:
        results: result objects with a ``detail`` mapping (e.g. ``ScenarioResult``), mappings
            with a ``"detail"`` key, or an object with a ``results`` list (an aggregate);
            a result without a detail or an error counts as a measurement.

    Returns:
        a number in [0, 1]; 0.0 for no results.
    """
    bad, n = transport_failures(results)
    return bad / n if n else 0.0


def check_results_are_measurements(results: Iterable[Any],
                                   threshold: float = PUBLISH_UNMEASURED_LIMIT) -> None:
    """Raise unless fewer than ``threshold`` of the results failed at the transport layer.

    Call it before saving or publishing results, so that an expired key cannot become a score.
    ``run_eval`` applies the same rule with its own ``unmeasured_limit`` (module docstring).

    Args:
        results: as ``provider_error_rate``.
        threshold: the fraction (0..1] at or above which the results are refused (default
            ``PUBLISH_UNMEASURED_LIMIT``, 0.5).

    Raises:
        ProviderUnavailable: ``provider_error_rate(results) >= threshold`` (its ``.results``
            are the results given).
        ValueError: ``threshold`` outside (0, 1].
    """
    if not 0 < threshold <= 1:
        raise ValueError(f"threshold must be in (0, 1], got {threshold!r}")
    items = list(getattr(results, "results", results))
    bad, n = transport_failures(items)
    if n and bad / n >= threshold:
        raise ProviderUnavailable(bad / n, threshold, results=items, not_measured=bad, units=n)
