"""Hatchling build hook that ships the repository's ``examples/`` folder inside the wheel.

The wheel gets ``aau_navigator/examples`` (what ``aau examples`` copies into the current
folder); the sdist gets ``examples/``, so a wheel built from the sdist finds it there. Both
leave out the patterns of ``aau_navigator._examples.EXCLUDED`` (read from that file's source:
the hook cannot import the package it builds). Editable installs copy nothing: the runtime
reads ``<repo>/examples`` directly.
"""

from __future__ import annotations

import ast
import fnmatch
from pathlib import Path

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


def _excluded(root: Path) -> tuple[str, ...]:
    tree = ast.parse((root / "src" / "aau_navigator" / "_examples.py").read_text("utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "EXCLUDED":
            return tuple(ast.literal_eval(node.value))
    raise LookupError("aau_navigator/_examples.py defines no EXCLUDED")


class ExamplesBuildHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict) -> None:
        root = Path(self.root)
        in_repo = (root / ".." / ".." / "examples").resolve()
        in_sdist = root / "examples"
        src = in_repo if (in_repo / "README.md").is_file() else in_sdist
        if not (src / "README.md").is_file():
            raise FileNotFoundError(f"aau examples not found at {in_repo} or {in_sdist}")
        if self.target_name == "sdist":
            prefix = "examples"
        elif self.target_name == "wheel" and version != "editable":
            prefix = "aau_navigator/examples"
        else:
            return
        excluded = _excluded(root)
        for path in sorted(src.rglob("*")):
            relative = path.relative_to(src).as_posix()
            if path.is_file() and not any(fnmatch.fnmatch(relative, p) for p in excluded):
                build_data["force_include"][str(path)] = f"{prefix}/{relative}"
