"""Every ``from aau_x[.module] import name`` in the repository resolves.

A public name that leaves a package's export table, or a module that moves, must take every user
with it: source, tests, tools, benchmarks and examples are read with ``ast`` (imports inside
functions included, so a lazily imported name cannot hide; relative imports of package sources
resolved from the file's place) and each imported name is looked up.
"""

from __future__ import annotations

import ast
import importlib

from _helpers import REPO

FOLDERS = ("packages", "tests", "tools", "benchmarks", "examples")


def _aau_imports():
    for folder in FOLDERS:
        for path in sorted((REPO / folder).rglob("*.py")):
            if "fixtures" in path.parts or any(p.startswith(".") for p in path.parts):
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            package = _package_of(path)
            for node in ast.walk(tree):
                if not isinstance(node, ast.ImportFrom):
                    continue
                if node.level:  # relative: only inside a package's sources
                    if package is None:
                        continue
                    base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    module = ".".join(base + ([node.module] if node.module else []))
                else:
                    module = node.module or ""
                if module.split(".")[0].startswith("aau_"):
                    for alias in node.names:
                        yield path.relative_to(REPO), node.lineno, module, alias.name


def _package_of(path):
    """The dotted package a source file under ``packages/*/src`` belongs to, else ``None``."""
    parts = path.relative_to(REPO).parts
    if len(parts) < 4 or parts[0] != "packages" or parts[2] != "src":
        return None
    inner = list(parts[3:-1])
    return ".".join(inner)


def _resolves(module: str, name: str) -> str | None:
    try:
        mod = importlib.import_module(module)
    except ImportError as exc:
        return f"module {module}: {exc}"
    if name == "*":
        return None
    try:
        if hasattr(mod, name):
            return None
    except ImportError as exc:  # a lazy export whose module fails to import
        return f"{module}.{name}: {exc}"
    try:
        importlib.import_module(f"{module}.{name}")  # a submodule
    except ImportError:
        return f"{module} has no {name!r}"
    return None


def test_every_aau_import_in_the_repository_resolves():
    imports = list(_aau_imports())
    assert len(imports) > 500
    problems = [f"{path}:{line}: {why}" for path, line, module, name in imports
                if (why := _resolves(module, name)) is not None]
    assert not problems, "\n".join(problems)
