"""``--price-per-mtok IN,OUT`` and ``--pricing-file FILE``: the price of a model aau's table
lacks, given on the command line of ``aau lab run`` and ``aau bench agentdojo``.

A model with no price is never reported at $0 (``aau_core._agents._cost``: a ``local`` model is
declared at $0, any other is refused before the run); these options are how a user supplies it.
A ``--price-per-mtok`` price is recorded as declared (``usage.price_declared`` in each run's
detail); a ``--pricing-file`` is a ``pricing`` document (validated first) and counts as a table.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import click
from aau_core import UsageError

_EXAMPLE = "0.15,0.60"


def pricing_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add ``--price-per-mtok`` (``price_per_mtok``) and ``--pricing-file`` (``pricing_file``)."""
    command = click.option(
        "--pricing-file", "pricing_file", type=click.Path(dir_okay=False), default=None,
        help="A pricing document (aau-pricing/1.0, docs/backends.md) for models aau's table "
             "lacks.")(command)
    return click.option(
        "--price-per-mtok", "price_per_mtok", default=None, metavar="IN,OUT",
        help="The --model's price in USD per million input, output tokens, e.g. "
             f"{_EXAMPLE} (recorded as declared). A model without a price is refused, never "
             "shown as $0; a --backend local model is declared at $0 unless given.")(command)


def parse_price(value: str) -> tuple[float, float]:
    """``"IN,OUT"`` -> ``(input_per_mtok, output_per_mtok)``, USD per million tokens.

    Raises:
        UsageError: not two finite numbers >= 0 separated by a comma.
    """
    parts = value.split(",")
    try:
        rates = tuple(float(p) for p in parts)
    except ValueError:
        rates = ()
    if len(parts) != 2 or len(rates) != 2 or not all(math.isfinite(r) and r >= 0 for r in rates):
        raise UsageError(f"--price-per-mtok {value!r}: expected IN,OUT, two numbers >= 0 in USD "
                         f"per million input and output tokens (e.g. {_EXAMPLE})")
    return rates[0], rates[1]


def apply_pricing(price_per_mtok: str | None, pricing_file: str | None,
                  model: str | None) -> None:
    """Register the prices the options give, for this process, before any run.

    Args:
        price_per_mtok: the ``--price-per-mtok`` value or ``None``.
        pricing_file: the ``--pricing-file`` path or ``None``.
        model: the ``--model`` value (``--price-per-mtok`` needs it).

    Raises:
        UsageError: a bad ``--price-per-mtok``, or one without ``--model``.
        InputError, PricingError: an unreadable or invalid pricing file (exit 2).
    """
    from aau_core import register_pricing_file
    from aau_core._agents._cost import declare_pricing  # internal to the monorepo

    if pricing_file is not None:
        register_pricing_file(pricing_file)
    if price_per_mtok is not None:
        if not model:
            raise UsageError("--price-per-mtok goes with --model (the model it prices)")
        rate_in, rate_out = parse_price(price_per_mtok)
        declare_pricing(model, rate_in, rate_out,
                        reason=f"declared with --price-per-mtok {price_per_mtok}")


def cost_text(agg: Any) -> str:
    """The summary line's cost: ``$0.0123``, plus `` (price declared)`` when any run's price was
    declared (``detail.usage.price_declared``), so a declared $0 never reads as a measured one."""
    declared = any(isinstance(r.detail.get("usage"), dict)
                   and r.detail["usage"].get("price_declared") for r in agg.results)
    return f"${agg.total_cost_usd:.4f}" + (" (price declared)" if declared else "")


__all__ = ["apply_pricing", "cost_text", "parse_price", "pricing_options"]
