"""Domain labs: fictional, mock-runnable benchmarks of tool-using agents (``aau lab``).

A lab turns a domain config document into seeded scenarios, runs an agent (or its deliberate
mock) through a tool session per scenario, scores each run with component detectors and writes
an ``aau-lab-result`` document. The shared frame (``LabSpec``, scenario files, lab results,
policy search) is ``aau_labs._frame._lab_spec``; the per-run loop every lab uses (agent, session,
scorer -> ``ScenarioResult``) is ``_lab_run.evaluate_tool_lab``; the scripted mocks' base and what
they read from a conversation (ids, tool results) is ``_scripted_mock``. Each lab module exposes
``LAB = LabSpec(...)``.

Registry::

    LAB_MODULES                 lab name -> module path (imported only when asked for)
    get_lab(name) -> LabSpec    raises UsageError for an unknown name
    lab_for_config_kind(kind)   the lab whose ``config_kind`` is ``kind``; UsageError if none
"""

from __future__ import annotations

import importlib

from aau_core import UsageError

from ._lab_spec import LabSpec

LAB_MODULES: dict[str, str] = {
    "decision-gate": "aau_labs._gate._lab",
    "contract": "aau_labs._contract._lab",
    "evidence-service": "aau_labs._service._lab",
}
"""Lab name -> module defining ``LAB``; a module not (yet) present is skipped by ``available_labs``."""


def get_lab(name: str) -> LabSpec:
    """The ``LabSpec`` of lab ``name`` (its module is imported on first use).

    Raises:
        UsageError: ``name`` is not in ``LAB_MODULES``, or its module is not installed.
    """
    if name not in LAB_MODULES:
        raise UsageError(f"unknown lab {name!r}; known: {', '.join(sorted(LAB_MODULES))}")
    try:
        module = importlib.import_module(LAB_MODULES[name])
    except ModuleNotFoundError as exc:
        if exc.name != LAB_MODULES[name]:
            raise
        raise UsageError(f"lab {name!r} is not available in this installation") from None
    spec = module.LAB
    if not isinstance(spec, LabSpec) or spec.name != name:
        raise TypeError(f"{LAB_MODULES[name]}.LAB must be the LabSpec named {name!r}")
    return spec


def available_labs() -> list[LabSpec]:
    """Every lab whose module imports, in ``LAB_MODULES`` order."""
    out = []
    for name in LAB_MODULES:
        try:
            out.append(get_lab(name))
        except UsageError:
            continue
    return out


def lab_for_config_kind(kind: str | None) -> LabSpec:
    """The lab whose config kind (an aau-schemas kind, e.g. ``"gate-config"``) is ``kind``.

    Raises:
        UsageError: no available lab reads that kind (the message lists the kinds that are read).
    """
    labs = available_labs()
    for spec in labs:
        if spec.config_kind == kind:
            return spec
    known = ", ".join(spec.config_kind for spec in labs) or "none"
    raise UsageError(f"no lab reads documents of kind {kind!r}; lab config kinds: {known}")


__all__ = ["LAB_MODULES", "LabSpec", "available_labs", "get_lab", "lab_for_config_kind"]
