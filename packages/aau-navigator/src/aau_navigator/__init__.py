"""aau-navigator: find, start and grow aau evidence projects (aau-harness 1.6's Navigator,
Challenge, Gallery, Starter, Forge and Scaffold).

Commands (plugins of ``aau``): ``list``, ``find``, ``show``, ``start`` (the use-case catalog),
``challenge``, ``gallery``, ``init``, ``doctor`` (starter projects), ``forge``, ``new-use-case``
(lab packages); the 1.6 scripts ``aau-challenge``, ``aau-gallery``, ``aau-forge`` and
``aau-new-use-case`` are aliases.

Public API::

    (filled in as the modules land; every name is listed in ``_EXPORTS``)
"""

from __future__ import annotations

from aau_core import lazy_exports

# Names load on first use (PEP 562), so `aau --help` stays fast.
_EXPORTS: dict[str, str] = {}


__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
