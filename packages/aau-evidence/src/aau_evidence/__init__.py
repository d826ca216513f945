"""aau-evidence: impact capsules, evidence packs, community submissions and release gates
(the aau-harness 1.6 ``aau-impact-capsule/1.0``, ``aau-evidence-pack/1.0``, submission and release
formats).

Public API::

    evidence_group (the click group behind `aau evidence`)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aau_core import lazy_exports

# Names load on first use (PEP 562), so `aau --help` stays fast.
_EXPORTS = {
    "evidence_group": "._cli_evidence",
}


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)


if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
    from ._cli_evidence import evidence_group

__version__ = "2.0.0.dev0"

__all__ = [
    "evidence_group",
]
