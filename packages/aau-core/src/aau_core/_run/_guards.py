"""Guards that keep transport failures from being published as an agent's score.

A wrong answer is a measurement. A 401, a 429 storm or a DNS failure is not: the run never reached
the model, so its zero measures the provider, not the agent. Results record the reason a run
failed in ``detail["error"]`` (the agent loop's ``AgentRun.error``, or a backend exception's
text); these guards classify that text with ``TRANSPORT_ERROR_PATTERN`` and refuse to go on when
too many runs failed at the transport layer.

Agent failures — "ended turn without submitting a decision", "no submission within 8 turns", a
refusal, a malformed tool call (``tool_use_failed``) — never match the pattern and stay scored as
misses.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
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


class ProviderUnavailable(NotMeasuredError, RuntimeError):
    """Too many runs failed at the transport layer: the numbers measure the provider, not the
    agent (exit 3, a non-measurement). ``.rate`` is the fraction of such runs, ``.threshold``
    the limit it reached."""

    def __init__(self, rate: float, threshold: float) -> None:
        self.rate = rate
        self.threshold = threshold
        super().__init__(
            f"{rate:.0%} of runs failed at the transport layer (authentication, network or rate "
            f"limits; limit {threshold:.0%}), so these numbers measure the provider, not the "
            "model. Check the API key and the endpoint, then run again."
        )


def _detail(result: Any) -> Mapping[str, Any]:
    detail = (
        result.get("detail") if isinstance(result, Mapping) else getattr(result, "detail", None)
    )
    return detail if isinstance(detail, Mapping) else {}


def is_transport_error(error: object) -> bool:
    """True when an error text (or exception) reads as a transport failure
    (``TRANSPORT_ERROR_PATTERN``); ``None`` and ``""`` are not errors."""
    return bool(error) and TRANSPORT_ERROR_PATTERN.search(str(error)) is not None


def provider_error_rate(results: Iterable[Any]) -> float:
    """Fraction of results whose ``detail["error"]`` is a transport failure.

    Args:
        results: result objects with a ``detail`` mapping (e.g. ``ScenarioResult``), mappings
            with a ``"detail"`` key, or an object with a ``results`` list (an aggregate);
            a result without a detail or an error counts as a measurement.

    Returns:
        a number in [0, 1]; 0.0 for no results.
    """
    items = list(getattr(results, "results", results))
    if not items:
        return 0.0
    bad = sum(1 for r in items if is_transport_error(_detail(r).get("error")))
    return bad / len(items)


def check_results_are_measurements(results: Iterable[Any], threshold: float = 0.5) -> None:
    """Raise unless fewer than ``threshold`` of the results failed at the transport layer.

    Call it before saving or publishing results, so that an expired key cannot become a score.

    Args:
        results: as ``provider_error_rate``.
        threshold: the fraction (0..1] at or above which the results are refused.

    Raises:
        ProviderUnavailable: ``provider_error_rate(results) >= threshold``.
        ValueError: ``threshold`` outside (0, 1].
    """
    if not 0 < threshold <= 1:
        raise ValueError(f"threshold must be in (0, 1], got {threshold!r}")
    rate = provider_error_rate(results)
    if rate >= threshold:
        raise ProviderUnavailable(rate, threshold)
