"""``METRIC=VALUE`` bars on the command line: the one parser behind every such flag.

``aau evaluate --fail-under``, ``aau lab run --fail-under`` and ``aau report --pass-metric`` all
read their bars with ``parse_metric_bars``. Its rules (the strictest of the three parsers it
replaced; each broken rule is one usage error, exit 2, naming the flag as typed):

1. a flag is ``METRIC=VALUE``: an ``=``, a metric name before it that is not empty and has no
   leading or trailing space, and a value after it (``--fail-under 'exact_rate'``: ``expected
   METRIC=VALUE, e.g. exact_rate=0.9``);
2. when the command knows its metrics (``metrics``), the name is one of them (``unknown metric
   'speed'; one of ...``);
3. the value is a number (``'high' is not a number``), finite (``nan``, ``inf``: ``the bar must be
   a finite number``) and, since every bar is a rate or a 0/1 score, within [0, 1] (``the bar
   must be between 0 and 1 (a rate or a 0/1 score, in [0, 1])``);
4. a metric is given at most once (``--fail-under 'exact_rate' is given twice``): two bars on
   one metric would leave the reader guessing which holds.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from .._errors import UsageError


def parse_metric_bars(values: Iterable[str], *, option: str = "--fail-under",
                      metavar: str = "METRIC=VALUE", example: str = "exact_rate=0.9",
                      metrics: Iterable[str] | None = None) -> dict[str, float]:
    """Parse repeated ``METRIC=VALUE`` flags into ``{metric: bar}`` (rules: module docstring).

    Args:
        values: the flags as typed, in order (click's ``multiple=True`` tuple).
        option: the flag's name, first in every message (``"--pass-metric"``).
        metavar: the shape the help shows (``"NAME=MIN"``), named when a flag is malformed.
        example: a well-formed flag, shown when one is malformed.
        metrics: the metric names this command knows, or ``None`` when it learns them later
            (``aau lab run`` checks them against the lab once it is loaded).

    Returns:
        metric -> bar (a float in [0, 1]), in the order given; ``{}`` for no flags.

    Raises:
        UsageError: a flag breaks one of the rules; the message names the flag.
    """
    known = None if metrics is None else tuple(metrics)
    bars: dict[str, float] = {}
    for raw in values:
        name, sep, text = raw.partition("=")
        if not sep or not name or name != name.strip() or not text.strip():
            raise UsageError(f"{option} {raw!r}: expected {metavar}, e.g. {example}")
        if known is not None and name not in known:
            raise UsageError(f"{option} {raw!r}: unknown metric {name!r}; one of "
                             + ", ".join(known))
        try:
            bar = float(text)
        except ValueError:
            raise UsageError(f"{option} {raw!r}: {text!r} is not a number") from None
        if not math.isfinite(bar):
            raise UsageError(f"{option} {raw!r}: the bar must be a finite number")
        if not 0.0 <= bar <= 1.0:
            raise UsageError(f"{option} {raw!r}: the bar must be between 0 and 1 (a rate or a "
                             "0/1 score, in [0, 1])")
        if name in bars:
            raise UsageError(f"{option} {name!r} is given twice")
        bars[name] = bar
    return bars
