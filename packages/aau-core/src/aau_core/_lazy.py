"""Lazy package exports (PEP 562): names load from their modules on first use.

Used by the ``__init__`` of every aau package so that ``aau --help`` and small commands import only
what they need (no httpx, numpy or SDKs until a name that needs them is touched).

Internal to the aau monorepo, not part of aau_core's public API: packages import it as
``from aau_core._lazy import lazy_exports``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(
    package: str,
    exports: Mapping[str, str],
    *,
    install_hint: Mapping[str, str] | None = None,
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """Build a package's module-level ``__getattr__`` and ``__dir__``.

    Args:
        package: the package's ``__name__``.
        exports: public name -> module providing it (``"._runner"`` relative to ``package``, or
            an absolute module name).
        install_hint: absolute module name -> distribution to ``pip install`` when importing
            that module fails (for umbrella packages).

    Returns:
        ``(__getattr__, __dir__)``; ``__getattr__`` caches each loaded name in the package.

    Raises (from ``__getattr__``):
        AttributeError: the name is not exported.
        ImportError: the providing module is missing; with a hint, the message names the
            distribution to install.
    """
    namespace = importlib.import_module(package).__dict__

    def __getattr__(name: str) -> Any:
        module_name = exports.get(name)
        if module_name is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        try:
            module = importlib.import_module(module_name, package)
        except ImportError:
            hint = (install_hint or {}).get(module_name)
            if hint is None:
                raise
            raise ImportError(f"{package}.{name} needs the {hint} package: pip install {hint}"
                              ) from None
        value = getattr(module, name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(exports))

    return __getattr__, __dir__
