"""aau-core's subpackages import only what their docstrings allow (docs/architecture.md's table).

Every ``import``/``from ... import`` of ``aau_core``'s sources (module level and inside functions)
is resolved to the aau-core subpackage it reaches; each subpackage may reach only the ones below.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "aau_core"

# subpackage -> the aau-core parts it may import (itself always; "_errors" is the shared base)
ALLOWED = {
    "_files": {"_errors"},
    "_run": {"_errors", "_files", "_installed"},
    "_tool_calls": {"_errors", "_files"},
    "_environments": {"_errors"},
    "_agents": {"_errors", "_files", "_run", "_tool_calls"},
    "_reports": {"_errors", "_files", "_run"},
    "_traces": {"_errors", "_files", "_run"},
    "_store": {"_errors", "_files", "_run", "_reports"},
    "_cli": {"_errors", "_files", "_run", "_agents", "_tool_calls", "_reports", "_store",
             "_traces", "_lazy", "_installed"},
}
TOP = {"_errors": set(), "_lazy": set(), "_installed": set(), "__main__": {"_cli"}}


def _part(path: Path) -> str:
    rel = path.relative_to(SRC)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def _reached(path: Path, node: ast.ImportFrom | ast.Import) -> list[str]:
    """The aau-core parts an import statement reaches (``_files``, ``_errors``, ...)."""
    names = []
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    elif node.level == 0:
        names = [node.module or ""]
    else:
        package = list(path.relative_to(SRC.parent).with_suffix("").parts)
        package = package[:-1] if path.name != "__init__.py" else package[:-1]
        base = package[: len(package) - (node.level - 1)]
        module = ".".join(base + ([node.module] if node.module else []))
        names = [module] if node.module else [f"{module}.{a.name}" for a in node.names]
    parts = []
    for name in names:
        dotted = name.split(".")
        if dotted[0] == "aau_core" and len(dotted) > 1:
            parts.append(dotted[1])
    return parts


def test_every_subpackage_imports_only_what_it_may():
    problems = []
    for path in sorted(SRC.rglob("*.py")):
        if path.name == "__init__.py" and path.parent == SRC:
            continue  # the package's export table names everything
        part = _part(path)
        allowed = ALLOWED.get(part, TOP.get(part))
        assert allowed is not None, f"{path}: {part} has no row in ALLOWED"
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for reached in _reached(path, node):
                    if reached != part and reached not in allowed:
                        problems.append(f"{path.relative_to(SRC)}:{node.lineno}: {part} "
                                        f"imports {reached}")
    assert not problems, "\n".join(problems)


def test_the_rules_are_the_subpackages_docstrings():
    """Each subpackage's docstring names what it may import; the table above must agree."""
    for part, allowed in ALLOWED.items():
        doc = (SRC / part / "__init__.py").read_text(encoding="utf-8")
        for other in allowed - {"_lazy"}:
            assert other in doc or (part == "_cli" and "any aau_core subpackage" in doc), \
                f"{part}'s docstring does not say it may import {other}"
