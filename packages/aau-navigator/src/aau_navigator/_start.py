"""The exact commands that start a catalog entry offline (``aau start``); nothing is run.

An entry with ``commands`` (aau's catalogs) is started with those commands, verbatim. An entry
without them is an aau-harness 1.6 lab package, started as 1.6 did: one editable install of
``harness``, then of the lab's local dependencies in dependency order, then of the lab itself,
and ``<cli> eval --backend mock``. Local dependencies are the projects found as
``<root>/*/*/pyproject.toml`` whose ``project.name`` the lab's ``project.dependencies`` name
(a requirement's name is what precedes ``[``, a space, or a version operator); a lab whose
``pyproject.toml`` is absent is installed alone.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

from ._catalog import CatalogEntry

_REQUIREMENT_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def _project(pyproject: Path) -> dict[str, Any]:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    from aau_core import InputError
    from aau_core._files._strict_json import decode_text  # internal to the monorepo

    try:
        return tomllib.loads(decode_text(pyproject.read_bytes())).get("project", {})
    except (OSError, InputError, tomllib.TOMLDecodeError):
        return {}


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def local_install_paths(root: Path, lab_path: str) -> list[str]:
    """The lab's local dependencies, then the lab, as root-relative POSIX paths (install order).

    Args:
        root: the checkout holding ``<industry>/<use-case>`` lab folders.
        lab_path: the entry's path.

    Returns:
        paths, each once, dependencies before dependents; a dependency cycle is cut where it
        closes. Unreadable ``pyproject.toml`` files count as having no dependencies.
    """
    projects: dict[str, Path] = {}
    for pyproject in sorted(root.glob("*/*/pyproject.toml")):
        name = _project(pyproject).get("name")
        if isinstance(name, str):
            projects.setdefault(_normalise(name), pyproject.parent)
    ordered: list[Path] = []
    seen: set[Path] = set()

    def visit(folder: Path) -> None:
        if folder in seen:
            return
        seen.add(folder)
        for requirement in _project(folder / "pyproject.toml").get("dependencies", []) or []:
            found = _REQUIREMENT_NAME.match(str(requirement))
            dep = projects.get(_normalise(found.group(1))) if found else None
            if dep is not None:
                visit(dep)
        ordered.append(folder)

    visit(root / lab_path)
    return [p.relative_to(root).as_posix() for p in ordered]


EXAMPLES_COMMAND = "aau examples"
"""The command that writes the bundled catalog's ``examples/`` files into the current folder."""


def start_commands(entry: CatalogEntry, root: Path, *, bundled: bool = False) -> list[str]:
    """The commands, in order, that run ``entry`` offline from ``root`` (see module docstring).

    Args:
        entry: the catalog entry.
        root: the folder the commands run from.
        bundled: ``entry`` is from the catalog aau-navigator ships, whose paths are the
            bundled examples: when ``entry.path`` is not under ``root``, the commands begin
            with ``aau examples`` (which writes them there).
    """
    if entry.commands is not None:
        setup = [EXAMPLES_COMMAND] if bundled and not (root / entry.path).exists() else []
        return [*setup, *entry.commands]
    paths = ["harness", *local_install_paths(root, entry.path)]
    install = "python -m pip install " + " ".join(f"-e {shlex.quote(p)}" for p in paths)
    return [install, f"{entry.cli} eval --backend mock"]
