"""Environments by name: the entry-point group ``aau.environments``.

A package registers an environment in its ``pyproject.toml``::

    [project.entry-points."aau.environments"]
    tau2-mock = "aau_labs._environments._tau2_mock:Tau2MockEnvironment"

The object named is a callable with no arguments returning an ``Environment`` (a class or a
factory function); it is imported and called only when a suite names the environment, once per
process. ``register_environment`` adds one in-process (tests, the Python API); it wins over an
entry point of the same name and is not seen by other processes (a Ray worker loads the entry
points of its own installation).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from .._errors import UsageError
from ._contract import Environment

ENTRY_POINT_GROUP = "aau.environments"
"""The entry-point group environments register in."""

_LOCK = threading.Lock()
_REGISTERED: dict[str, Callable[[], Environment]] = {}
_LOADED: dict[str, Environment] = {}


def _entry_points() -> dict[str, object]:
    from importlib.metadata import entry_points

    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


def environment_names() -> list[str]:
    """Every environment name this process can load (entry points and registered), sorted."""
    with _LOCK:
        return sorted(set(_entry_points()) | set(_REGISTERED))


def register_environment(name: str, factory: Callable[[], Environment]) -> None:
    """Make ``name`` load ``factory()`` in this process (replacing any earlier one).

    Args:
        name: the name suites use (``^[a-z0-9][a-z0-9._-]*$``).
        factory: a callable with no arguments returning an ``Environment``.
    """
    with _LOCK:
        _REGISTERED[name] = factory
        _LOADED.pop(name, None)


def load_environment(name: str) -> Environment:
    """The environment registered as ``name``, built once per process.

    Raises:
        UsageError: no environment has that name (the message lists the known ones, and says
            which package to install for the bundled ones), or its entry point fails to load
            (the message names the entry point and the error).
    """
    with _LOCK:
        env = _LOADED.get(name)
        if env is not None:
            return env
        factory = _REGISTERED.get(name)
        if factory is None:
            points = _entry_points()
            point = points.get(name)
            if point is None:
                known = ", ".join(sorted(set(points) | set(_REGISTERED))) or "none"
                raise UsageError(f"no environment named {name!r} is installed (installed: "
                                 f"{known}); aau-labs provides agentdojo-* and tau2-mock")
            try:
                factory = point.load()  # type: ignore[attr-defined]
            except Exception as exc:  # a plugin's import error must be one line, not a traceback
                raise UsageError(f"environment {name!r} ({point.value}) failed to load: "  # type: ignore[attr-defined]
                                 f"{type(exc).__name__}: {exc}") from None
        env = factory()
        _LOADED[name] = env
        return env


__all__ = ["ENTRY_POINT_GROUP", "environment_names", "load_environment", "register_environment"]
