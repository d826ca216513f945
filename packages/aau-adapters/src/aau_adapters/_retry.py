"""Opt-in retries of an endpoint exchange (``aau evaluate --retries N``): what is retried and how
long to wait before each retry.

What is retried: an exchange whose failure code is in the ``infrastructure`` class of
``_failure_codes.failure_class`` (``adapter-http-429``, ``adapter-http-5xx``,
``adapter-unreachable``): the transport or a provider in front of the agent failed, so the agent's
answer was never measured. Nothing else is retried: not a timeout (the agent may still be
working, and a second request would double its work and cost), not another 4xx, not a 2xx with
a bad body (those are the agent's answers).

How long to wait before retry number ``k`` (1, 2, ...), in seconds, never more than the cap
(``--retry-max-wait``, default 60 s):

- the response's ``Retry-After`` when it has a valid one (RFC 9110 §10.2.3: delta-seconds, or
  an HTTP-date, read with ``email.utils.parsedate_to_datetime``, minus the current time; a date
  in the past waits 0 s). A ``Retry-After`` beyond the cap waits the cap;
- otherwise a deterministic exponential back-off, ``0.5 * 2 ** (k - 1)`` s: 0.5, 1, 2, 4, ...
  (no jitter, so a run's waits are reproducible and tests exact).
"""

from __future__ import annotations

import math
import re
from datetime import timezone

from aau_core import UsageError

from . import _failure_codes as fc

DEFAULT_MAX_WAIT_S = 60.0
"""The default ``--retry-max-wait``, in seconds."""

BACKOFF_BASE_S = 0.5
"""The first back-off wait, in seconds (doubled for each further retry)."""

_DELTA_SECONDS = re.compile(r"[0-9]+")


def check_retries(retries: object, max_wait_s: object) -> None:
    """Refuse a retry setting the command line would refuse.

    Args:
        retries: further attempts allowed per unit (an ``int`` >= 0).
        max_wait_s: the longest wait before one retry, in seconds (a finite number >= 0).

    Raises:
        aau_core.UsageError: either is of the wrong type or out of range (named).
    """
    if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
        raise UsageError(f"--retries must be an integer >= 0, not {retries!r}")
    if isinstance(max_wait_s, bool) or not isinstance(max_wait_s, (int, float)) \
            or not math.isfinite(max_wait_s) or max_wait_s < 0:
        raise UsageError(f"--retry-max-wait must be a finite number of seconds >= 0, not {max_wait_s!r}")


def is_retryable(code: str | None) -> bool:
    """Whether an exchange that ended with failure code ``code`` may be tried again: True only
    for the ``infrastructure`` class (``adapter-http-429``, ``adapter-http-5xx``,
    ``adapter-unreachable``); False for ``None`` (an answer) and every other code."""
    return fc.failure_class(code) == fc.INFRASTRUCTURE


def parse_retry_after(value: str | None, now: float) -> float | None:
    """Read a ``Retry-After`` header value (RFC 9110 §10.2.3).

    Args:
        value: the header's value (``"120"`` or ``"Wed, 21 Oct 2015 07:28:00 GMT"``), or ``None``.
        now: the current time, in seconds since the Unix epoch (``time.time()``).

    Returns:
        the seconds to wait (>= 0, ``math.inf`` for more digits than a float holds exactly; a
        date in the past gives 0.0), or ``None`` when the header is
        absent or is neither delta-seconds (digits only) nor an HTTP-date (a date without a zone
        is read as GMT, as RFC 9110 says every HTTP-date is).
    """
    if value is None:
        return None
    text = value.strip()
    if _DELTA_SECONDS.fullmatch(text):
        return float(int(text)) if len(text) <= 15 else math.inf  # beyond any cap anyway
    from email.utils import parsedate_to_datetime  # only for an HTTP-date (~3 ms import)

    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, when.timestamp() - now)


def backoff_s(retry: int) -> float:
    """The back-off wait before retry number ``retry`` (1, 2, ...) when the server gave no valid
    ``Retry-After``: ``0.5 * 2 ** (retry - 1)`` seconds (0.5, 1, 2, 4, ...), uncapped."""
    return BACKOFF_BASE_S * 2.0 ** min(retry - 1, 1000)


def retry_wait_s(retry: int, retry_after: str | None, *, now: float, max_wait_s: float) -> float:
    """Seconds to wait before retry number ``retry`` (1, 2, ...).

    Args:
        retry: which retry this is (1 for the second attempt).
        retry_after: the failed response's ``Retry-After`` value, or ``None``.
        now: the current time in seconds since the Unix epoch (for an HTTP-date).
        max_wait_s: the cap, in seconds.

    Returns:
        ``min(max_wait_s, parse_retry_after(retry_after, now))`` when the header is valid, else
        ``min(max_wait_s, backoff_s(retry))``.
    """
    asked = parse_retry_after(retry_after, now)
    wait = backoff_s(retry) if asked is None else asked
    return min(max_wait_s, wait)

