"""aau-baseline: blinded human-baseline studies.

Public API::

    baseline_group (the click group behind `aau baseline`)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aau_core import lazy_exports

# Names load on first use (PEP 562), so `aau --help` stays fast.
_EXPORTS = {
    "baseline_group": "._cli",
}


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)


if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
    from ._cli import baseline_group

__version__ = "2.0.0.dev0"

__all__ = [
    "baseline_group",
]
