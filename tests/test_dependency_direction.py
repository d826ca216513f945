"""No package imports upward: the dependency direction of docs/architecture.md, read from the code.

Every ``import`` and ``from ... import`` in ``packages/*/src`` (module level or inside a function,
templates of generated projects excluded) is checked against the order
aau-schemas <- aau-core <- {aau-adapters, aau-labs} <- {aau-baseline, aau-review} <- aau-evidence
<- aau-navigator <- aau-harness, and against each package's declared dependencies.
"""

from __future__ import annotations

import ast
import re

from _helpers import REPO

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

# package -> the aau packages it may import (transitively allowed ones listed explicitly)
ALLOWED = {
    "aau_schemas": set(),
    "aau_core": {"aau_schemas"},
    "aau_adapters": {"aau_schemas", "aau_core"},
    "aau_labs": {"aau_schemas", "aau_core"},
    "aau_baseline": {"aau_schemas", "aau_core", "aau_adapters", "aau_labs"},
    "aau_review": {"aau_schemas", "aau_core", "aau_adapters", "aau_labs"},
    "aau_evidence": {"aau_schemas", "aau_core", "aau_adapters", "aau_labs", "aau_baseline",
                     "aau_review"},
    "aau_navigator": {"aau_schemas", "aau_core", "aau_adapters", "aau_labs", "aau_baseline",
                      "aau_review", "aau_evidence"},
    "aau_harness": {"aau_schemas", "aau_core", "aau_adapters", "aau_labs", "aau_baseline",
                    "aau_evidence", "aau_navigator", "aau_review"},
}
AAU = re.compile(r"^aau_[a-z]+$")


def _imports(path):
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.lineno, node.module.split(".")[0]


def _packages():
    for pyproject in sorted((REPO / "packages").glob("*/pyproject.toml")):
        name = pyproject.parent.name.replace("-", "_")
        yield name, pyproject


def test_every_package_is_placed_in_the_order():
    assert {name for name, _ in _packages()} <= set(ALLOWED)


def test_no_package_imports_upward_or_undeclared():
    problems = []
    for name, pyproject in _packages():
        meta = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
        declared = {re.split(r"[<>=!~\[; ]", d, maxsplit=1)[0].replace("-", "_")
                    for d in meta.get("dependencies", [])}
        for path in sorted((pyproject.parent / "src" / name).rglob("*.py")):
            for line, top in _imports(path):
                if not AAU.match(top) or top == name:
                    continue
                where = f"{path.relative_to(REPO)}:{line}"
                if top not in ALLOWED[name]:
                    problems.append(f"{where}: {name} imports {top} (upward)")
                elif top not in declared:
                    problems.append(f"{where}: {name} imports {top}, not in its dependencies")
    assert not problems, "\n".join(problems)
